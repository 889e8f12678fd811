# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False, private=True)
    def main_stage0(x: R.Tensor((2, 4), dtype="float32"), s: R.Shape([]), packed_params: R.Any) -> R.Tuple(R.Tensor((2, 4), dtype="float32")):
        R.func_attr({"num_input": 2})
        with R.dataflow():
            w0: R.Tensor((4, 4), dtype="float32") = R.call_pure_packed("vm.builtin.tuple_getitem", packed_params, 0, ty_args=(R.Tensor((4, 4), dtype="float32"),))
            a: R.Tensor((2, 4), dtype="float32") = R.matmul(x, w0)
            R.output(a)
        gv: R.Any = R.call_packed("runtime.disco.send_to_next_group", a)
        return (a,)

    @R.function(pure=False, private=True)
    def main_stage1(s: R.Shape([]), packed_params: R.Any) -> R.Tuple(R.Tensor(dtype="float32", ndim=2)):
        R.func_attr({"num_input": 1})
        v = T.int64()
        with R.dataflow():
            b = R.call_dps_packed("runtime.disco.recv_from_prev_group", R.tuple(), out_ty=R.Tensor((2, 4), dtype="float32"))
            w1: R.Any = R.call_pure_packed("vm.builtin.tuple_getitem", packed_params, 1, ty_args=(R.Any,))
            w1_cast: R.Tensor((4, v), dtype="float32") = R.match_cast(w1, R.Tensor((4, v), dtype="float32"))
            gv: R.Tensor((2, v), dtype="float32") = R.matmul(b, w1_cast)
            R.output(gv)
        return (gv,)

    @R.function(pure=False)
    def main(x: R.Tensor((2, 4), dtype="float32"), packed_params: R.Any) -> R.Any:
        cls = Module
        gv: R.Any = R.call_builtin_with_ctx("mlc.multi_gpu.DispatchFunctionByGroup", (((cls.main_stage0, x, R.shape([]), packed_params), (cls.main_stage1, R.shape([]), packed_params)),), ty_args=(R.Any,))
        return gv
