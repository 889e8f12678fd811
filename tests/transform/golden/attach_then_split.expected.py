# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False, private=True)
    def main_stage0(x: R.Tensor((4,), dtype="float32"), s: R.Shape([]), packed_params: R.Object) -> R.Tuple(R.Tensor((4,), dtype="float32")):
        R.func_attr({"num_input": 2})
        with R.dataflow():
            w: R.Tensor((4,), dtype="float32") = R.call_pure_packed("vm.builtin.tuple_getitem", packed_params, R.prim_value(0), sinfo_args=(R.Tensor((4,), dtype="float32"),))
            a: R.Tensor((4,), dtype="float32") = R.add(x, w)
            R.output(a)
        gv: R.Object = R.call_packed("runtime.disco.send_to_next_group", a)
        return (a,)

    @R.function(pure=False, private=True)
    def main_stage1(s: R.Shape([]), packed_params: R.Object) -> R.Tuple(R.Tensor((4,), dtype="float32")):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            b = R.call_dps_packed("runtime.disco.recv_from_prev_group", R.tuple(), out_sinfo=R.Tensor((4,), dtype="float32"))
            gv: R.Tensor((4,), dtype="float32") = R.multiply(b, b)
            R.output(gv)
        return (gv,)

    @R.function(pure=False)
    def main(x: R.Tensor((4,), dtype="float32"), packed_params: R.Object) -> R.Object:
        cls = Module
        gv: R.Object = R.call_builtin_with_ctx("mlc.multi_gpu.DispatchFunctionByGroup", (((cls.main_stage0, x, R.shape([]), packed_params), (cls.main_stage1, R.shape([]), packed_params)),), sinfo_args=(R.Object,))
        return gv
