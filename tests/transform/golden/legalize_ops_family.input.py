# RUN: legalize-ops
# The rest of the elementwise family (unary math, square, relu, subtract, divide, maximum,
# minimum), tril, permute_dims with its default (reversed) axes, and strided_slice with a
# negative begin and a stride of 2.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 2), dtype="float32"):
        with R.dataflow():
            a = R.abs(x)
            b = R.add(a, R.const(1.0, "float32"))
            c = R.log(b)
            d = R.sqrt(b)
            e = R.rsqrt(b)
            f = R.tanh(c)
            g = R.sigmoid(d)
            h = R.erf(e)
            i = R.sin(f)
            j = R.cos(g)
            k = R.floor(h)
            l = R.ceil(i)
            m = R.square(j)
            r = R.nn.relu(y)
            s1 = R.subtract(m, r)
            s2 = R.divide(s1, b)
            s3 = R.maximum(s2, k)
            s4 = R.minimum(s3, l)
            t = R.tril(s4, R.prim_value(0))
            p = R.permute_dims(t)
            q = R.strided_slice(p, (R.prim_value(0),), (R.prim_value(-3),), (R.prim_value(3),), (R.prim_value(2),))
            R.output(q)
        return q
