# RUN: pipeline-parallel-rewrite
# Lowered code: call_tir with tir_vars and out_sinfo mentioning `n`; the TIR kernels pass
# through untouched and every symbolic var in a stage is the stage's own copy.
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

    @R.function
    def main(x: R.Tensor((1, "n", 8), dtype="float16"), packed_params: R.Tuple(R.Tensor((8,), dtype="float16"), R.Tensor((8,), dtype="float16"))) -> R.Tensor((1, "n", 8), dtype="float16"):
        n = T.int64()
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 2})
        cls = Module
        with R.dataflow():
            w0: R.Tensor((8,), dtype="float16") = packed_params[0]
            lv = R.call_tir(cls.scale, (x, w0), out_sinfo=R.Tensor((1, n, 8), dtype="float16"))
            lv1: R.Tensor((1, n, 8), dtype="float16") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", lv, sinfo_args=(R.Tensor((1, n, 8), dtype="float16"),))
            lv2 = R.call_tir(cls.rotary, (lv1,), out_sinfo=R.Tensor((1, n, 8), dtype="float16"), tir_vars=R.shape([n]))
            w1: R.Tensor((8,), dtype="float16") = packed_params[1]
            gv = R.call_tir(cls.scale, (lv2, w1), out_sinfo=R.Tensor((1, n, 8), dtype="float16"))
            R.output(gv)
        return gv
