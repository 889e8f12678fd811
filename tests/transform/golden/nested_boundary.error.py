# RUN: pipeline-parallel-rewrite
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), packed_params: R.Tuple(R.Tensor((4,), dtype="float32"))) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 2})
        @R.function
        def helper(y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
            with R.dataflow():
                # expected-error @+1:17 {{stage boundary 'inner_b' in 'main' is nested inside a function or a branch}}
                inner_b: R.Tensor((4,), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", y, sinfo_args=(R.Tensor((4,), dtype="float32"),))
                R.output(inner_b)
            return inner_b
        with R.dataflow():
            w: R.Tensor((4,), dtype="float32") = packed_params[0]
            a: R.Tensor((4,), dtype="float32") = R.add(x, w)
            b: R.Tensor((4,), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", a, sinfo_args=(R.Tensor((4,), dtype="float32"),))
            gv: R.Tensor((4,), dtype="float32") = R.multiply(b, b)
            R.output(gv)
        return gv
