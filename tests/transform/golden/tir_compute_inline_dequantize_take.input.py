# RUN: tir-compute-inline
# MLC-LLM's embedding lookup on 4-bit weights (fused_dequantize_take1 of the 2026 TinyLlama CPU
# dump): `compute` unpacks every row of the table, `T_take` reads seq_len of them. `compute` is
# inlined into `T_take`, which then unpacks only the rows it reads.
# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def fused_dequantize_take1(model_embed_tokens_q_weight: T.Buffer(("vocab_size", 256), "uint32"), model_embed_tokens_q_scale: T.Buffer((vocab_size, 64), "float16"), input_ids: T.Buffer(("seq_len",), "int32"), T_take_intermediate: T.Buffer((seq_len, 2048), "float16")):
        vocab_size = T.int32()
        seq_len = T.int32()
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        compute = T.sblock_alloc_buffer((vocab_size, 2048), "float16")
        for i0, i1 in T.grid(vocab_size, 2048):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(model_embed_tokens_q_weight[v_i0, v_i1 // 8])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.Cast("float16", T.bitwise_and(T.shift_right(model_embed_tokens_q_weight[v_i0, v_i1 // 8], T.Cast("uint32", v_i1 % 8 * 4)), T.uint32(15)))
        for ax0, ax1 in T.grid(seq_len, 2048):
            with T.sblock("T_take"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(input_ids[v_ax0], compute[input_ids[v_ax0], v_ax1], model_embed_tokens_q_scale[input_ids[v_ax0], v_ax1 // 32])
                T.writes(T_take_intermediate[v_ax0, v_ax1])
                T_take_intermediate[v_ax0, v_ax1] = (compute[input_ids[v_ax0], v_ax1] - T.float16(7.0)) * model_embed_tokens_q_scale[input_ids[v_ax0], v_ax1 // 32]
