# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def rms_norm(input_embeds: T.Buffer(("batch_size", 1, 2048), "float16"), model_layers_0_input_layernorm_weight7: T.Buffer((2048,), "float16"), T_cast: T.Buffer((batch_size, 1, 2048), "float16")):
        batch_size = T.int32()
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        T_multiply_red = T.sblock_alloc_buffer((batch_size, 1))
        for ax0, ax1, k2 in T.grid(batch_size, 1, 2048):
            with T.sblock("T_multiply_red"):
                v_ax0, v_ax1, v_k2 = T.axis.remap("SSR", [ax0, ax1, k2])
                T.reads(input_embeds[v_ax0, v_ax1, v_k2])
                T.writes(T_multiply_red[v_ax0, v_ax1])
                with T.init():
                    T_multiply_red[v_ax0, v_ax1] = T.float32(0.0)
                T_multiply_red[v_ax0, v_ax1] = T_multiply_red[v_ax0, v_ax1] + T.Cast("float32", input_embeds[v_ax0, v_ax1, v_k2]) * T.Cast("float32", input_embeds[v_ax0, v_ax1, v_k2])
        for ax0, ax1, ax2 in T.grid(batch_size, 1, 2048):
            with T.sblock("T_cast_2"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_multiply_red[v_ax0, v_ax1], input_embeds[v_ax0, v_ax1, v_ax2], model_layers_0_input_layernorm_weight7[v_ax2])
                T.writes(T_cast[v_ax0, v_ax1, v_ax2])
                T_cast[v_ax0, v_ax1, v_ax2] = T.Cast("float16", T.rsqrt(T_multiply_red[v_ax0, v_ax1] / T.float32(2048.0) + T.float32(1.0000000000000001e-05)) * T.Cast("float32", input_embeds[v_ax0, v_ax1, v_ax2]) * T.Cast("float32", model_layers_0_input_layernorm_weight7[v_ax2]))
