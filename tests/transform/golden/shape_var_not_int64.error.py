# RUN: pipeline-parallel-rewrite
# Found by fuzz_rewrite: stage 1 needs `N` (int32, bound by an R.Prim parameter) from the
# dispatcher, which passes symbolic variables in an R.Shape (int64 values only). (Stage 0 could
# use it: its own parameter `n` binds it.)
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("M", 4), dtype="float32"), n: R.Prim(value="N"), packed_params: R.Tuple(R.Tensor((4,), dtype="float32"))):
        M = T.int64()
        N = T.int32()
        R.func_attr({"num_input": 2, "pipeline_parallel_stages": 2})
        with R.dataflow():
            a: R.Tensor((M, 4), dtype="float32") = R.exp(x)
            b: R.Tensor((M, 4), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", a, sinfo_args=(R.Tensor((M, 4), dtype="float32"),))
            w: R.Tensor((4,), dtype="float32") = packed_params[0]
            c: R.Tensor((M, 4), dtype="float32") = R.add(b, w)
            # expected-error @+1:13 {{stage 1 of 'main' needs symbolic variable 'N' from its caller, but it is int32 and stages receive symbolic variables in an R.Shape (int64 only); compute what the stage needs in stage 0, or declare it T.int64()}}
            q = R.prim_value(N * M)
            d = (c, q)
            R.output(d)
        return d
