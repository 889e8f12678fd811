# RUN: pipeline-parallel-rewrite
# Three stages; the first boundary passes three values, one of them a parameter.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32"), packed_params: R.Tuple(R.Tensor((4,), dtype="float32"))) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"num_input": 2, "pipeline_parallel_stages": 3})
        with R.dataflow():
            w: R.Tensor((4,), dtype="float32") = packed_params[0]
            a: R.Tensor((4,), dtype="float32") = R.add(x, w)
            c: R.Tensor((4,), dtype="float32") = R.multiply(x, w)
            b: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")) = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", a, c, y, sinfo_args=(R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")),))
            b0: R.Tensor((4,), dtype="float32") = b[0]
            b1: R.Tensor((4,), dtype="float32") = b[1]
            b2: R.Tensor((4,), dtype="float32") = b[2]
            s: R.Tensor((4,), dtype="float32") = R.add(b0, b1)
            t: R.Tensor((4,), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", s, sinfo_args=(R.Tensor((4,), dtype="float32"),))
            gv: R.Tensor((4,), dtype="float32") = R.subtract(t, b2)
            R.output(gv)
        return gv
