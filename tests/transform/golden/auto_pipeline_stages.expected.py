@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 16), dtype="float32"), packed_params: R.Tuple(R.Tensor((16, 16), dtype="float32"), R.Tensor((16, 16), dtype="float32"))) -> R.Tensor((1, 16), dtype="float32"):
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 2})
        with R.dataflow():
            m: R.Tensor((1, 16), dtype="float32") = R.add(x, x)
            w0: R.Tensor((16, 16), dtype="float32") = packed_params[0]
            h0: R.Tensor((1, 16), dtype="float32") = R.matmul(m, w0)
            stage1_in: R.Tuple(R.Tensor((1, 16), dtype="float32"), R.Tensor((1, 16), dtype="float32")) = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", m, h0, sinfo_args=(R.Tuple(R.Tensor((1, 16), dtype="float32"), R.Tensor((1, 16), dtype="float32")),))
            m_s1: R.Tensor((1, 16), dtype="float32") = stage1_in[0]
            h0_s1: R.Tensor((1, 16), dtype="float32") = stage1_in[1]
            w1: R.Tensor((16, 16), dtype="float32") = packed_params[1]
            h1: R.Tensor((1, 16), dtype="float32") = R.matmul(h0_s1, w1)
            y: R.Tensor((1, 16), dtype="float32") = R.add(h1, m_s1)
            R.output(y)
        return y
