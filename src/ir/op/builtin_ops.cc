// Calls into TIR kernels and packed functions, and other ops whose result type is declared
// by the call itself (sinfo_args / out_sinfo) rather than computed from its arguments.
#include "src/ir/op/op_families.h"

namespace pipesplit::ir {
namespace {

StructInfo InferDeclared(const CallNode& call) {
  if (call.sinfo_args().empty()) {
    InferFail(OpDisplayName(call) + " needs its result type (sinfo_args)");
  }
  return DeclaredResult(call);
}

// call_tir-like: the single out_sinfo entry is the result (several entries were already
// folded into one tuple entry by the parser, as TVM stores them).
StructInfo InferOutSInfo(const CallNode& call) {
  if (call.sinfo_args().size() != 1) {
    InferFail(OpDisplayName(call) + " needs exactly one out_sinfo");
  }
  return call.sinfo_args()[0];
}

void Register(std::string name, std::vector<OpParam> params, InferStructInfoFn infer,
              bool is_pure, std::string summary) {
  RegisterOp(OpInfo{std::move(name), std::move(params), is_pure, std::move(infer),
                    std::move(summary)});
}

}  // namespace

void RegisterBuiltinOps() {
  Register("relax.call_tir", {Arg("gvar"), Arg("args"), SInfoArgs("out_sinfo"),
                              OptionalArg("tir_vars")},
           InferOutSInfo, true, "call a TIR kernel in destination-passing style");
  Register("relax.call_tir_inplace",
           {Arg("gvar"), Arg("args"), RequiredAttr("inplace_indices"), SInfoArgs("out_sinfo"),
            OptionalArg("tir_vars")},
           InferOutSInfo, true, "call a TIR kernel that writes some outputs into its inputs");
  Register("relax.call_tir_with_grad",
           {Arg("gvar"), Arg("args"), SInfoArgs("out_sinfo"), RequiredAttr("te_grad_name"),
            Attr("te_grad_kwargs", AttrMap{}), OptionalArg("tir_vars")},
           InferOutSInfo, true, "call a TIR kernel with a registered gradient");
  Register("relax.call_dps_packed", {Arg("func"), Arg("args"), SInfoArgs("out_sinfo")},
           InferOutSInfo, true, "call a packed function in destination-passing style");
  Register("relax.call_pure_packed", {Arg("func"), Variadic("args"), SInfoArgs()},
           InferDeclared, true, "call a packed function known to be pure");
  Register("relax.call_inplace_packed",
           {Arg("func"), Variadic("args"), RequiredAttr("inplace_indices"), SInfoArgs()},
           InferDeclared, true, "call a packed function that mutates some arguments");
  Register("relax.call_builtin_with_ctx", {Arg("func"), Arg("args"), SInfoArgs()},
           InferDeclared, false, "call a VM builtin with the VM context");
  Register("relax.builtin.stop_lift_params", {Arg("x")},
           [](const CallNode& call) { return ArgSInfo(call, 0); }, true,
           "mark a value that LiftTransformParams must not lift");
  Register("relax.print", {Variadic("vals"), Attr("format", std::string())},
           [](const CallNode&) { return VoidSInfo(); }, false, "print values at run time");
}

}  // namespace pipesplit::ir
