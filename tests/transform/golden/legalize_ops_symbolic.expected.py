# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add(var_A: T.handle, B: T.Buffer((T.int64(8),), "float32"), var_T_add: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        A = T.match_buffer(var_A, (T.int64(1), n, T.int64(8)))
        T_add = T.match_buffer(var_T_add, (T.int64(1), n, T.int64(8)))
        # with T.block("root"):
        for ax0, ax1, ax2 in T.grid(T.int64(1), n, T.int64(8)):
            with T.block("T_add"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(A[v_ax0, v_ax1, v_ax2], B[v_ax2])
                T.writes(T_add[v_ax0, v_ax1, v_ax2])
                T_add[v_ax0, v_ax1, v_ax2] = A[v_ax0, v_ax1, v_ax2] + B[v_ax2]

    @T.prim_func(private=True)
    def full(var_T_full: T.handle, n: T.int64):
        T.func_attr({"tir.noalias": T.bool(True)})
        T_full = T.match_buffer(var_T_full, (n * T.int64(2),))
        # with T.block("root"):
        for ax0 in range(n * T.int64(2)):
            with T.block("T_full"):
                v_ax0 = T.axis.spatial(n * T.int64(2), ax0)
                T.reads()
                T.writes(T_full[v_ax0])
                T_full[v_ax0] = T.float32(1)

    @T.prim_func(private=True)
    def softmax(var_A: T.handle, var_T_softmax_norm: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        A = T.match_buffer(var_A, (T.int64(1), n, T.int64(8)))
        T_softmax_norm = T.match_buffer(var_T_softmax_norm, (T.int64(1), n, T.int64(8)))
        # with T.block("root"):
        T_softmax_maxelem = T.alloc_buffer((T.int64(1), T.int64(8)))
        T_softmax_exp = T.alloc_buffer((T.int64(1), n, T.int64(8)))
        T_softmax_expsum = T.alloc_buffer((T.int64(1), T.int64(8)))
        for i0, i1, k in T.grid(T.int64(1), T.int64(8), n):
            with T.block("T_softmax_maxelem"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(A[v_i0, v_k, v_i1])
                T.writes(T_softmax_maxelem[v_i0, v_i1])
                with T.init():
                    T_softmax_maxelem[v_i0, v_i1] = T.float32(-3.4028234663852886e+38)
                T_softmax_maxelem[v_i0, v_i1] = T.max(T_softmax_maxelem[v_i0, v_i1], A[v_i0, v_k, v_i1])
        for i0, i1, i2 in T.grid(T.int64(1), n, T.int64(8)):
            with T.block("T_softmax_exp"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                T.reads(A[v_i0, v_i1, v_i2], T_softmax_maxelem[v_i0, v_i2])
                T.writes(T_softmax_exp[v_i0, v_i1, v_i2])
                T_softmax_exp[v_i0, v_i1, v_i2] = T.exp(A[v_i0, v_i1, v_i2] - T_softmax_maxelem[v_i0, v_i2])
        for i0, i1, k in T.grid(T.int64(1), T.int64(8), n):
            with T.block("T_softmax_expsum"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(T_softmax_exp[v_i0, v_k, v_i1])
                T.writes(T_softmax_expsum[v_i0, v_i1])
                with T.init():
                    T_softmax_expsum[v_i0, v_i1] = T.float32(0)
                T_softmax_expsum[v_i0, v_i1] = T_softmax_expsum[v_i0, v_i1] + T_softmax_exp[v_i0, v_k, v_i1]
        for i0, i1, i2 in T.grid(T.int64(1), n, T.int64(8)):
            with T.block("T_softmax_norm"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                T.reads(T_softmax_exp[v_i0, v_i1, v_i2], T_softmax_expsum[v_i0, v_i2])
                T.writes(T_softmax_norm[v_i0, v_i1, v_i2])
                T.block_attr({"axis": 1})
                T_softmax_norm[v_i0, v_i1, v_i2] = T_softmax_exp[v_i0, v_i1, v_i2] / T_softmax_expsum[v_i0, v_i2]

    @R.function
    def main(x: R.Tensor((1, "n", 8), dtype="float32"), y: R.Tensor((8,), dtype="float32"), u: R.Tensor(dtype="float32", ndim=2)) -> R.Tensor(("n * 2",), dtype="float32"):
        n = T.int64()
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.add, (x, y), out_sinfo=R.Tensor((1, n, 8), dtype="float32"))
            b = R.call_tir(cls.softmax, (a,), out_sinfo=R.Tensor((1, n, 8), dtype="float32"))
            c = R.call_tir(cls.full, R.tuple(), out_sinfo=R.Tensor((n * 2,), dtype="float32"), tir_vars=R.shape([n]))
            v: R.Tensor(dtype="float32", ndim=2) = R.add(u, u)
            R.output(b, c, v)
        return c
