# RUN: pipeline-parallel-rewrite
# The example of shared/spec/pipeline-parallel-rewrite.md: two stages, one symbolic dim.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, "n", 16), dtype="float32"), packed_params: R.Tuple(R.Tensor((16, 16), dtype="float32"), R.Tensor((16, 16), dtype="float32"))) -> R.Tensor((1, "n", 16), dtype="float32"):
        n = T.int64()
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 2})
        with R.dataflow():
            w0: R.Tensor((16, 16), dtype="float32") = packed_params[0]
            lv0: R.Tensor((1, n, 16), dtype="float32") = R.matmul(x, w0)
            lv1: R.Tensor((1, n, 16), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", lv0, sinfo_args=(R.Tensor((1, n, 16), dtype="float32"),))
            w1: R.Tensor((16, 16), dtype="float32") = packed_params[1]
            gv: R.Tensor((1, n, 16), dtype="float32") = R.matmul(lv1, w1)
            R.output(gv)
        return gv
