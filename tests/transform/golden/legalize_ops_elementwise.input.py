# RUN: legalize-ops
# Elementwise ops: broadcasting binary ops (a scalar constant operand is inlined), unary ops,
# silu as sigmoid then multiply; two adds of the same shapes share one kernel, a third of other
# shapes gets `add1`; R.sum has no legalization here and stays as it is.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((3,), dtype="float32"), z: R.Tensor((1, 3), dtype="float32")) -> R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="bool"), R.Tensor((), dtype="float32")):
        with R.dataflow():
            a = R.add(x, y)
            b = R.add(a, y)
            c = R.add(x, z)
            d = R.multiply(c, R.const(0.5, "float32"))
            e = R.negative(d)
            f = R.nn.silu(e)
            g = R.exp(f)
            h = R.less(g, x)
            s = R.sum(g)
            R.output(b, h, s)
        return (b, h, s)
