# RUN: legalize-ops
# Reductions: matmul with a broadcast 2-D weight and batched matmul, rms_norm over the last
# axis, softmax over the last axis.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4, 8), dtype="float32"), w: R.Tensor((8, 8), dtype="float32"), g: R.Tensor((8,), dtype="float32"), k: R.Tensor((2, 8, 4), dtype="float32")) -> R.Tuple(R.Tensor((1, 4, 8), dtype="float32"), R.Tensor((2, 4, 4), dtype="float32")):
        with R.dataflow():
            n = R.nn.rms_norm(x, g, axes=[-1], epsilon=1.0000000000000001e-05)
            y = R.matmul(n, w)
            s = R.matmul(y, k)
            p = R.nn.softmax(s, axis=-1)
            R.output(y, p)
        return (y, p)
