# RUN: pipeline-parallel-rewrite
# shape_var_born_in_stage in the current TVMScript syntax (TVM of Aug 2026).
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=2), packed_params: R.Tuple(R.Tensor((4,), dtype="float32"))) -> R.Tensor(dtype="float32", ndim=2):
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 2})
        m = T.int64()
        with R.dataflow():
            xm: R.Tensor((m, 4), dtype="float32") = R.match_cast(x, R.Tensor((m, 4), dtype="float32"))
            a: R.Tensor((m, 4), dtype="float32") = R.exp(xm)
            b: R.Tensor((m, 4), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", a, ty_args=(R.Tensor((m, 4), dtype="float32"),))
            w: R.Tensor((4,), dtype="float32") = packed_params[0]
            c: R.Tensor((m, 4), dtype="float32") = R.add(b, w)
            gv: R.Tensor((m * 2, 2), dtype="float32") = R.reshape(c, R.shape([m * 2, 2]))
            R.output(gv)
        return gv
