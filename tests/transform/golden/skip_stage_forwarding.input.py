# RUN: pipeline-parallel-rewrite
# `a` is defined in stage 0 and used in stage 2 without passing a boundary: it is forwarded
# through stage 1 (received and sent again).
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), packed_params: R.Tuple(R.Tensor((4,), dtype="float32"))) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 3})
        with R.dataflow():
            a: R.Tensor((4,), dtype="float32") = R.exp(x)
            b1: R.Tensor((4,), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", a, sinfo_args=(R.Tensor((4,), dtype="float32"),))
            c: R.Tensor((4,), dtype="float32") = R.sigmoid(b1)
            b2: R.Tensor((4,), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", c, sinfo_args=(R.Tensor((4,), dtype="float32"),))
            w: R.Tensor((4,), dtype="float32") = packed_params[0]
            d: R.Tensor((4,), dtype="float32") = R.add(b2, a)
            gv: R.Tensor((4,), dtype="float32") = R.multiply(d, w)
            R.output(gv)
        return gv
