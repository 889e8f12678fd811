# RUN: pipeline-parallel-rewrite
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), packed_params: R.Tuple(R.Tensor((4,), dtype="float32"))) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 2})
        with R.dataflow():
            w: R.Tensor((4,), dtype="float32") = packed_params[0]
            a: R.Tensor((4,), dtype="float32") = R.add(x, w)
            sh: R.Shape([4]) = R.shape([4])
            # expected-error @+1:13 {{'s' cannot be passed from stage 0 to stage 1 of 'main': only tensors can be sent between groups, its type is R.Shape([4])}}
            s: R.Shape([4]) = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", sh, sinfo_args=(R.Shape([4]),))
            gv: R.Tensor((4,), dtype="float32") = R.reshape(a, s)
            R.output(gv)
        return gv
