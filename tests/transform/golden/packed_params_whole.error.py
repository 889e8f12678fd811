# RUN: pipeline-parallel-rewrite
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), packed_params: R.Tuple(R.Tensor((4,), dtype="float32"))) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 2})
        with R.dataflow():
            w: R.Tensor((4,), dtype="float32") = packed_params[0]
            a: R.Tensor((4,), dtype="float32") = R.add(x, w)
            b: R.Tensor((4,), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", a, sinfo_args=(R.Tensor((4,), dtype="float32"),))
            # expected-error @+1:13 {{packed_params may only be read as packed_params[i] in 'main', which is split into stages}}
            t: R.Tuple(R.Tuple(R.Tensor((4,), dtype="float32")), R.Tensor((4,), dtype="float32")) = packed_params, b
            gv: R.Tensor((4,), dtype="float32") = R.multiply(b, b)
            R.output(gv)
        return gv
