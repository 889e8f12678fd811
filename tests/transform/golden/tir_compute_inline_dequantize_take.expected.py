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
        for ax0, ax1 in T.grid(seq_len, 2048):
            with T.sblock("T_take"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(input_ids[v_ax0], model_embed_tokens_q_weight[input_ids[v_ax0], v_ax1 // 8], model_embed_tokens_q_scale[input_ids[v_ax0], v_ax1 // 32])
                T.writes(T_take_intermediate[v_ax0, v_ax1])
                T_take_intermediate[v_ax0, v_ax1] = (T.Cast("float16", T.bitwise_and(T.shift_right(model_embed_tokens_q_weight[input_ids[v_ax0], v_ax1 // 8], T.Cast("uint32", v_ax1 % 8 * 4)), T.uint32(15))) - T.float16(7.0)) * model_embed_tokens_q_scale[input_ids[v_ax0], v_ax1 // 32]
