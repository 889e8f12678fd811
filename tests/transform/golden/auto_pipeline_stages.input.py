# RUN: auto-pipeline-stages{stages=2,bandwidth=1TB},verify
# Weight reads move to their first use. With cheap transfers the balanced cut is after h0
# (two matmuls a side), where m and h0 cross: a tuple boundary, unpacked field by field.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 16), dtype="float32"), packed_params: R.Tuple(R.Tensor((16, 16), dtype="float32"), R.Tensor((16, 16), dtype="float32"))) -> R.Tensor((1, 16), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            w0: R.Tensor((16, 16), dtype="float32") = packed_params[0]
            w1: R.Tensor((16, 16), dtype="float32") = packed_params[1]
            m: R.Tensor((1, 16), dtype="float32") = R.add(x, x)
            h0: R.Tensor((1, 16), dtype="float32") = R.matmul(m, w0)
            h1: R.Tensor((1, 16), dtype="float32") = R.matmul(h0, w1)
            y: R.Tensor((1, 16), dtype="float32") = R.add(h1, m)
            R.output(y)
        return y
