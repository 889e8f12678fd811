from __future__ import annotations

# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def rotary(var_A: T.handle, var_B: T.handle, n: T.int64):
        T.func_attr({"tir.noalias": T.bool(True)})
        A = T.match_buffer(var_A, (T.int64(1), n, T.int64(8)), "float16")
        B = T.match_buffer(var_B, (T.int64(1), n, T.int64(8)), "float16")
        for i, j in T.grid(n, T.int64(8)):
            with T.block("B"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                B[T.int64(0), v_i, v_j] = A[T.int64(0), v_i, v_j]

    @T.prim_func(private=True)
    def scale(var_A: T.handle, W: T.Buffer((T.int64(8),), "float16"), var_B: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        A = T.match_buffer(var_A, (T.int64(1), n, T.int64(8)), "float16")
        B = T.match_buffer(var_B, (T.int64(1), n, T.int64(8)), "float16")
        for i, j in T.grid(n, T.int64(8)):
            with T.block("B"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                B[T.int64(0), v_i, v_j] = A[T.int64(0), v_i, v_j] * W[v_j]

    @R.function(pure=False, private=True)
    def main_stage0[n](x: R.Tensor((1, n, 8), dtype="float16"), s: R.Shape([n]), packed_params: R.Any) -> R.Tuple(R.Tensor((1, n, 8), dtype="float16")):
        R.func_attr({"num_input": 2})
        cls = Module
        with R.dataflow():
            w0: R.Tensor((8,), dtype="float16") = R.call_pure_packed("vm.builtin.tuple_getitem", packed_params, 0, ty_args=(R.Tensor((8,), dtype="float16"),))
            lv = R.call_tir(cls.scale, (x, w0), out_ty=R.Tensor((1, n, 8), dtype="float16"))
            R.output(lv)
        gv: R.Any = R.call_packed("runtime.disco.send_to_next_group", lv)
        return (lv,)

    @R.function(pure=False, private=True)
    def main_stage1[n](s: R.Shape([n]), packed_params: R.Any) -> R.Tuple(R.Tensor((1, n, 8), dtype="float16")):
        R.func_attr({"num_input": 1})
        cls = Module
        with R.dataflow():
            lv1 = R.call_dps_packed("runtime.disco.recv_from_prev_group", R.tuple(), out_ty=R.Tensor((1, n, 8), dtype="float16"))
            lv2 = R.call_tir(cls.rotary, (lv1, n), out_ty=R.Tensor((1, n, 8), dtype="float16"))
            w1: R.Tensor((8,), dtype="float16") = R.call_pure_packed("vm.builtin.tuple_getitem", packed_params, 1, ty_args=(R.Tensor((8,), dtype="float16"),))
            gv = R.call_tir(cls.scale, (lv2, w1), out_ty=R.Tensor((1, n, 8), dtype="float16"))
            R.output(gv)
        return (gv,)

    @R.function(pure=False)
    def main[n](x: R.Tensor((1, n, 8), dtype="float16"), packed_params: R.Any) -> R.Any:
        cls = Module
        gv: R.Any = R.call_builtin_with_ctx("mlc.multi_gpu.DispatchFunctionByGroup", (((cls.main_stage0, x, R.shape([n]), packed_params), (cls.main_stage1, R.shape([n]), packed_params)),), ty_args=(R.Any,))
        return gv
