# RUN: auto-pipeline-stages{stages=2},verify
# At the default 25 GB/s a transfer (64 bytes: 2.56 ns) outweighs a matmul here (1.15 ns of
# memory traffic): the cut falls after m, where only m crosses; the stages share nothing else.
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
