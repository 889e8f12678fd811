# RUN: pipeline-parallel-rewrite
# A tensor shaped by a Relax shape var, R.Tensor(s, ...), crosses to a stage that does not have
# `s`: the receiving stage knows only its rank.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((16,), dtype="float32"), t: R.Tensor((2,), dtype="int64"), packed_params: R.Tuple(R.Tensor((4, 4), dtype="float32"))) -> R.Tensor(dtype="float32", ndim=2):
        R.func_attr({"num_input": 2, "pipeline_parallel_stages": 2})
        with R.dataflow():
            s: R.Shape(ndim=2) = R.tensor_to_shape(t)
            lv0: R.Tensor(s, dtype="float32") = R.reshape(x, s)
            lv1: R.Tensor(s, dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", lv0, sinfo_args=(R.Tensor(s, dtype="float32"),))
            w0: R.Tensor((4, 4), dtype="float32") = packed_params[0]
            gv: R.Tensor(dtype="float32", ndim=2) = R.matmul(lv1, w0)
            R.output(gv)
        return gv
