# RUN: legalize-ops
# Symbolic shapes: kernels match their buffers with T.int64 vars; `full` of shape (n * 2,)
# cannot read n from a buffer dim, so n is a scalar param passed through tir_vars; an op
# whose result shape is unknown stays as it is.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, "n", 8), dtype="float32"), y: R.Tensor((8,), dtype="float32"), u: R.Tensor(dtype="float32", ndim=2)) -> R.Tensor(("n * 2",), dtype="float32"):
        n = T.int64()
        with R.dataflow():
            a = R.add(x, y)
            b = R.nn.softmax(a, axis=1)
            c = R.full(R.shape([n * 2]), R.const(1.0, "float32"), dtype="float32")
            v = R.add(u, u)
            R.output(b, c, v)
        return c
