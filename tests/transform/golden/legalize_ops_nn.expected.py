# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def matmul(A: T.Buffer((T.int64(1), T.int64(4), T.int64(8)), "float32"), B: T.Buffer((T.int64(8), T.int64(8)), "float32"), matmul: T.Buffer((T.int64(1), T.int64(4), T.int64(8)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i0, i1, i2, k in T.grid(T.int64(1), T.int64(4), T.int64(8), T.int64(8)):
            with T.block("matmul"):
                v_i0, v_i1, v_i2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])
                T.reads(A[v_i0, v_i1, v_k], B[v_k, v_i2])
                T.writes(matmul[v_i0, v_i1, v_i2])
                with T.init():
                    matmul[v_i0, v_i1, v_i2] = T.float32(0)
                matmul[v_i0, v_i1, v_i2] = matmul[v_i0, v_i1, v_i2] + A[v_i0, v_i1, v_k] * B[v_k, v_i2]

    @T.prim_func(private=True)
    def matmul1(A: T.Buffer((T.int64(1), T.int64(4), T.int64(8)), "float32"), B: T.Buffer((T.int64(2), T.int64(8), T.int64(4)), "float32"), matmul: T.Buffer((T.int64(2), T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i0, i1, i2, k in T.grid(T.int64(2), T.int64(4), T.int64(4), T.int64(8)):
            with T.block("matmul"):
                v_i0, v_i1, v_i2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])
                T.reads(A[T.int64(0), v_i1, v_k], B[v_i0, v_k, v_i2])
                T.writes(matmul[v_i0, v_i1, v_i2])
                with T.init():
                    matmul[v_i0, v_i1, v_i2] = T.float32(0)
                matmul[v_i0, v_i1, v_i2] = matmul[v_i0, v_i1, v_i2] + A[T.int64(0), v_i1, v_k] * B[v_i0, v_k, v_i2]

    @T.prim_func(private=True)
    def rms_norm(A: T.Buffer((T.int64(1), T.int64(4), T.int64(8)), "float32"), B: T.Buffer((T.int64(8),), "float32"), rms_norm: T.Buffer((T.int64(1), T.int64(4), T.int64(8)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        Ared_temp = T.alloc_buffer((T.int64(1), T.int64(4)))
        for i0, i1, k in T.grid(T.int64(1), T.int64(4), T.int64(8)):
            with T.block("Ared_temp"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(A[v_i0, v_i1, v_k])
                T.writes(Ared_temp[v_i0, v_i1])
                with T.init():
                    Ared_temp[v_i0, v_i1] = T.float32(0)
                Ared_temp[v_i0, v_i1] = Ared_temp[v_i0, v_i1] + A[v_i0, v_i1, v_k] * A[v_i0, v_i1, v_k]
        for i0, i1, i2 in T.grid(T.int64(1), T.int64(4), T.int64(8)):
            with T.block("rms_norm"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                T.reads(Ared_temp[v_i0, v_i1], A[v_i0, v_i1, v_i2], B[v_i2])
                T.writes(rms_norm[v_i0, v_i1, v_i2])
                rms_norm[v_i0, v_i1, v_i2] = T.float32(1) / T.sqrt(Ared_temp[v_i0, v_i1] / T.float32(8) + T.float32(1.0000000000000001e-05)) * A[v_i0, v_i1, v_i2] * B[v_i2]

    @T.prim_func(private=True)
    def softmax(A: T.Buffer((T.int64(2), T.int64(4), T.int64(4)), "float32"), T_softmax_norm: T.Buffer((T.int64(2), T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        T_softmax_maxelem = T.alloc_buffer((T.int64(2), T.int64(4)))
        T_softmax_exp = T.alloc_buffer((T.int64(2), T.int64(4), T.int64(4)))
        T_softmax_expsum = T.alloc_buffer((T.int64(2), T.int64(4)))
        for i0, i1, k in T.grid(T.int64(2), T.int64(4), T.int64(4)):
            with T.block("T_softmax_maxelem"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(A[v_i0, v_i1, v_k])
                T.writes(T_softmax_maxelem[v_i0, v_i1])
                with T.init():
                    T_softmax_maxelem[v_i0, v_i1] = T.float32(-3.4028234663852886e+38)
                T_softmax_maxelem[v_i0, v_i1] = T.max(T_softmax_maxelem[v_i0, v_i1], A[v_i0, v_i1, v_k])
        for i0, i1, i2 in T.grid(T.int64(2), T.int64(4), T.int64(4)):
            with T.block("T_softmax_exp"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                T.reads(A[v_i0, v_i1, v_i2], T_softmax_maxelem[v_i0, v_i1])
                T.writes(T_softmax_exp[v_i0, v_i1, v_i2])
                T_softmax_exp[v_i0, v_i1, v_i2] = T.exp(A[v_i0, v_i1, v_i2] - T_softmax_maxelem[v_i0, v_i1])
        for i0, i1, k in T.grid(T.int64(2), T.int64(4), T.int64(4)):
            with T.block("T_softmax_expsum"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(T_softmax_exp[v_i0, v_i1, v_k])
                T.writes(T_softmax_expsum[v_i0, v_i1])
                with T.init():
                    T_softmax_expsum[v_i0, v_i1] = T.float32(0)
                T_softmax_expsum[v_i0, v_i1] = T_softmax_expsum[v_i0, v_i1] + T_softmax_exp[v_i0, v_i1, v_k]
        for i0, i1, i2 in T.grid(T.int64(2), T.int64(4), T.int64(4)):
            with T.block("T_softmax_norm"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                T.reads(T_softmax_exp[v_i0, v_i1, v_i2], T_softmax_expsum[v_i0, v_i1])
                T.writes(T_softmax_norm[v_i0, v_i1, v_i2])
                T.block_attr({"axis": 2})
                T_softmax_norm[v_i0, v_i1, v_i2] = T_softmax_exp[v_i0, v_i1, v_i2] / T_softmax_expsum[v_i0, v_i1]

    @R.function
    def main(x: R.Tensor((1, 4, 8), dtype="float32"), w: R.Tensor((8, 8), dtype="float32"), g: R.Tensor((8,), dtype="float32"), k: R.Tensor((2, 8, 4), dtype="float32")) -> R.Tuple(R.Tensor((1, 4, 8), dtype="float32"), R.Tensor((2, 4, 4), dtype="float32")):
        cls = Module
        with R.dataflow():
            n = R.call_tir(cls.rms_norm, (x, g), out_sinfo=R.Tensor((1, 4, 8), dtype="float32"))
            y = R.call_tir(cls.matmul, (n, w), out_sinfo=R.Tensor((1, 4, 8), dtype="float32"))
            s = R.call_tir(cls.matmul1, (y, k), out_sinfo=R.Tensor((2, 4, 4), dtype="float32"))
            p = R.call_tir(cls.softmax, (s,), out_sinfo=R.Tensor((2, 4, 4), dtype="float32"))
            R.output(y, p)
        return (y, p)
