# RUN: pipeline-parallel-rewrite
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), packed_params: R.Tuple(R.Tensor((4,), dtype="float32"))) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 2})
        with R.dataflow():
            w: R.Tensor((4,), dtype="float32") = packed_params[0]
            a: R.Tensor((4,), dtype="float32") = R.add(x, w)
            c: R.Tensor((4,), dtype="float32") = R.multiply(x, w)
            # expected-error @+1:13 {{field 1 of stage boundary 'b' in 'main' is never unpacked (b[1])}}
            b: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")) = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", a, c, sinfo_args=(R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")),))
            b0: R.Tensor((4,), dtype="float32") = b[0]
            gv: R.Tensor((4,), dtype="float32") = R.multiply(b0, b0)
            R.output(gv)
        return gv
