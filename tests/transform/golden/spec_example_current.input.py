# RUN: pipeline-parallel-rewrite
# spec_example in the current TVMScript syntax (TVM of Aug 2026).
from __future__ import annotations

# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main[n](x: R.Tensor((1, n, 16), dtype="float32"), packed_params: R.Tuple(R.Tensor((16, 16), dtype="float32"), R.Tensor((16, 16), dtype="float32"))) -> R.Tensor((1, n, 16), dtype="float32"):
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 2})
        with R.dataflow():
            w0: R.Tensor((16, 16), dtype="float32") = packed_params[0]
            lv0: R.Tensor((1, n, 16), dtype="float32") = R.matmul(x, w0)
            lv1: R.Tensor((1, n, 16), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", lv0, ty_args=(R.Tensor((1, n, 16), dtype="float32"),))
            w1: R.Tensor((16, 16), dtype="float32") = packed_params[1]
            gv: R.Tensor((1, n, 16), dtype="float32") = R.matmul(lv1, w1)
            R.output(gv)
        return gv
