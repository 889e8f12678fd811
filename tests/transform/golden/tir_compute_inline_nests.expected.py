# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def row_sum(A: T.Buffer((4, 8), "float32"), C: T.Buffer((4,), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i in range(4):
            with T.sblock("C"):
                v_i = T.axis.spatial(4, i)
                T.reads(A[v_i, 0:8])
                T.writes(C[v_i])
                C[v_i] = T.float32(0.0)
                for k in range(8):
                    C[v_i] = C[v_i] + A[v_i, k] * T.float32(2.0)

    @T.prim_func(private=True, s_tir=True)
    def transposed_nest(A: T.Buffer((4, 8), "float16"), C: T.Buffer((8, 4), "float16")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i, j in T.grid(8, 4):
            with T.sblock("C"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                T.reads(A[v_j, v_i])
                T.writes(C[v_i, v_j])
                C[v_i, v_j] = (A[v_j, v_i] + T.float16(1.0)) * (A[v_j, v_i] + T.float16(1.0))
