# RUN: tir-compute-inline
# A 4-bit matmul with an add epilogue (fused_dequantize2_fused_NT_matmul1_add of the 2026
# TinyLlama CPU dump): `compute` unpacks, `dequantize` scales, `NT_matmul` reduces, `T_add` adds.
# The unpacking and the scaling are inlined into the reduction; the reduction is never inlined,
# so its buffer and `T_add` stay.
# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def fused_dequantize2_fused_NT_matmul1_add(model_layers_0_self_attn_o_proj_q_weight7: T.Buffer((2048, 256), "uint32"), model_layers_0_self_attn_o_proj_q_scale7: T.Buffer((2048, 64), "float16"), reshape443: T.Buffer(("batch_size", 1, 2048), "float16"), input_embeds: T.Buffer((batch_size, 1, 2048), "float16"), T_add_intermediate_intermediate: T.Buffer((batch_size, 1, 2048), "float16")):
        batch_size = T.int32()
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        compute = T.sblock_alloc_buffer((2048, 2048), "float16")
        dequantize_intermediate = T.sblock_alloc_buffer((2048, 2048), "float16")
        NT_matmul_intermediate = T.sblock_alloc_buffer((batch_size, 1, 2048), "float16")
        for i0, i1 in T.grid(2048, 2048):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(model_layers_0_self_attn_o_proj_q_weight7[v_i0, v_i1 // 8])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.Cast("float16", T.bitwise_and(T.shift_right(model_layers_0_self_attn_o_proj_q_weight7[v_i0, v_i1 // 8], T.Cast("uint32", v_i1 % 8 * 4)), T.uint32(15)))
        for i0, i1 in T.grid(2048, 2048):
            with T.sblock("dequantize"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(compute[v_i0, v_i1], model_layers_0_self_attn_o_proj_q_scale7[v_i0, v_i1 // 32])
                T.writes(dequantize_intermediate[v_i0, v_i1])
                dequantize_intermediate[v_i0, v_i1] = (compute[v_i0, v_i1] - T.float16(7.0)) * model_layers_0_self_attn_o_proj_q_scale7[v_i0, v_i1 // 32]
        for i0, i1, i2, k in T.grid(batch_size, 1, 2048, 2048):
            with T.sblock("NT_matmul"):
                v_i0, v_i1, v_i2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])
                T.reads(reshape443[v_i0, v_i1, v_k], dequantize_intermediate[v_i2, v_k])
                T.writes(NT_matmul_intermediate[v_i0, v_i1, v_i2])
                with T.init():
                    NT_matmul_intermediate[v_i0, v_i1, v_i2] = T.float16(0.0)
                NT_matmul_intermediate[v_i0, v_i1, v_i2] = NT_matmul_intermediate[v_i0, v_i1, v_i2] + reshape443[v_i0, v_i1, v_k] * dequantize_intermediate[v_i2, v_k]
        for ax0, ax1, ax2 in T.grid(batch_size, 1, 2048):
            with T.sblock("T_add"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(NT_matmul_intermediate[v_ax0, v_ax1, v_ax2], input_embeds[v_ax0, v_ax1, v_ax2])
                T.writes(T_add_intermediate_intermediate[v_ax0, v_ax1, v_ax2])
                T_add_intermediate_intermediate[v_ax0, v_ax1, v_ax2] = NT_matmul_intermediate[v_ax0, v_ax1, v_ax2] + input_embeds[v_ax0, v_ax1, v_ax2]
