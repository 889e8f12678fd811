# RUN: pipeline-parallel-rewrite
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=1), packed_params: R.Tuple(R.Tensor((4,), dtype="float32"))) -> R.Tensor(dtype="float32", ndim=1):
        m = T.int64()
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 2})
        with R.dataflow():
            xm: R.Tensor((m * 2,), dtype="float32") = R.match_cast(x, R.Tensor((m * 2,), dtype="float32"))
            a: R.Tensor((m * 2,), dtype="float32") = R.add(xm, xm)
            # expected-error @+1:13 {{symbolic variable 'm' used in stage 1 of 'main' is bound in stage 0 and no tensor passed between the stages carries it as a dimension}}
            b: R.Tensor((m * 2,), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", a, sinfo_args=(R.Tensor((m * 2,), dtype="float32"),))
            z: R.Tensor((m,), dtype="float32") = R.zeros(R.shape([m]), dtype="float32")
            gv: R.Tensor((m,), dtype="float32") = R.add(z, z)
            R.output(gv)
        return gv
