# RUN: pipeline-parallel-rewrite
# Three stages in a chain; each stage reads its own weight.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 8), dtype="float32"), packed_params: R.Tuple(R.Tensor((8, 8), dtype="float32"), R.Tensor((8, 8), dtype="float32"), R.Tensor((8, 8), dtype="float32"))) -> R.Tensor((2, 8), dtype="float32"):
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 3})
        with R.dataflow():
            w0: R.Tensor((8, 8), dtype="float32") = packed_params[0]
            a: R.Tensor((2, 8), dtype="float32") = R.matmul(x, w0)
            b: R.Tensor((2, 8), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", a, sinfo_args=(R.Tensor((2, 8), dtype="float32"),))
            w1: R.Tensor((8, 8), dtype="float32") = packed_params[1]
            c: R.Tensor((2, 8), dtype="float32") = R.matmul(b, w1)
            d: R.Tensor((2, 8), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", c, sinfo_args=(R.Tensor((2, 8), dtype="float32"),))
            w2: R.Tensor((8, 8), dtype="float32") = packed_params[2]
            gv: R.Tensor((2, 8), dtype="float32") = R.matmul(d, w2)
            R.output(gv)
        return gv
