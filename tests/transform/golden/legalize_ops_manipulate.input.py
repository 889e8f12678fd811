# RUN: legalize-ops
# Data movement and creation: reshape, permute_dims, strided_slice, concat, take, full, triu.
@I.ir_module
class Module:
    @R.function
    def main(ids: R.Tensor((1, 4), dtype="int32"), w: R.Tensor((10, 6), dtype="float32")) -> R.Tuple(R.Tensor((2, 4, 3), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        with R.dataflow():
            i = R.reshape(ids, R.shape([4]))
            x = R.take(w, i, axis=0)
            x3 = R.reshape(x, R.shape([4, 2, 3]))
            t = R.permute_dims(x3, axes=[1, 0, 2])
            lo = R.strided_slice(t, (R.prim_value(2),), (R.prim_value(0),), (R.prim_value(1),))
            hi = R.strided_slice(t, (R.prim_value(2),), (R.prim_value(1),), (R.prim_value(3),))
            cat = R.concat((hi, lo), axis=-1)
            neg = R.full(R.shape([4, 4]), R.const(-1.0e9, "float32"), dtype="float32")
            mask = R.triu(neg, R.prim_value(1))
            R.output(cat, mask)
        return (cat, mask)
