# RUN: tir-compute-inline
# Loop nests the pass accepts beyond T.grid in iter var order: an extent-1 loop around the nest,
# loops in another order than the iter vars (each still bound to its own loop), and a consumer
# whose T.reads names a range of the buffer (its loop inside the block): the producer's read
# region keeps the consumer's point where it has one and spans the whole dim where the consumer
# reads a range.
# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def row_sum(A: T.Buffer((4, 8), "float32"), C: T.Buffer((4,), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        B = T.sblock_alloc_buffer((4, 8))
        for u in range(1):
            for i, j in T.grid(4, 8):
                with T.sblock("B"):
                    v_i, v_j = T.axis.remap("SS", [i, j])
                    T.reads(A[v_i, v_j])
                    T.writes(B[v_i, v_j])
                    B[v_i, v_j] = A[v_i, v_j] * T.float32(2.0)
        for i in range(4):
            with T.sblock("C"):
                v_i = T.axis.spatial(4, i)
                T.reads(B[v_i, 0:8])
                T.writes(C[v_i])
                C[v_i] = T.float32(0.0)
                for k in range(8):
                    C[v_i] = C[v_i] + B[v_i, k]

    @T.prim_func(private=True, s_tir=True)
    def transposed_nest(A: T.Buffer((4, 8), "float16"), C: T.Buffer((8, 4), "float16")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        B = T.sblock_alloc_buffer((4, 8), "float16")
        for j, i in T.grid(8, 4):
            with T.sblock("B"):
                v_i = T.axis.spatial(4, i)
                v_j = T.axis.spatial(8, j)
                T.reads(A[v_i, v_j])
                T.writes(B[v_i, v_j])
                B[v_i, v_j] = A[v_i, v_j] + T.float16(1.0)
        for i, j in T.grid(8, 4):
            with T.sblock("C"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                T.reads(B[v_j, v_i])
                T.writes(C[v_i, v_j])
                C[v_i, v_j] = B[v_j, v_i] * B[v_j, v_i]
