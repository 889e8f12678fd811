# RUN: pipeline-parallel-rewrite
# Found by fuzz_rewrite: a stage boundary that declares a type its value does not have (here a
# float16 input declared float32, and a (5,) tensor declared (4,)) is the user's mistake, named
# at the boundary; it used to surface as an internal error about unpaired sends and receives.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float16"), z: R.Tensor((5,), dtype="float32"), packed_params: R.Tuple(R.Tensor((4,), dtype="float32"))) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"num_input": 3, "pipeline_parallel_stages": 2})
        with R.dataflow():
            w: R.Tensor((4,), dtype="float32") = packed_params[0]
            a: R.Tensor((4,), dtype="float32") = R.add(x, w)
            # expected-error @+2:13 {{stage boundary 'b' in 'main' declares value 2 as R.Tensor((4,), dtype="float32") but passes 'y' of type R.Tensor((4,), dtype="float16")}}
            # expected-error @+1:13 {{stage boundary 'b' in 'main' declares value 3 as R.Tensor((4,), dtype="float32") but passes 'z' of type R.Tensor((5,), dtype="float32")}}
            b: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")) = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", a, y, z, sinfo_args=(R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")),))
            b0: R.Tensor((4,), dtype="float32") = b[0]
            b1: R.Tensor((4,), dtype="float32") = b[1]
            b2: R.Tensor((4,), dtype="float32") = b[2]
            s: R.Tensor((4,), dtype="float32") = R.add(b0, b1)
            gv: R.Tensor((4,), dtype="float32") = R.subtract(s, b2)
            R.output(gv)
        return gv
