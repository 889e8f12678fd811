# RUN: pipeline-parallel-rewrite
# Stage 1 reads a weight whose type has a symbolic dim only packed_params defines: the read
# returns R.Object and a match_cast binds the stage's own copy of `v`.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), dtype="float32"), packed_params: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, "v"), dtype="float32"))) -> R.Tensor((2, "v"), dtype="float32"):
        v = T.int64()
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 2})
        with R.dataflow():
            w0: R.Tensor((4, 4), dtype="float32") = packed_params[0]
            a: R.Tensor((2, 4), dtype="float32") = R.matmul(x, w0)
            b: R.Tensor((2, 4), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", a, sinfo_args=(R.Tensor((2, 4), dtype="float32"),))
            w1: R.Tensor((4, v), dtype="float32") = packed_params[1]
            gv: R.Tensor((2, v), dtype="float32") = R.matmul(b, w1)
            R.output(gv)
        return gv
