# RUN: pipeline-parallel-rewrite
@I.ir_module
class Module:
    # expected-error @+1:5 {{pipeline_parallel_stages of 'main' must be a positive integer}}
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), packed_params: R.Tuple(R.Tensor((4,), dtype="float32"))) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": "two"})
        with R.dataflow():
            w: R.Tensor((4,), dtype="float32") = packed_params[0]
            gv: R.Tensor((4,), dtype="float32") = R.add(x, w)
            R.output(gv)
        return gv
