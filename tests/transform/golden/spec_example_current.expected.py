from __future__ import annotations

# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False, private=True)
    def main_stage0[n](x: R.Tensor((1, n, 16), dtype="float32"), s: R.Shape([n]), packed_params: R.Any) -> R.Tuple(R.Tensor((1, n, 16), dtype="float32")):
        R.func_attr({"num_input": 2})
        with R.dataflow():
            w0: R.Tensor((16, 16), dtype="float32") = R.call_pure_packed("vm.builtin.tuple_getitem", packed_params, 0, ty_args=(R.Tensor((16, 16), dtype="float32"),))
            lv0: R.Tensor((1, n, 16), dtype="float32") = R.matmul(x, w0)
            R.output(lv0)
        gv: R.Any = R.call_packed("runtime.disco.send_to_next_group", lv0)
        return (lv0,)

    @R.function(pure=False, private=True)
    def main_stage1[n](s: R.Shape([n]), packed_params: R.Any) -> R.Tuple(R.Tensor((1, n, 16), dtype="float32")):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv1 = R.call_dps_packed("runtime.disco.recv_from_prev_group", R.tuple(), out_ty=R.Tensor((1, n, 16), dtype="float32"))
            w1: R.Tensor((16, 16), dtype="float32") = R.call_pure_packed("vm.builtin.tuple_getitem", packed_params, 1, ty_args=(R.Tensor((16, 16), dtype="float32"),))
            gv: R.Tensor((1, n, 16), dtype="float32") = R.matmul(lv1, w1)
            R.output(gv)
        return (gv,)

    @R.function(pure=False)
    def main[n](x: R.Tensor((1, n, 16), dtype="float32"), packed_params: R.Any) -> R.Any:
        cls = Module
        gv: R.Any = R.call_builtin_with_ctx("mlc.multi_gpu.DispatchFunctionByGroup", (((cls.main_stage0, x, R.shape([n]), packed_params), (cls.main_stage1, R.shape([n]), packed_params)),), ty_args=(R.Any,))
        return gv
