# RUN: pipeline-parallel-rewrite
# Each stage takes only the parameters it uses: x in stage 0, z in stage 1, y nowhere.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32"), z: R.Tensor((4,), dtype="float32"), packed_params: R.Tuple(R.Tensor((4,), dtype="float32"))) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"num_input": 3, "pipeline_parallel_stages": 2})
        with R.dataflow():
            a: R.Tensor((4,), dtype="float32") = R.exp(x)
            b: R.Tensor((4,), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", a, sinfo_args=(R.Tensor((4,), dtype="float32"),))
            w: R.Tensor((4,), dtype="float32") = packed_params[0]
            c: R.Tensor((4,), dtype="float32") = R.add(b, z)
            gv: R.Tensor((4,), dtype="float32") = R.multiply(c, w)
            R.output(gv)
        return gv
