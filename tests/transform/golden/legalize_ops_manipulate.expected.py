# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def concatenate(A: T.Buffer((T.int64(2), T.int64(4), T.int64(2)), "float32"), B: T.Buffer((T.int64(2), T.int64(4), T.int64(1)), "float32"), T_concat: T.Buffer((T.int64(2), T.int64(4), T.int64(3)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1, ax2 in T.grid(T.int64(2), T.int64(4), T.int64(3)):
            with T.block("T_concat"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(B[v_ax0, v_ax1, v_ax2 - T.int64(2)], A[v_ax0, v_ax1, v_ax2])
                T.writes(T_concat[v_ax0, v_ax1, v_ax2])
                T_concat[v_ax0, v_ax1, v_ax2] = T.if_then_else(T.int64(2) <= v_ax2, B[v_ax0, v_ax1, v_ax2 - T.int64(2)], A[v_ax0, v_ax1, v_ax2])

    @T.prim_func(private=True)
    def full(T_full: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.block("T_full"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads()
                T.writes(T_full[v_ax0, v_ax1])
                T_full[v_ax0, v_ax1] = T.float32(-1000000000)

    @T.prim_func(private=True)
    def reshape(A: T.Buffer((T.int64(1), T.int64(4)), "int32"), T_reshape: T.Buffer((T.int64(4),), "int32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0 in range(T.int64(4)):
            with T.block("T_reshape"):
                v_ax0 = T.axis.spatial(T.int64(4), ax0)
                T.reads(A[v_ax0 // T.int64(4), v_ax0 % T.int64(4)])
                T.writes(T_reshape[v_ax0])
                T_reshape[v_ax0] = A[v_ax0 // T.int64(4), v_ax0 % T.int64(4)]

    @T.prim_func(private=True)
    def reshape1(A: T.Buffer((T.int64(4), T.int64(6)), "float32"), T_reshape: T.Buffer((T.int64(4), T.int64(2), T.int64(3)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1, ax2 in T.grid(T.int64(4), T.int64(2), T.int64(3)):
            with T.block("T_reshape"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(A[(v_ax0 * T.int64(6) + v_ax1 * T.int64(3) + v_ax2) // T.int64(6), (v_ax0 * T.int64(6) + v_ax1 * T.int64(3) + v_ax2) % T.int64(6)])
                T.writes(T_reshape[v_ax0, v_ax1, v_ax2])
                T_reshape[v_ax0, v_ax1, v_ax2] = A[(v_ax0 * T.int64(6) + v_ax1 * T.int64(3) + v_ax2) // T.int64(6), (v_ax0 * T.int64(6) + v_ax1 * T.int64(3) + v_ax2) % T.int64(6)]

    @T.prim_func(private=True)
    def strided_slice(A: T.Buffer((T.int64(2), T.int64(4), T.int64(3)), "float32"), T_strided_slice_with_axes: T.Buffer((T.int64(2), T.int64(4), T.int64(1)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1, ax2 in T.grid(T.int64(2), T.int64(4), T.int64(1)):
            with T.block("T_strided_slice_with_axes"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(A[v_ax0, v_ax1, v_ax2])
                T.writes(T_strided_slice_with_axes[v_ax0, v_ax1, v_ax2])
                T_strided_slice_with_axes[v_ax0, v_ax1, v_ax2] = A[v_ax0, v_ax1, v_ax2]

    @T.prim_func(private=True)
    def strided_slice1(A: T.Buffer((T.int64(2), T.int64(4), T.int64(3)), "float32"), T_strided_slice_with_axes: T.Buffer((T.int64(2), T.int64(4), T.int64(2)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1, ax2 in T.grid(T.int64(2), T.int64(4), T.int64(2)):
            with T.block("T_strided_slice_with_axes"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(A[v_ax0, v_ax1, v_ax2 + T.int64(1)])
                T.writes(T_strided_slice_with_axes[v_ax0, v_ax1, v_ax2])
                T_strided_slice_with_axes[v_ax0, v_ax1, v_ax2] = A[v_ax0, v_ax1, v_ax2 + T.int64(1)]

    @T.prim_func(private=True)
    def take(A: T.Buffer((T.int64(10), T.int64(6)), "float32"), B: T.Buffer((T.int64(4),), "int32"), T_take: T.Buffer((T.int64(4), T.int64(6)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(6)):
            with T.block("T_take"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A[B[v_ax0], v_ax1], B[v_ax0])
                T.writes(T_take[v_ax0, v_ax1])
                T_take[v_ax0, v_ax1] = A[B[v_ax0], v_ax1]

    @T.prim_func(private=True)
    def transpose(A: T.Buffer((T.int64(4), T.int64(2), T.int64(3)), "float32"), T_transpose: T.Buffer((T.int64(2), T.int64(4), T.int64(3)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1, ax2 in T.grid(T.int64(2), T.int64(4), T.int64(3)):
            with T.block("T_transpose"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(A[v_ax1, v_ax0, v_ax2])
                T.writes(T_transpose[v_ax0, v_ax1, v_ax2])
                T_transpose[v_ax0, v_ax1, v_ax2] = A[v_ax1, v_ax0, v_ax2]

    @T.prim_func(private=True)
    def triu(A: T.Buffer((T.int64(4), T.int64(4)), "float32"), trilu: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i0, i1 in T.grid(T.int64(4), T.int64(4)):
            with T.block("trilu"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(A[v_i0, v_i1])
                T.writes(trilu[v_i0, v_i1])
                trilu[v_i0, v_i1] = T.Select(v_i0 + T.int64(1) <= v_i1, A[v_i0, v_i1], T.float32(0))

    @R.function
    def main(ids: R.Tensor((1, 4), dtype="int32"), w: R.Tensor((10, 6), dtype="float32")) -> R.Tuple(R.Tensor((2, 4, 3), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        cls = Module
        with R.dataflow():
            i = R.call_tir(cls.reshape, (ids,), out_sinfo=R.Tensor((4,), dtype="int32"))
            x = R.call_tir(cls.take, (w, i), out_sinfo=R.Tensor((4, 6), dtype="float32"))
            x3 = R.call_tir(cls.reshape1, (x,), out_sinfo=R.Tensor((4, 2, 3), dtype="float32"))
            t = R.call_tir(cls.transpose, (x3,), out_sinfo=R.Tensor((2, 4, 3), dtype="float32"))
            lo = R.call_tir(cls.strided_slice, (t,), out_sinfo=R.Tensor((2, 4, 1), dtype="float32"))
            hi = R.call_tir(cls.strided_slice1, (t,), out_sinfo=R.Tensor((2, 4, 2), dtype="float32"))
            cat = R.call_tir(cls.concatenate, (hi, lo), out_sinfo=R.Tensor((2, 4, 3), dtype="float32"))
            neg = R.call_tir(cls.full, R.tuple(), out_sinfo=R.Tensor((4, 4), dtype="float32"))
            mask = R.call_tir(cls.triu, (neg,), out_sinfo=R.Tensor((4, 4), dtype="float32"))
            R.output(cat, mask)
        return (cat, mask)
