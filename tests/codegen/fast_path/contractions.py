# Kernels the fast path recognises (tests/codegen/fast_path_match_test.cc): each PrimFunc has a
# line `# expect NAME: fast: DESCRIPTION` or `# expect NAME: written: REASON`.
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    # MLC's unscheduled q4f16_1 matmul (unpack, dequantize, multiply), batch rows, then a
    # residual add: the producers are inlined first.
    # expect q4_unscheduled_add: fast: matmul x[M, K] float16 . 4-bit w[N, K] float16 (float16 scales, group 32, zero point 7) -> float16; + [M, N] float16
    @T.prim_func(private=True, s_tir=True)
    def q4_unscheduled_add(w: T.Buffer((64, 16), "uint32"), s: T.Buffer((64, 4), "float16"), x: T.Buffer(("batch_size", 1, 128), "float16"), res: T.Buffer((batch_size, 1, 64), "float16"), out: T.Buffer((batch_size, 1, 64), "float16")):
        batch_size = T.int32()
        T.func_attr({"tirx.noalias": True})
        compute = T.sblock_alloc_buffer((64, 128), "float16")
        dequantize = T.sblock_alloc_buffer((64, 128), "float16")
        mm = T.sblock_alloc_buffer((batch_size, 1, 64), "float16")
        for i0, i1 in T.grid(64, 128):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(w[v_i0, v_i1 // 8])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.Cast("float16", T.bitwise_and(T.shift_right(w[v_i0, v_i1 // 8], T.Cast("uint32", v_i1 % 8 * 4)), T.uint32(15)))
        for i0, i1 in T.grid(64, 128):
            with T.sblock("dequantize"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(compute[v_i0, v_i1], s[v_i0, v_i1 // 32])
                T.writes(dequantize[v_i0, v_i1])
                dequantize[v_i0, v_i1] = (compute[v_i0, v_i1] - T.float16(7.0)) * s[v_i0, v_i1 // 32]
        for i0, i1, i2, k in T.grid(batch_size, 1, 64, 128):
            with T.sblock("NT_matmul"):
                v_i0, v_i1, v_i2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])
                T.reads(x[v_i0, v_i1, v_k], dequantize[v_i2, v_k])
                T.writes(mm[v_i0, v_i1, v_i2])
                with T.init():
                    mm[v_i0, v_i1, v_i2] = T.float16(0.0)
                mm[v_i0, v_i1, v_i2] = mm[v_i0, v_i1, v_i2] + x[v_i0, v_i1, v_k] * dequantize[v_i2, v_k]
        for ax0, ax1, ax2 in T.grid(batch_size, 1, 64):
            with T.sblock("T_add"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(mm[v_ax0, v_ax1, v_ax2], res[v_ax0, v_ax1, v_ax2])
                T.writes(out[v_ax0, v_ax1, v_ax2])
                out[v_ax0, v_ax1, v_ax2] = mm[v_ax0, v_ax1, v_ax2] + res[v_ax0, v_ax1, v_ax2]

    # dlight's CPU schedule of a decode matvec: parallel and vectorized spatial loops, the
    # reduction split with a predicate, a cast to float32 after it; symbolic rows split too.
    # expect q4_dlight_cast: fast: matmul x[M, K] float16 . 4-bit w[N, K] float16 (float16 scales, group 32, zero point 7) -> float16; cast float32
    @T.prim_func(private=True, s_tir=True)
    def q4_dlight_cast(w: T.Buffer(("vocab_size", 88), "uint32"), s: T.Buffer((vocab_size, 22), "float16"), x: T.Buffer((1, 1, 704), "float16"), out: T.Buffer((1, 1, vocab_size), "float32")):
        vocab_size = T.int32()
        T.func_attr({"tirx.is_scheduled": True, "tirx.noalias": True})
        mm = T.sblock_alloc_buffer((1, 1, vocab_size), "float16")
        for u_fused in range(1):
            for ax0_fused_0 in T.parallel((vocab_size + 63) // 64):
                for ax0_fused_1 in T.vectorized(64):
                    for ax1_0_fused_0 in T.serial(3, annotations={"pragma_auto_unroll_max_step": 256, "pragma_unroll_explicit": 1}):
                        for ax1_0_fused_1, ax1_1_0, ax1_1_1 in T.grid(32, 1, 8):
                            with T.sblock("NT_matmul"):
                                v0 = T.axis.spatial(vocab_size, ax0_fused_0 * 64 + ax0_fused_1)
                                v1 = T.axis.reduce(704, (ax1_0_fused_0 * 32 + ax1_0_fused_1) * 8 + ax1_1_0 * 8 + ax1_1_1)
                                T.where(ax0_fused_0 * 64 + ax0_fused_1 < vocab_size and ax1_0_fused_0 * 32 + ax1_0_fused_1 < 88)
                                T.reads(x[0, 0, v1], w[v0, v1 // 8], s[v0, v1 // 32])
                                T.writes(mm[0, 0, v0])
                                with T.init():
                                    mm[0, 0, v0] = T.float16(0.0)
                                mm[0, 0, v0] = mm[0, 0, v0] + x[0, 0, v1] * ((T.Cast("float16", T.bitwise_and(T.shift_right(w[v0, v1 // 8], T.Cast("uint32", v1 % 8 * 4)), T.uint32(15))) - T.float16(7.0)) * s[v0, v1 // 32])
        for ax0 in range(vocab_size):
            with T.sblock("compute1"):
                v0 = T.axis.spatial(vocab_size, ax0)
                T.reads(mm[0, 0, v0])
                T.writes(out[0, 0, v0])
                out[0, 0, v0] = T.Cast("float32", mm[0, 0, v0])

    # LegalizeOps' float32 matmul with transposed weights (R.matmul(x, R.permute_dims(w))).
    # expect dense_f32: fast: matmul x[M, K] float32 . w[N, K] float32 -> float32
    @T.prim_func(private=True, s_tir=True)
    def dense_f32(x: T.Buffer((1, "seq_len", 256), "float32"), w: T.Buffer((688, 256), "float32"), out: T.Buffer((1, seq_len, 688), "float32")):
        seq_len = T.int32()
        T.func_attr({"tirx.noalias": True})
        for i0, i1, i2, k in T.grid(1, seq_len, 688, 256):
            with T.sblock("NT_matmul"):
                v_i0, v_i1, v_i2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])
                T.reads(x[v_i0, v_i1, v_k], w[v_i2, v_k])
                T.writes(out[v_i0, v_i1, v_i2])
                with T.init():
                    out[v_i0, v_i1, v_i2] = T.float32(0.0)
                out[v_i0, v_i1, v_i2] = out[v_i0, v_i1, v_i2] + x[v_i0, v_i1, v_k] * w[v_i2, v_k]

    # float16 operands accumulated in float32 (casts on both factors), a bias per column, the
    # operand on the left.
    # expect dense_f16_bias: fast: matmul x[M, K] float16 . w[N, K] float16 -> float32; + [N] float32
    @T.prim_func(private=True, s_tir=True)
    def dense_f16_bias(x: T.Buffer((4, 64), "float16"), w: T.Buffer((32, 64), "float16"), bias: T.Buffer((32,), "float32"), out: T.Buffer((4, 32), "float32")):
        T.func_attr({"tirx.noalias": True})
        mm = T.sblock_alloc_buffer((4, 32), "float32")
        for i, j, k in T.grid(4, 32, 64):
            with T.sblock("matmul"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                T.reads(x[v_i, v_k], w[v_j, v_k])
                T.writes(mm[v_i, v_j])
                with T.init():
                    mm[v_i, v_j] = T.float32(0.0)
                mm[v_i, v_j] = mm[v_i, v_j] + T.Cast("float32", x[v_i, v_k]) * T.Cast("float32", w[v_j, v_k])
        for i, j in T.grid(4, 32):
            with T.sblock("bias"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                T.reads(bias[v_j], mm[v_i, v_j])
                T.writes(out[v_i, v_j])
                out[v_i, v_j] = bias[v_j] + mm[v_i, v_j]

    # expect no_noalias: written: the kernel does not declare its buffers free of aliases (tir.noalias)
    @T.prim_func(private=True, s_tir=True)
    def no_noalias(x: T.Buffer((4, 64), "float32"), w: T.Buffer((32, 64), "float32"), out: T.Buffer((4, 32), "float32")):
        for i, j, k in T.grid(4, 32, 64):
            with T.sblock("matmul"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                T.reads(x[v_i, v_k], w[v_j, v_k])
                T.writes(out[v_i, v_j])
                with T.init():
                    out[v_i, v_j] = T.float32(0.0)
                out[v_i, v_j] = out[v_i, v_j] + x[v_i, v_k] * w[v_j, v_k]

    # The weight read as w[k, n] (not transposed).
    # expect weight_k_major: written: the weight is not a load w[n, k] of a float matrix
    @T.prim_func(private=True, s_tir=True)
    def weight_k_major(x: T.Buffer((4, 64), "float32"), w: T.Buffer((64, 32), "float32"), out: T.Buffer((4, 32), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j, k in T.grid(4, 32, 64):
            with T.sblock("matmul"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                T.reads(x[v_i, v_k], w[v_k, v_j])
                T.writes(out[v_i, v_j])
                with T.init():
                    out[v_i, v_j] = T.float32(0.0)
                out[v_i, v_j] = out[v_i, v_j] + x[v_i, v_k] * w[v_k, v_j]

    # A max reduction.
    # expect max_reduction: written: the reduction is not a sum
    @T.prim_func(private=True, s_tir=True)
    def max_reduction(x: T.Buffer((4, 64), "float32"), w: T.Buffer((32, 64), "float32"), out: T.Buffer((4, 32), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j, k in T.grid(4, 32, 64):
            with T.sblock("matmul"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                T.reads(x[v_i, v_k], w[v_j, v_k])
                T.writes(out[v_i, v_j])
                with T.init():
                    out[v_i, v_j] = T.float32(0.0)
                out[v_i, v_j] = T.max(out[v_i, v_j], x[v_i, v_k] * w[v_j, v_k])

    # The reduction covers half of K only.
    # expect half_k: written: the reduction does not cover the activation's last dim
    @T.prim_func(private=True, s_tir=True)
    def half_k(x: T.Buffer((4, 64), "float32"), w: T.Buffer((32, 64), "float32"), out: T.Buffer((4, 32), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j, k in T.grid(4, 32, 32):
            with T.sblock("matmul"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                T.reads(x[v_i, v_k], w[v_j, v_k])
                T.writes(out[v_i, v_j])
                with T.init():
                    out[v_i, v_j] = T.float32(0.0)
                out[v_i, v_j] = out[v_i, v_j] + x[v_i, v_k] * w[v_j, v_k]

    # A reduction loop that visits every other k only.
    # expect strided_k: written: block 'matmul': the loops of iter var 'v_k' do not cover its extent once
    @T.prim_func(private=True, s_tir=True)
    def strided_k(x: T.Buffer((4, 64), "float32"), w: T.Buffer((32, 64), "float32"), out: T.Buffer((4, 32), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j, k in T.grid(4, 32, 32):
            with T.sblock("matmul"):
                v_i = T.axis.spatial(4, i)
                v_j = T.axis.spatial(32, j)
                v_k = T.axis.reduce(64, k * 2)
                T.reads(x[v_i, v_k], w[v_j, v_k])
                T.writes(out[v_i, v_j])
                with T.init():
                    out[v_i, v_j] = T.float32(0.0)
                out[v_i, v_j] = out[v_i, v_j] + x[v_i, v_k] * w[v_j, v_k]

    # A predicate that drops part of the domain.
    # expect short_predicate: written: block 'matmul': the loops of iter var 'v_j' do not cover its extent once
    @T.prim_func(private=True, s_tir=True)
    def short_predicate(x: T.Buffer((4, 64), "float32"), w: T.Buffer((32, 64), "float32"), out: T.Buffer((4, 32), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j, k in T.grid(4, 32, 64):
            with T.sblock("matmul"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                T.where(j < 30)
                T.reads(x[v_i, v_k], w[v_j, v_k])
                T.writes(out[v_i, v_j])
                with T.init():
                    out[v_i, v_j] = T.float32(0.0)
                out[v_i, v_j] = out[v_i, v_j] + x[v_i, v_k] * w[v_j, v_k]

    # Scales of groups of 16 (the microkernels take multiples of 32).
    # expect group_16: written: the group size 16 is not a multiple of 32
    @T.prim_func(private=True, s_tir=True)
    def group_16(w: T.Buffer((64, 16), "uint32"), s: T.Buffer((64, 8), "float16"), x: T.Buffer((2, 128), "float16"), out: T.Buffer((2, 64), "float16")):
        T.func_attr({"tirx.noalias": True})
        for i, j, k in T.grid(2, 64, 128):
            with T.sblock("NT_matmul"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                T.reads(x[v_i, v_k], w[v_j, v_k // 8], s[v_j, v_k // 16])
                T.writes(out[v_i, v_j])
                with T.init():
                    out[v_i, v_j] = T.float16(0.0)
                out[v_i, v_j] = out[v_i, v_j] + x[v_i, v_k] * ((T.Cast("float16", T.bitwise_and(T.shift_right(w[v_j, v_k // 8], T.Cast("uint32", v_k % 8 * 4)), T.uint32(15))) - T.float16(7.0)) * s[v_j, v_k // 16])

    # An epilogue that is neither a cast nor an add nor a multiply.
    # expect exp_epilogue: written: epilogue block 'exp' is not a cast, an add or a multiply of the result
    @T.prim_func(private=True, s_tir=True)
    def exp_epilogue(x: T.Buffer((4, 64), "float32"), w: T.Buffer((32, 64), "float32"), out: T.Buffer((4, 32), "float32")):
        T.func_attr({"tirx.noalias": True})
        mm = T.sblock_alloc_buffer((4, 32))
        for i, j, k in T.grid(4, 32, 64):
            with T.sblock("matmul"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                T.reads(x[v_i, v_k], w[v_j, v_k])
                T.writes(mm[v_i, v_j])
                with T.init():
                    mm[v_i, v_j] = T.float32(0.0)
                mm[v_i, v_j] = mm[v_i, v_j] + x[v_i, v_k] * w[v_j, v_k]
        for i, j in T.grid(4, 32):
            with T.sblock("exp"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                T.reads(mm[v_i, v_j])
                T.writes(out[v_i, v_j])
                out[v_i, v_j] = T.exp(mm[v_i, v_j])

    # The result read at another element by the epilogue (a transpose).
    # expect transposed_epilogue: written: epilogue block 'add' does not combine the result with a parameter
    @T.prim_func(private=True, s_tir=True)
    def transposed_epilogue(x: T.Buffer((32, 64), "float32"), w: T.Buffer((32, 64), "float32"), res: T.Buffer((32, 32), "float32"), out: T.Buffer((32, 32), "float32")):
        T.func_attr({"tirx.noalias": True})
        mm = T.sblock_alloc_buffer((32, 32))
        for i, j, k in T.grid(32, 32, 64):
            with T.sblock("matmul"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                T.reads(x[v_i, v_k], w[v_j, v_k])
                T.writes(mm[v_i, v_j])
                with T.init():
                    mm[v_i, v_j] = T.float32(0.0)
                mm[v_i, v_j] = mm[v_i, v_j] + x[v_i, v_k] * w[v_j, v_k]
        for i, j in T.grid(32, 32):
            with T.sblock("add"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                T.reads(mm[v_j, v_i], res[v_i, v_j])
                T.writes(out[v_i, v_j])
                out[v_i, v_j] = mm[v_j, v_i] + res[v_i, v_j]

    # Accumulation in float64.
    # expect float64_sum: written: the reduction's result is float64
    @T.prim_func(private=True, s_tir=True)
    def float64_sum(x: T.Buffer((4, 64), "float64"), w: T.Buffer((32, 64), "float64"), out: T.Buffer((4, 32), "float64")):
        T.func_attr({"tirx.noalias": True})
        for i, j, k in T.grid(4, 32, 64):
            with T.sblock("matmul"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                T.reads(x[v_i, v_k], w[v_j, v_k])
                T.writes(out[v_i, v_j])
                with T.init():
                    out[v_i, v_j] = T.float64(0.0)
                out[v_i, v_j] = out[v_i, v_j] + x[v_i, v_k] * w[v_j, v_k]

    # An elementwise kernel.
    # expect elementwise: written: the kernel has no reduction
    @T.prim_func(private=True, s_tir=True)
    def elementwise(x: T.Buffer((4, 64), "float32"), out: T.Buffer((4, 64), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j in T.grid(4, 64):
            with T.sblock("copy"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                T.reads(x[v_i, v_j])
                T.writes(out[v_i, v_j])
                out[v_i, v_j] = x[v_i, v_j]
