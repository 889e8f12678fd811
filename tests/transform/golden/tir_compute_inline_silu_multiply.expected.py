# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def fused_split_silu_multiply(lv2: T.Buffer(("batch_size", 1, 11264), "float16"), T_multiply_intermediate_1: T.Buffer((batch_size, 1, 5632), "float16")):
        batch_size = T.int32()
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, ax2 in T.grid(batch_size, 1, 5632):
            with T.sblock("T_multiply1"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(lv2[v_ax0, v_ax1, v_ax2], lv2[v_ax0, v_ax1, v_ax2 + 5632])
                T.writes(T_multiply_intermediate_1[v_ax0, v_ax1, v_ax2])
                T_multiply_intermediate_1[v_ax0, v_ax1, v_ax2] = lv2[v_ax0, v_ax1, v_ax2] * T.sigmoid(lv2[v_ax0, v_ax1, v_ax2]) * lv2[v_ax0, v_ax1, v_ax2 + 5632]
