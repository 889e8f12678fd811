# RUN: pipeline-parallel-rewrite
# weight_symbolic_dim in the current TVMScript syntax (TVM of Aug 2026).
from __future__ import annotations

# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main[v](x: R.Tensor((2, 4), dtype="float32"), packed_params: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, v), dtype="float32"))) -> R.Tensor((2, v), dtype="float32"):
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 2})
        with R.dataflow():
            w0: R.Tensor((4, 4), dtype="float32") = packed_params[0]
            a: R.Tensor((2, 4), dtype="float32") = R.matmul(x, w0)
            b: R.Tensor((2, 4), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", a, ty_args=(R.Tensor((2, 4), dtype="float32"),))
            w1: R.Tensor((4, v), dtype="float32") = packed_params[1]
            gv: R.Tensor((2, v), dtype="float32") = R.matmul(b, w1)
            R.output(gv)
        return gv
