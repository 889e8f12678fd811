# RUN: tir-compute-inline
# MLC-LLM's fused_split_silu_multiply (the 2026 TinyLlama CPU dump): a chain of elementwise
# blocks, all inlined into the last one (a value read twice is recomputed at each read).
# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def fused_split_silu_multiply(lv2: T.Buffer(("batch_size", 1, 11264), "float16"), T_multiply_intermediate_1: T.Buffer((batch_size, 1, 5632), "float16")):
        batch_size = T.int32()
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        T_split_sections_intermediate = T.sblock_alloc_buffer((batch_size, 1, 5632), "float16")
        T_split_sections_intermediate_1 = T.sblock_alloc_buffer((batch_size, 1, 5632), "float16")
        compute = T.sblock_alloc_buffer((batch_size, 1, 5632), "float16")
        T_multiply_intermediate = T.sblock_alloc_buffer((batch_size, 1, 5632), "float16")
        for ax0, ax1, ax2 in T.grid(batch_size, 1, 5632):
            with T.sblock("T_split_sections"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(lv2[v_ax0, v_ax1, v_ax2])
                T.writes(T_split_sections_intermediate[v_ax0, v_ax1, v_ax2])
                T_split_sections_intermediate[v_ax0, v_ax1, v_ax2] = lv2[v_ax0, v_ax1, v_ax2]
        for ax0, ax1, ax2 in T.grid(batch_size, 1, 5632):
            with T.sblock("T_split_sections_1"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(lv2[v_ax0, v_ax1, v_ax2 + 5632])
                T.writes(T_split_sections_intermediate_1[v_ax0, v_ax1, v_ax2])
                T_split_sections_intermediate_1[v_ax0, v_ax1, v_ax2] = lv2[v_ax0, v_ax1, v_ax2 + 5632]
        for i0, i1, i2 in T.grid(batch_size, 1, 5632):
            with T.sblock("compute"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                T.reads(T_split_sections_intermediate[v_i0, v_i1, v_i2])
                T.writes(compute[v_i0, v_i1, v_i2])
                compute[v_i0, v_i1, v_i2] = T.sigmoid(T_split_sections_intermediate[v_i0, v_i1, v_i2])
        for ax0, ax1, ax2 in T.grid(batch_size, 1, 5632):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_split_sections_intermediate[v_ax0, v_ax1, v_ax2], compute[v_ax0, v_ax1, v_ax2])
                T.writes(T_multiply_intermediate[v_ax0, v_ax1, v_ax2])
                T_multiply_intermediate[v_ax0, v_ax1, v_ax2] = T_split_sections_intermediate[v_ax0, v_ax1, v_ax2] * compute[v_ax0, v_ax1, v_ax2]
        for ax0, ax1, ax2 in T.grid(batch_size, 1, 5632):
            with T.sblock("T_multiply1"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_multiply_intermediate[v_ax0, v_ax1, v_ax2], T_split_sections_intermediate_1[v_ax0, v_ax1, v_ax2])
                T.writes(T_multiply_intermediate_1[v_ax0, v_ax1, v_ax2])
                T_multiply_intermediate_1[v_ax0, v_ax1, v_ax2] = T_multiply_intermediate[v_ax0, v_ax1, v_ax2] * T_split_sections_intermediate_1[v_ax0, v_ax1, v_ax2]
