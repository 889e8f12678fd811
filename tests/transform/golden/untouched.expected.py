@I.ir_module
class Module:
    @R.function
    def helper(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y: R.Tensor((4,), dtype="float32") = R.add(x, x)
        return y

    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), packed_params: R.Tuple(R.Tensor((4,), dtype="float32"))) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 1})
        with R.dataflow():
            w: R.Tensor((4,), dtype="float32") = packed_params[0]
            gv: R.Tensor((4,), dtype="float32") = R.add(x, w)
            R.output(gv)
        return gv
