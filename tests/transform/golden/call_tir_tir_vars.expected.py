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
    def main_stage0(x: R.Tensor((1, "n", 8), dtype="float16"), s: R.Shape(["n"]), packed_params: R.Object) -> R.Tuple(R.Tensor((1, "n", 8), dtype="float16")):
        n = T.int64()
        R.func_attr({"num_input": 2})
        cls = Module
        with R.dataflow():
            w0: R.Tensor((8,), dtype="float16") = R.call_pure_packed("vm.builtin.tuple_getitem", packed_params, R.prim_value(0), sinfo_args=(R.Tensor((8,), dtype="float16"),))
            lv = R.call_tir(cls.scale, (x, w0), out_sinfo=R.Tensor((1, n, 8), dtype="float16"))
            R.output(lv)
        gv: R.Object = R.call_packed("runtime.disco.send_to_next_group", lv)
        return (lv,)

    @R.function(pure=False, private=True)
    def main_stage1(s: R.Shape(["n"]), packed_params: R.Object) -> R.Tuple(R.Tensor((1, "n", 8), dtype="float16")):
        n = T.int64()
        R.func_attr({"num_input": 1})
        cls = Module
        with R.dataflow():
            lv1 = R.call_dps_packed("runtime.disco.recv_from_prev_group", R.tuple(), out_sinfo=R.Tensor((1, n, 8), dtype="float16"))
            lv2 = R.call_tir(cls.rotary, (lv1,), out_sinfo=R.Tensor((1, n, 8), dtype="float16"), tir_vars=R.shape([n]))
            w1: R.Tensor((8,), dtype="float16") = R.call_pure_packed("vm.builtin.tuple_getitem", packed_params, R.prim_value(1), sinfo_args=(R.Tensor((8,), dtype="float16"),))
            gv = R.call_tir(cls.scale, (lv2, w1), out_sinfo=R.Tensor((1, n, 8), dtype="float16"))
            R.output(gv)
        return (gv,)

    @R.function(pure=False)
    def main(x: R.Tensor((1, "n", 8), dtype="float16"), packed_params: R.Object) -> R.Object:
        n = T.int64()
        cls = Module
        gv: R.Object = R.call_builtin_with_ctx("mlc.multi_gpu.DispatchFunctionByGroup", (((cls.main_stage0, x, R.shape([n]), packed_params), (cls.main_stage1, R.shape([n]), packed_params)),), sinfo_args=(R.Object,))
        return gv
