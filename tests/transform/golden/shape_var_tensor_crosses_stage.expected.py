@I.ir_module
class Module:
    @R.function(pure=False, private=True)
    def main_stage0(x: R.Tensor((16,), dtype="float32"), t: R.Tensor((2,), dtype="int64"), s: R.Shape([]), packed_params: R.Object) -> R.Tuple(R.Tensor(dtype="float32", ndim=2)):
        R.func_attr({"num_input": 3})
        with R.dataflow():
            s_1: R.Shape(ndim=2) = R.tensor_to_shape(t)
            lv0: R.Tensor(dtype="float32", ndim=2) = R.reshape(x, s_1)
            R.output(lv0)
        gv: R.Object = R.call_packed("runtime.disco.send_to_next_group", lv0)
        return (lv0,)

    @R.function(pure=False, private=True)
    def main_stage1(s: R.Shape([]), packed_params: R.Object) -> R.Tuple(R.Tensor(dtype="float32", ndim=2)):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv1 = R.call_dps_packed("runtime.disco.recv_from_prev_group", R.tuple(), out_sinfo=R.Tensor(dtype="float32", ndim=2))
            w0: R.Tensor((4, 4), dtype="float32") = R.call_pure_packed("vm.builtin.tuple_getitem", packed_params, R.prim_value(0), sinfo_args=(R.Tensor((4, 4), dtype="float32"),))
            gv: R.Tensor(dtype="float32", ndim=2) = R.matmul(lv1, w0, out_dtype="void")
            R.output(gv)
        return (gv,)

    @R.function(pure=False)
    def main(x: R.Tensor((16,), dtype="float32"), t: R.Tensor((2,), dtype="int64"), packed_params: R.Object) -> R.Object:
        cls = Module
        gv: R.Object = R.call_builtin_with_ctx("mlc.multi_gpu.DispatchFunctionByGroup", (((cls.main_stage0, x, t, R.shape([]), packed_params), (cls.main_stage1, R.shape([]), packed_params)),), sinfo_args=(R.Object,))
        return gv
