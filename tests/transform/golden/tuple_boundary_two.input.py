# RUN: pipeline-parallel-rewrite
# A boundary passing two values; both fields are unpacked in the next stage.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), packed_params: R.Tuple(R.Tensor((4,), dtype="float32"))) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 2})
        with R.dataflow():
            w: R.Tensor((4,), dtype="float32") = packed_params[0]
            a: R.Tensor((4,), dtype="float32") = R.add(x, w)
            c: R.Tensor((4,), dtype="int32") = R.astype(a, dtype="int32")
            b: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="int32")) = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", a, c, sinfo_args=(R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="int32")),))
            b0: R.Tensor((4,), dtype="float32") = b[0]
            b1: R.Tensor((4,), dtype="int32") = b[1]
            f: R.Tensor((4,), dtype="float32") = R.astype(b1, dtype="float32")
            gv: R.Tensor((4,), dtype="float32") = R.add(b0, f)
            R.output(gv)
        return gv
