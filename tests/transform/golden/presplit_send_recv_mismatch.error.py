# RUN: pipeline-parallel-rewrite
# Regression: a module split before whose stage 1 receives a (3,) tensor where stage 0 sends (4,)
# was an internal error ('check failed: pairing.empty()') instead of a located user error.
@I.ir_module
class Module:
    @R.function(pure=False, private=True)
    def main_stage0(x: R.Tensor((4,), dtype="float32"), s: R.Shape([]), packed_params: R.Object) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="int32")):
        R.func_attr({"num_input": 2})
        with R.dataflow():
            w: R.Tensor((4,), dtype="float32") = R.call_pure_packed("vm.builtin.tuple_getitem", packed_params, R.prim_value(0), sinfo_args=(R.Tensor((4,), dtype="float32"),))
            a: R.Tensor((4,), dtype="float32") = R.add(x, w)
            c: R.Tensor((4,), dtype="int32") = R.astype(a, dtype="int32")
            R.output(a, c)
        # expected-error @+1:9 {{send 0 of 'main_stage0' (R.Tensor((4,), dtype="float32")) does not match receive 0 of 'main_stage1' (R.Tensor((3,), dtype="float32")): dimension 0 differs}}
        gv: R.Object = R.call_packed("runtime.disco.send_to_next_group", a)
        gv1: R.Object = R.call_packed("runtime.disco.send_to_next_group", c)
        return (a, c)

    @R.function(pure=False, private=True)
    def main_stage1(s: R.Shape([]), packed_params: R.Object) -> R.Tuple(R.Tensor((4,), dtype="float32")):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            b0 = R.call_dps_packed("runtime.disco.recv_from_prev_group", R.tuple(), out_sinfo=R.Tensor((3,), dtype="float32"))
            b1 = R.call_dps_packed("runtime.disco.recv_from_prev_group", R.tuple(), out_sinfo=R.Tensor((4,), dtype="int32"))
            f: R.Tensor((4,), dtype="float32") = R.astype(b1, dtype="float32")
            gv: R.Tensor((4,), dtype="float32") = R.add(b0, f)
            R.output(gv)
        return (gv,)

    @R.function(pure=False)
    def main(x: R.Tensor((4,), dtype="float32"), packed_params: R.Object) -> R.Object:
        cls = Module
        gv: R.Object = R.call_builtin_with_ctx("mlc.multi_gpu.DispatchFunctionByGroup", (((cls.main_stage0, x, R.shape([]), packed_params), (cls.main_stage1, R.shape([]), packed_params)),), sinfo_args=(R.Object,))
        return gv
