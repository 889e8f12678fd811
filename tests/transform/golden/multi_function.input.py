# RUN: pipeline-parallel-rewrite
# Two marked functions (prefill and decode, MLC style) in a lowered module; the TIR kernels
# pass through byte for byte.
# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def attention(var_q: T.handle, var_k: T.handle, var_v: T.handle, var_out: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        out = T.match_buffer(var_out, (T.int64(1), n, T.int64(64)), "float16")
        # with T.block("root"):
        for i, j in T.grid(n, T.int64(64)):
            with T.block("attention"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                out[T.int64(0), v_i, v_j] = T.float16(0)

    @T.prim_func(private=True)
    def fused_decode_NT_matmul(var_A: T.handle, W: T.handle, S: T.handle, var_out: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        A = T.match_buffer(var_A, (T.int64(1), n, T.int64(64)), "float16")
        out = T.match_buffer(var_out, (T.int64(1), n, T.int64(64)), "float16")
        # with T.block("root"):
        for i, j in T.grid(n, T.int64(64)):
            with T.block("fused_decode_NT_matmul"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                out[T.int64(0), v_i, v_j] = T.float16(0)

    @T.prim_func(private=True)
    def fused_decode_NT_matmul_add(var_A: T.handle, W: T.handle, S: T.handle, var_R: T.handle, var_out: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        A = T.match_buffer(var_A, (T.int64(1), n, T.int64(64)), "float16")
        out = T.match_buffer(var_out, (T.int64(1), n, T.int64(64)), "float16")
        # with T.block("root"):
        for i, j in T.grid(n, T.int64(64)):
            with T.block("fused_decode_NT_matmul_add"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                out[T.int64(0), v_i, v_j] = T.float16(0)

    @T.prim_func(private=True)
    def fused_decode_NT_matmul_add1(var_A: T.handle, W: T.handle, S: T.handle, var_R: T.handle, var_out: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        A = T.match_buffer(var_A, (T.int64(1), n, T.int64(11008)), "float16")
        out = T.match_buffer(var_out, (T.int64(1), n, T.int64(64)), "float16")
        # with T.block("root"):
        for i, j in T.grid(n, T.int64(64)):
            with T.block("fused_decode_NT_matmul_add1"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                out[T.int64(0), v_i, v_j] = T.float16(0)

    @T.prim_func(private=True)
    def fused_decode_NT_matmul_multiply(var_A: T.handle, W: T.handle, S: T.handle, var_G: T.handle, var_out: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        A = T.match_buffer(var_A, (T.int64(1), n, T.int64(64)), "float16")
        out = T.match_buffer(var_out, (T.int64(1), n, T.int64(11008)), "float16")
        # with T.block("root"):
        for i, j in T.grid(n, T.int64(11008)):
            with T.block("fused_decode_NT_matmul_multiply"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                out[T.int64(0), v_i, v_j] = T.float16(0)

    @T.prim_func(private=True)
    def fused_decode_NT_matmul_silu(var_A: T.handle, W: T.handle, S: T.handle, var_out: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        A = T.match_buffer(var_A, (T.int64(1), n, T.int64(64)), "float16")
        out = T.match_buffer(var_out, (T.int64(1), n, T.int64(11008)), "float16")
        # with T.block("root"):
        for i, j in T.grid(n, T.int64(11008)):
            with T.block("fused_decode_NT_matmul_silu"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                out[T.int64(0), v_i, v_j] = T.float16(0)

    @T.prim_func(private=True)
    def lm_head(var_A: T.handle, W: T.handle, S: T.handle, var_out: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        A = T.match_buffer(var_A, (T.int64(1), n, T.int64(64)), "float16")
        # with T.block("root"):
        for i, j in T.grid(n, T.int64(32000)):
            with T.block("lm_head"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                A[T.int64(0), v_i, v_j] = T.float16(0)

    @T.prim_func(private=True)
    def rms_norm(var_A: T.handle, B: T.handle, var_out: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        A = T.match_buffer(var_A, (T.int64(1), n, T.int64(64)), "float16")
        out = T.match_buffer(var_out, (T.int64(1), n, T.int64(64)), "float16")
        # with T.block("root"):
        for i, j in T.grid(n, T.int64(64)):
            with T.block("rms_norm"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                out[T.int64(0), v_i, v_j] = T.float16(0)

    @T.prim_func(private=True)
    def rotary_embedding(var_A: T.handle, var_out: T.handle, m: T.int64):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        A = T.match_buffer(var_A, (T.int64(1), n, T.int64(64)), "float16")
        out = T.match_buffer(var_out, (T.int64(1), n, T.int64(64)), "float16")
        # with T.block("root"):
        for i, j in T.grid(n, T.int64(64)):
            with T.block("rotary_embedding"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                out[T.int64(0), v_i, v_j] = T.float16(0)

    @T.prim_func(private=True)
    def take_decode(W: T.handle, S: T.handle, var_ids: T.handle, var_out: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        out = T.match_buffer(var_out, (T.int64(1), n, T.int64(64)), "float16")
        # with T.block("root"):
        for i, j in T.grid(n, T.int64(64)):
            with T.block("take_decode"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                out[T.int64(0), v_i, v_j] = T.float16(0)

    @R.function
    def decode(input_ids: R.Tensor((1, 1), dtype="int32"), packed_params: R.Tuple(R.Tensor((32000, 8), dtype="uint32"), R.Tensor((32000, 2), dtype="float16"), R.Tensor((64,), dtype="float16"), R.Tensor((8, 64), dtype="uint32"), R.Tensor((2, 64), dtype="float16"), R.Tensor((8, 64), dtype="uint32"), R.Tensor((2, 64), dtype="float16"), R.Tensor((8, 64), dtype="uint32"), R.Tensor((2, 64), dtype="float16"), R.Tensor((8, 64), dtype="uint32"), R.Tensor((2, 64), dtype="float16"), R.Tensor((64,), dtype="float16"), R.Tensor((8, 11008), dtype="uint32"), R.Tensor((2, 11008), dtype="float16"), R.Tensor((8, 11008), dtype="uint32"), R.Tensor((2, 11008), dtype="float16"), R.Tensor((1376, 64), dtype="uint32"), R.Tensor((344, 64), dtype="float16"), R.Tensor((64,), dtype="float16"), R.Tensor((8, 64), dtype="uint32"), R.Tensor((2, 64), dtype="float16"), R.Tensor((8, 64), dtype="uint32"), R.Tensor((2, 64), dtype="float16"), R.Tensor((8, 64), dtype="uint32"), R.Tensor((2, 64), dtype="float16"), R.Tensor((8, 64), dtype="uint32"), R.Tensor((2, 64), dtype="float16"), R.Tensor((64,), dtype="float16"), R.Tensor((8, 11008), dtype="uint32"), R.Tensor((2, 11008), dtype="float16"), R.Tensor((8, 11008), dtype="uint32"), R.Tensor((2, 11008), dtype="float16"), R.Tensor((1376, 64), dtype="uint32"), R.Tensor((344, 64), dtype="float16"), R.Tensor((64,), dtype="float16"), R.Tensor((8, 32000), dtype="uint32"), R.Tensor((2, 32000), dtype="float16"))) -> R.Tensor((1, 1, 32000), dtype="float16"):
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 2})
        cls = Module
        with R.dataflow():
            lv0: R.Tensor((32000, 8), dtype="uint32") = packed_params[0]
            lv1: R.Tensor((32000, 2), dtype="float16") = packed_params[1]
            lv2 = R.call_tir(cls.take_decode, (lv0, lv1, input_ids), out_sinfo=R.Tensor((1, 1, 64), dtype="float16"))
            lv3: R.Tensor((64,), dtype="float16") = packed_params[2]
            lv4 = R.call_tir(cls.rms_norm, (lv2, lv3), out_sinfo=R.Tensor((1, 1, 64), dtype="float16"))
            lv5: R.Tensor((8, 64), dtype="uint32") = packed_params[3]
            lv6: R.Tensor((2, 64), dtype="float16") = packed_params[4]
            lv7 = R.call_tir(cls.fused_decode_NT_matmul, (lv4, lv5, lv6), out_sinfo=R.Tensor((1, 1, 64), dtype="float16"))
            lv8: R.Tensor((8, 64), dtype="uint32") = packed_params[5]
            lv9: R.Tensor((2, 64), dtype="float16") = packed_params[6]
            lv10 = R.call_tir(cls.fused_decode_NT_matmul, (lv4, lv8, lv9), out_sinfo=R.Tensor((1, 1, 64), dtype="float16"))
            lv11: R.Tensor((8, 64), dtype="uint32") = packed_params[7]
            lv12: R.Tensor((2, 64), dtype="float16") = packed_params[8]
            lv13 = R.call_tir(cls.fused_decode_NT_matmul, (lv4, lv11, lv12), out_sinfo=R.Tensor((1, 1, 64), dtype="float16"))
            lv14 = R.call_tir(cls.rotary_embedding, (lv7,), out_sinfo=R.Tensor((1, 1, 64), dtype="float16"), tir_vars=R.shape([1]))
            lv15 = R.call_tir(cls.rotary_embedding, (lv10,), out_sinfo=R.Tensor((1, 1, 64), dtype="float16"), tir_vars=R.shape([1]))
            lv16 = R.call_tir(cls.attention, (lv14, lv15, lv13), out_sinfo=R.Tensor((1, 1, 64), dtype="float16"))
            lv17: R.Tensor((8, 64), dtype="uint32") = packed_params[9]
            lv18: R.Tensor((2, 64), dtype="float16") = packed_params[10]
            lv19 = R.call_tir(cls.fused_decode_NT_matmul_add, (lv16, lv17, lv18, lv2), out_sinfo=R.Tensor((1, 1, 64), dtype="float16"))
            lv20: R.Tensor((64,), dtype="float16") = packed_params[11]
            lv21 = R.call_tir(cls.rms_norm, (lv19, lv20), out_sinfo=R.Tensor((1, 1, 64), dtype="float16"))
            lv22: R.Tensor((8, 11008), dtype="uint32") = packed_params[12]
            lv23: R.Tensor((2, 11008), dtype="float16") = packed_params[13]
            lv24 = R.call_tir(cls.fused_decode_NT_matmul_silu, (lv21, lv22, lv23), out_sinfo=R.Tensor((1, 1, 11008), dtype="float16"))
            lv25: R.Tensor((8, 11008), dtype="uint32") = packed_params[14]
            lv26: R.Tensor((2, 11008), dtype="float16") = packed_params[15]
            lv27 = R.call_tir(cls.fused_decode_NT_matmul_multiply, (lv21, lv25, lv26, lv24), out_sinfo=R.Tensor((1, 1, 11008), dtype="float16"))
            lv28: R.Tensor((1376, 64), dtype="uint32") = packed_params[16]
            lv29: R.Tensor((344, 64), dtype="float16") = packed_params[17]
            lv30 = R.call_tir(cls.fused_decode_NT_matmul_add1, (lv27, lv28, lv29, lv19), out_sinfo=R.Tensor((1, 1, 64), dtype="float16"))
            lv31: R.Tensor((1, 1, 64), dtype="float16") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", lv30, sinfo_args=(R.Tensor((1, 1, 64), dtype="float16"),))
            lv32: R.Tensor((64,), dtype="float16") = packed_params[18]
            lv33 = R.call_tir(cls.rms_norm, (lv31, lv32), out_sinfo=R.Tensor((1, 1, 64), dtype="float16"))
            lv34: R.Tensor((8, 64), dtype="uint32") = packed_params[19]
            lv35: R.Tensor((2, 64), dtype="float16") = packed_params[20]
            lv36 = R.call_tir(cls.fused_decode_NT_matmul, (lv33, lv34, lv35), out_sinfo=R.Tensor((1, 1, 64), dtype="float16"))
            lv37: R.Tensor((8, 64), dtype="uint32") = packed_params[21]
            lv38: R.Tensor((2, 64), dtype="float16") = packed_params[22]
            lv39 = R.call_tir(cls.fused_decode_NT_matmul, (lv33, lv37, lv38), out_sinfo=R.Tensor((1, 1, 64), dtype="float16"))
            lv40: R.Tensor((8, 64), dtype="uint32") = packed_params[23]
            lv41: R.Tensor((2, 64), dtype="float16") = packed_params[24]
            lv42 = R.call_tir(cls.fused_decode_NT_matmul, (lv33, lv40, lv41), out_sinfo=R.Tensor((1, 1, 64), dtype="float16"))
            lv43 = R.call_tir(cls.rotary_embedding, (lv36,), out_sinfo=R.Tensor((1, 1, 64), dtype="float16"), tir_vars=R.shape([1]))
            lv44 = R.call_tir(cls.rotary_embedding, (lv39,), out_sinfo=R.Tensor((1, 1, 64), dtype="float16"), tir_vars=R.shape([1]))
            lv45 = R.call_tir(cls.attention, (lv43, lv44, lv42), out_sinfo=R.Tensor((1, 1, 64), dtype="float16"))
            lv46: R.Tensor((8, 64), dtype="uint32") = packed_params[25]
            lv47: R.Tensor((2, 64), dtype="float16") = packed_params[26]
            lv48 = R.call_tir(cls.fused_decode_NT_matmul_add, (lv45, lv46, lv47, lv31), out_sinfo=R.Tensor((1, 1, 64), dtype="float16"))
            lv49: R.Tensor((64,), dtype="float16") = packed_params[27]
            lv50 = R.call_tir(cls.rms_norm, (lv48, lv49), out_sinfo=R.Tensor((1, 1, 64), dtype="float16"))
            lv51: R.Tensor((8, 11008), dtype="uint32") = packed_params[28]
            lv52: R.Tensor((2, 11008), dtype="float16") = packed_params[29]
            lv53 = R.call_tir(cls.fused_decode_NT_matmul_silu, (lv50, lv51, lv52), out_sinfo=R.Tensor((1, 1, 11008), dtype="float16"))
            lv54: R.Tensor((8, 11008), dtype="uint32") = packed_params[30]
            lv55: R.Tensor((2, 11008), dtype="float16") = packed_params[31]
            lv56 = R.call_tir(cls.fused_decode_NT_matmul_multiply, (lv50, lv54, lv55, lv53), out_sinfo=R.Tensor((1, 1, 11008), dtype="float16"))
            lv57: R.Tensor((1376, 64), dtype="uint32") = packed_params[32]
            lv58: R.Tensor((344, 64), dtype="float16") = packed_params[33]
            lv59 = R.call_tir(cls.fused_decode_NT_matmul_add1, (lv56, lv57, lv58, lv48), out_sinfo=R.Tensor((1, 1, 64), dtype="float16"))
            lv60: R.Tensor((64,), dtype="float16") = packed_params[34]
            lv61 = R.call_tir(cls.rms_norm, (lv59, lv60), out_sinfo=R.Tensor((1, 1, 64), dtype="float16"))
            lv62: R.Tensor((8, 32000), dtype="uint32") = packed_params[35]
            lv63: R.Tensor((2, 32000), dtype="float16") = packed_params[36]
            gv64 = R.call_tir(cls.lm_head, (lv61, lv62, lv63), out_sinfo=R.Tensor((1, 1, 32000), dtype="float16"))
            R.output(gv64)
        return gv64

    @R.function
    def prefill(input_ids: R.Tensor((1, "n"), dtype="int32"), packed_params: R.Tuple(R.Tensor((32000, 8), dtype="uint32"), R.Tensor((32000, 2), dtype="float16"), R.Tensor((64,), dtype="float16"), R.Tensor((8, 64), dtype="uint32"), R.Tensor((2, 64), dtype="float16"), R.Tensor((8, 64), dtype="uint32"), R.Tensor((2, 64), dtype="float16"), R.Tensor((8, 64), dtype="uint32"), R.Tensor((2, 64), dtype="float16"), R.Tensor((8, 64), dtype="uint32"), R.Tensor((2, 64), dtype="float16"), R.Tensor((64,), dtype="float16"), R.Tensor((8, 11008), dtype="uint32"), R.Tensor((2, 11008), dtype="float16"), R.Tensor((8, 11008), dtype="uint32"), R.Tensor((2, 11008), dtype="float16"), R.Tensor((1376, 64), dtype="uint32"), R.Tensor((344, 64), dtype="float16"), R.Tensor((64,), dtype="float16"), R.Tensor((8, 64), dtype="uint32"), R.Tensor((2, 64), dtype="float16"), R.Tensor((8, 64), dtype="uint32"), R.Tensor((2, 64), dtype="float16"), R.Tensor((8, 64), dtype="uint32"), R.Tensor((2, 64), dtype="float16"), R.Tensor((8, 64), dtype="uint32"), R.Tensor((2, 64), dtype="float16"), R.Tensor((64,), dtype="float16"), R.Tensor((8, 11008), dtype="uint32"), R.Tensor((2, 11008), dtype="float16"), R.Tensor((8, 11008), dtype="uint32"), R.Tensor((2, 11008), dtype="float16"), R.Tensor((1376, 64), dtype="uint32"), R.Tensor((344, 64), dtype="float16"), R.Tensor((64,), dtype="float16"), R.Tensor((8, 32000), dtype="uint32"), R.Tensor((2, 32000), dtype="float16"))) -> R.Tensor((1, "n", 32000), dtype="float16"):
        n = T.int64()
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 2})
        cls = Module
        with R.dataflow():
            lv0: R.Tensor((32000, 8), dtype="uint32") = packed_params[0]
            lv1: R.Tensor((32000, 2), dtype="float16") = packed_params[1]
            lv2 = R.call_tir(cls.take_decode, (lv0, lv1, input_ids), out_sinfo=R.Tensor((1, n, 64), dtype="float16"))
            lv3: R.Tensor((64,), dtype="float16") = packed_params[2]
            lv4 = R.call_tir(cls.rms_norm, (lv2, lv3), out_sinfo=R.Tensor((1, n, 64), dtype="float16"))
            lv5: R.Tensor((8, 64), dtype="uint32") = packed_params[3]
            lv6: R.Tensor((2, 64), dtype="float16") = packed_params[4]
            lv7 = R.call_tir(cls.fused_decode_NT_matmul, (lv4, lv5, lv6), out_sinfo=R.Tensor((1, n, 64), dtype="float16"))
            lv8: R.Tensor((8, 64), dtype="uint32") = packed_params[5]
            lv9: R.Tensor((2, 64), dtype="float16") = packed_params[6]
            lv10 = R.call_tir(cls.fused_decode_NT_matmul, (lv4, lv8, lv9), out_sinfo=R.Tensor((1, n, 64), dtype="float16"))
            lv11: R.Tensor((8, 64), dtype="uint32") = packed_params[7]
            lv12: R.Tensor((2, 64), dtype="float16") = packed_params[8]
            lv13 = R.call_tir(cls.fused_decode_NT_matmul, (lv4, lv11, lv12), out_sinfo=R.Tensor((1, n, 64), dtype="float16"))
            lv14 = R.call_tir(cls.rotary_embedding, (lv7,), out_sinfo=R.Tensor((1, n, 64), dtype="float16"), tir_vars=R.shape([n]))
            lv15 = R.call_tir(cls.rotary_embedding, (lv10,), out_sinfo=R.Tensor((1, n, 64), dtype="float16"), tir_vars=R.shape([n]))
            lv16 = R.call_tir(cls.attention, (lv14, lv15, lv13), out_sinfo=R.Tensor((1, n, 64), dtype="float16"))
            lv17: R.Tensor((8, 64), dtype="uint32") = packed_params[9]
            lv18: R.Tensor((2, 64), dtype="float16") = packed_params[10]
            lv19 = R.call_tir(cls.fused_decode_NT_matmul_add, (lv16, lv17, lv18, lv2), out_sinfo=R.Tensor((1, n, 64), dtype="float16"))
            lv20: R.Tensor((64,), dtype="float16") = packed_params[11]
            lv21 = R.call_tir(cls.rms_norm, (lv19, lv20), out_sinfo=R.Tensor((1, n, 64), dtype="float16"))
            lv22: R.Tensor((8, 11008), dtype="uint32") = packed_params[12]
            lv23: R.Tensor((2, 11008), dtype="float16") = packed_params[13]
            lv24 = R.call_tir(cls.fused_decode_NT_matmul_silu, (lv21, lv22, lv23), out_sinfo=R.Tensor((1, n, 11008), dtype="float16"))
            lv25: R.Tensor((8, 11008), dtype="uint32") = packed_params[14]
            lv26: R.Tensor((2, 11008), dtype="float16") = packed_params[15]
            lv27 = R.call_tir(cls.fused_decode_NT_matmul_multiply, (lv21, lv25, lv26, lv24), out_sinfo=R.Tensor((1, n, 11008), dtype="float16"))
            lv28: R.Tensor((1376, 64), dtype="uint32") = packed_params[16]
            lv29: R.Tensor((344, 64), dtype="float16") = packed_params[17]
            lv30 = R.call_tir(cls.fused_decode_NT_matmul_add1, (lv27, lv28, lv29, lv19), out_sinfo=R.Tensor((1, n, 64), dtype="float16"))
            lv31: R.Tensor((1, n, 64), dtype="float16") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", lv30, sinfo_args=(R.Tensor((1, n, 64), dtype="float16"),))
            lv32: R.Tensor((64,), dtype="float16") = packed_params[18]
            lv33 = R.call_tir(cls.rms_norm, (lv31, lv32), out_sinfo=R.Tensor((1, n, 64), dtype="float16"))
            lv34: R.Tensor((8, 64), dtype="uint32") = packed_params[19]
            lv35: R.Tensor((2, 64), dtype="float16") = packed_params[20]
            lv36 = R.call_tir(cls.fused_decode_NT_matmul, (lv33, lv34, lv35), out_sinfo=R.Tensor((1, n, 64), dtype="float16"))
            lv37: R.Tensor((8, 64), dtype="uint32") = packed_params[21]
            lv38: R.Tensor((2, 64), dtype="float16") = packed_params[22]
            lv39 = R.call_tir(cls.fused_decode_NT_matmul, (lv33, lv37, lv38), out_sinfo=R.Tensor((1, n, 64), dtype="float16"))
            lv40: R.Tensor((8, 64), dtype="uint32") = packed_params[23]
            lv41: R.Tensor((2, 64), dtype="float16") = packed_params[24]
            lv42 = R.call_tir(cls.fused_decode_NT_matmul, (lv33, lv40, lv41), out_sinfo=R.Tensor((1, n, 64), dtype="float16"))
            lv43 = R.call_tir(cls.rotary_embedding, (lv36,), out_sinfo=R.Tensor((1, n, 64), dtype="float16"), tir_vars=R.shape([n]))
            lv44 = R.call_tir(cls.rotary_embedding, (lv39,), out_sinfo=R.Tensor((1, n, 64), dtype="float16"), tir_vars=R.shape([n]))
            lv45 = R.call_tir(cls.attention, (lv43, lv44, lv42), out_sinfo=R.Tensor((1, n, 64), dtype="float16"))
            lv46: R.Tensor((8, 64), dtype="uint32") = packed_params[25]
            lv47: R.Tensor((2, 64), dtype="float16") = packed_params[26]
            lv48 = R.call_tir(cls.fused_decode_NT_matmul_add, (lv45, lv46, lv47, lv31), out_sinfo=R.Tensor((1, n, 64), dtype="float16"))
            lv49: R.Tensor((64,), dtype="float16") = packed_params[27]
            lv50 = R.call_tir(cls.rms_norm, (lv48, lv49), out_sinfo=R.Tensor((1, n, 64), dtype="float16"))
            lv51: R.Tensor((8, 11008), dtype="uint32") = packed_params[28]
            lv52: R.Tensor((2, 11008), dtype="float16") = packed_params[29]
            lv53 = R.call_tir(cls.fused_decode_NT_matmul_silu, (lv50, lv51, lv52), out_sinfo=R.Tensor((1, n, 11008), dtype="float16"))
            lv54: R.Tensor((8, 11008), dtype="uint32") = packed_params[30]
            lv55: R.Tensor((2, 11008), dtype="float16") = packed_params[31]
            lv56 = R.call_tir(cls.fused_decode_NT_matmul_multiply, (lv50, lv54, lv55, lv53), out_sinfo=R.Tensor((1, n, 11008), dtype="float16"))
            lv57: R.Tensor((1376, 64), dtype="uint32") = packed_params[32]
            lv58: R.Tensor((344, 64), dtype="float16") = packed_params[33]
            lv59 = R.call_tir(cls.fused_decode_NT_matmul_add1, (lv56, lv57, lv58, lv48), out_sinfo=R.Tensor((1, n, 64), dtype="float16"))
            lv60: R.Tensor((64,), dtype="float16") = packed_params[34]
            lv61 = R.call_tir(cls.rms_norm, (lv59, lv60), out_sinfo=R.Tensor((1, n, 64), dtype="float16"))
            lv62: R.Tensor((8, 32000), dtype="uint32") = packed_params[35]
            lv63: R.Tensor((2, 32000), dtype="float16") = packed_params[36]
            gv64 = R.call_tir(cls.lm_head, (lv61, lv62, lv63), out_sinfo=R.Tensor((1, n, 32000), dtype="float16"))
            R.output(gv64)
        return gv64
