# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def fused_dequantize2_fused_NT_matmul1_add(model_layers_0_self_attn_o_proj_q_weight7: T.Buffer((2048, 256), "uint32"), model_layers_0_self_attn_o_proj_q_scale7: T.Buffer((2048, 64), "float16"), reshape443: T.Buffer(("batch_size", 1, 2048), "float16"), input_embeds: T.Buffer((batch_size, 1, 2048), "float16"), T_add_intermediate_intermediate: T.Buffer((batch_size, 1, 2048), "float16")):
        batch_size = T.int32()
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        NT_matmul_intermediate = T.sblock_alloc_buffer((batch_size, 1, 2048), "float16")
        for i0, i1, i2, k in T.grid(batch_size, 1, 2048, 2048):
            with T.sblock("NT_matmul"):
                v_i0, v_i1, v_i2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])
                T.reads(reshape443[v_i0, v_i1, v_k], model_layers_0_self_attn_o_proj_q_weight7[v_i2, v_k // 8], model_layers_0_self_attn_o_proj_q_scale7[v_i2, v_k // 32])
                T.writes(NT_matmul_intermediate[v_i0, v_i1, v_i2])
                with T.init():
                    NT_matmul_intermediate[v_i0, v_i1, v_i2] = T.float16(0.0)
                NT_matmul_intermediate[v_i0, v_i1, v_i2] = NT_matmul_intermediate[v_i0, v_i1, v_i2] + reshape443[v_i0, v_i1, v_k] * ((T.Cast("float16", T.bitwise_and(T.shift_right(model_layers_0_self_attn_o_proj_q_weight7[v_i2, v_k // 8], T.Cast("uint32", v_k % 8 * 4)), T.uint32(15))) - T.float16(7.0)) * model_layers_0_self_attn_o_proj_q_scale7[v_i2, v_k // 32])
        for ax0, ax1, ax2 in T.grid(batch_size, 1, 2048):
            with T.sblock("T_add"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(NT_matmul_intermediate[v_ax0, v_ax1, v_ax2], input_embeds[v_ax0, v_ax1, v_ax2])
                T.writes(T_add_intermediate_intermediate[v_ax0, v_ax1, v_ax2])
                T_add_intermediate_intermediate[v_ax0, v_ax1, v_ax2] = NT_matmul_intermediate[v_ax0, v_ax1, v_ax2] + input_embeds[v_ax0, v_ax1, v_ax2]
