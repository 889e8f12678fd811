# RUN: pipeline-parallel-rewrite
# Four stages; the middle stages both receive and send.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), packed_params: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32"))) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 4})
        with R.dataflow():
            w0: R.Tensor((4,), dtype="float32") = packed_params[0]
            a: R.Tensor((4,), dtype="float32") = R.add(x, w0)
            b1: R.Tensor((4,), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", a, sinfo_args=(R.Tensor((4,), dtype="float32"),))
            c: R.Tensor((4,), dtype="float32") = R.exp(b1)
            b2: R.Tensor((4,), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", c, sinfo_args=(R.Tensor((4,), dtype="float32"),))
            d: R.Tensor((4,), dtype="float32") = R.sigmoid(b2)
            b3: R.Tensor((4,), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", d, sinfo_args=(R.Tensor((4,), dtype="float32"),))
            w1: R.Tensor((4,), dtype="float32") = packed_params[1]
            gv: R.Tensor((4,), dtype="float32") = R.multiply(b3, w1)
            R.output(gv)
        return gv
