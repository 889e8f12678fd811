# RUN: pipeline-parallel-rewrite
# `m` is bound by a match_cast in stage 0 and used in stage 1. The dispatcher has no `m`, so
# stage 1 receives the tensor with unknown dims and re-derives its own `m` by match_cast.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=2), packed_params: R.Tuple(R.Tensor((4,), dtype="float32"))) -> R.Tensor(dtype="float32", ndim=2):
        m = T.int64()
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 2})
        with R.dataflow():
            xm: R.Tensor((m, 4), dtype="float32") = R.match_cast(x, R.Tensor((m, 4), dtype="float32"))
            a: R.Tensor((m, 4), dtype="float32") = R.exp(xm)
            b: R.Tensor((m, 4), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", a, sinfo_args=(R.Tensor((m, 4), dtype="float32"),))
            w: R.Tensor((4,), dtype="float32") = packed_params[0]
            c: R.Tensor((m, 4), dtype="float32") = R.add(b, w)
            gv: R.Tensor((m * 2, 2), dtype="float32") = R.reshape(c, R.shape([m * 2, 2]))
            R.output(gv)
        return gv
