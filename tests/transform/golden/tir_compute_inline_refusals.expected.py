# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def param_buffer(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i in range(8):
            with T.sblock("B"):
                v_i = T.axis.spatial(8, i)
                T.reads(A[v_i])
                T.writes(B[v_i])
                B[v_i] = A[v_i] + T.float32(1.0)
        for i in range(8):
            with T.sblock("C"):
                v_i = T.axis.spatial(8, i)
                T.reads(B[v_i])
                T.writes(C[v_i])
                C[v_i] = B[v_i] * T.float32(2.0)

    @T.prim_func(private=True, s_tir=True)
    def two_writers(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        B = T.sblock_alloc_buffer((8,))
        for i in range(8):
            with T.sblock("B"):
                v_i = T.axis.spatial(8, i)
                T.reads(A[v_i])
                T.writes(B[v_i])
                B[v_i] = A[v_i] + T.float32(1.0)
        for i in range(8):
            with T.sblock("B_again"):
                v_i = T.axis.spatial(8, i)
                T.reads(A[v_i])
                T.writes(B[v_i])
                B[v_i] = A[v_i] * T.float32(3.0)
        for i in range(8):
            with T.sblock("C"):
                v_i = T.axis.spatial(8, i)
                T.reads(B[v_i])
                T.writes(C[v_i])
                C[v_i] = B[v_i] * T.float32(2.0)

    @T.prim_func(private=True, s_tir=True)
    def predicate(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        B = T.sblock_alloc_buffer((8,))
        for i in range(8):
            with T.sblock("B"):
                v_i = T.axis.spatial(8, i)
                T.where(i < 6)
                T.reads(A[v_i])
                T.writes(B[v_i])
                B[v_i] = A[v_i] + T.float32(1.0)
        for i in range(6):
            with T.sblock("C"):
                v_i = T.axis.spatial(6, i)
                T.reads(B[v_i])
                T.writes(C[v_i])
                C[v_i] = B[v_i] * T.float32(2.0)

    @T.prim_func(private=True, s_tir=True)
    def reduction(A: T.Buffer((4, 8), "float32"), C: T.Buffer((4,), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        S = T.sblock_alloc_buffer((4,))
        for i, k in T.grid(4, 8):
            with T.sblock("S"):
                v_i, v_k = T.axis.remap("SR", [i, k])
                T.reads(A[v_i, v_k])
                T.writes(S[v_i])
                with T.init():
                    S[v_i] = T.float32(0.0)
                S[v_i] = S[v_i] + A[v_i, v_k]
        for i in range(4):
            with T.sblock("C"):
                v_i = T.axis.spatial(4, i)
                T.reads(S[v_i])
                T.writes(C[v_i])
                C[v_i] = S[v_i] * T.float32(2.0)

    @T.prim_func(private=True, s_tir=True)
    def written_after(X: T.Buffer((8,), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        B = T.sblock_alloc_buffer((8,))
        for i in range(8):
            with T.sblock("B"):
                v_i = T.axis.spatial(8, i)
                T.reads(X[v_i])
                T.writes(B[v_i])
                B[v_i] = X[v_i] + T.float32(1.0)
        for i in range(8):
            with T.sblock("X"):
                v_i = T.axis.spatial(8, i)
                T.reads(B[7 - v_i])
                T.writes(X[v_i])
                X[v_i] = B[7 - v_i] * T.float32(2.0)

    @T.prim_func(private=True, s_tir=True)
    def split_loops(A: T.Buffer((32,), "float32"), C: T.Buffer((32,), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        B = T.sblock_alloc_buffer((32,))
        for i0, i1 in T.grid(4, 8):
            with T.sblock("B"):
                v = T.axis.spatial(32, i0 * 8 + i1)
                T.reads(A[v])
                T.writes(B[v])
                B[v] = A[v] + T.float32(1.0)
        for i in range(32):
            with T.sblock("C"):
                v_i = T.axis.spatial(32, i)
                T.reads(B[v_i])
                T.writes(C[v_i])
                C[v_i] = B[v_i] * T.float32(2.0)

    @T.prim_func(private=True, s_tir=True)
    def parallel_loop(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        B = T.sblock_alloc_buffer((8,))
        for i in T.parallel(8):
            with T.sblock("B"):
                v_i = T.axis.spatial(8, i)
                T.reads(A[v_i])
                T.writes(B[v_i])
                B[v_i] = A[v_i] + T.float32(1.0)
        for i in range(8):
            with T.sblock("C"):
                v_i = T.axis.spatial(8, i)
                T.reads(B[v_i])
                T.writes(C[v_i])
                C[v_i] = B[v_i] * T.float32(2.0)

    @T.prim_func(private=True, s_tir=True)
    def partial_producer(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        B = T.sblock_alloc_buffer((8,))
        for i in range(6):
            with T.sblock("B"):
                v_i = T.axis.spatial(6, i)
                T.reads(A[v_i])
                T.writes(B[v_i])
                B[v_i] = A[v_i] + T.float32(1.0)
        for i in range(6):
            with T.sblock("C"):
                v_i = T.axis.spatial(6, i)
                T.reads(B[v_i])
                T.writes(C[v_i])
                C[v_i] = B[v_i] * T.float32(2.0)

    @T.prim_func(private=True, s_tir=True)
    def may_alias(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
        # with T.sblock("root"):
        B = T.sblock_alloc_buffer((8,))
        for i in range(8):
            with T.sblock("B"):
                v_i = T.axis.spatial(8, i)
                T.reads(A[v_i])
                T.writes(B[v_i])
                B[v_i] = A[v_i] + T.float32(1.0)
        for i in range(8):
            with T.sblock("C"):
                v_i = T.axis.spatial(8, i)
                T.reads(B[7 - v_i])
                T.writes(C[v_i])
                C[v_i] = B[7 - v_i] * T.float32(2.0)

    @T.prim_func(private=True, s_tir=True)
    def index_dtype(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        B = T.sblock_alloc_buffer((8,))
        for i in range(8):
            with T.sblock("B"):
                v_i = T.axis.spatial(8, i)
                T.reads(A[v_i])
                T.writes(B[v_i])
                B[v_i] = A[v_i] + T.float32(1.0)
        for i in range(T.int64(8)):
            with T.sblock("C"):
                v_i = T.axis.spatial(T.int64(8), i)
                T.reads(B[v_i])
                T.writes(C[v_i])
                C[v_i] = B[v_i] * T.float32(2.0)
