# RUN: pipeline-parallel-rewrite
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), packed_params: R.Tuple(R.Tensor((4,), dtype="float32"))) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 2})
        with R.dataflow():
            w: R.Tensor((4,), dtype="float32") = packed_params[0]
            a: R.Tensor((4,), dtype="float32") = R.add(x, w)
            # expected-error @+1:13 {{stage boundary 'b' in 'main' passes no value}}
            b: R.Object = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", sinfo_args=(R.Object,))
            gv: R.Tensor((4,), dtype="float32") = R.multiply(a, a)
            R.output(gv)
        return gv
