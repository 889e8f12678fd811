// Calls into TIR kernels, packed functions and closures, and the other builtin ops whose
// result type is declared by the call itself (sinfo_args / out_sinfo) or fixed (print,
// assert_op, null_value, shape_of, ...).
#include <set>

#include "src/ir/op/op_families.h"

namespace pipesplit::ir {
namespace {

// call_tir-like: the single out_sinfo entry is the result (several outputs are one tuple
// entry, as TVM stores them).
StructInfo InferOutSInfo(const CallNode& call) {
  CheckArgCountBetween(call, 2, 3);
  if (call.sinfo_args().size() != 1) Fail(call, "needs exactly one out_sinfo");
  return call.sinfo_args()[0];
}

StructInfo InferCallTIR(const CallNode& call) {
  StructInfo out = InferOutSInfo(call);
  if (call.args()[0]->kind() != NodeKind::kGlobalVar) {
    Fail(call, "gvar must be a module function (cls.f)");
  }
  const StructInfo& args = ArgSInfo(call, 1);
  if (args->kind() != NodeKind::kTupleSInfo) {
    Fail(call, "args must be a tuple, got " + SInfoKindName(args));
  }
  if (call.args().size() == 3 && ArgSInfo(call, 2)->kind() != NodeKind::kShapeSInfo) {
    Fail(call, "tir_vars must be a shape, got " + SInfoKindName(ArgSInfo(call, 2)));
  }
  return out;
}

StructInfo InferCallTIRInplace(const CallNode& call) {
  StructInfo out = InferCallTIR(call);
  std::vector<int64_t> indices = CallAttrs(call).IntList("inplace_indices");
  const auto& args = static_cast<const TupleSInfoNode&>(*ArgSInfo(call, 1)).fields();
  size_t num_outputs = 1;
  if (const auto* tuple = As<TupleSInfoNode>(out)) num_outputs = tuple->fields().size();
  if (indices.size() != num_outputs) {
    Fail(call, "inplace_indices has " + std::to_string(indices.size()) +
                   " entries but the call has " + std::to_string(num_outputs) + " outputs");
  }
  std::set<int64_t> seen;
  for (int64_t index : indices) {
    if (index < -1 || index >= static_cast<int64_t>(args.size())) {
      Fail(call, "in-place index " + std::to_string(index) + " is out of range for " +
                     std::to_string(args.size()) + " arguments");
    }
    if (index >= 0 && !seen.insert(index).second) {
      Fail(call, "in-place index " + std::to_string(index) + " is used more than once");
    }
  }
  return out;
}

StructInfo InferCallPurePacked(const CallNode& call) {
  if (call.args().empty()) Fail(call, "expects the packed function as first argument");
  return DeclaredResult(call);
}

StructInfo InferCallInplacePacked(const CallNode& call) {
  if (call.args().size() < 2) {
    Fail(call, "expects the packed function and at least one argument");
  }
  std::vector<int64_t> indices = CallAttrs(call).IntList("inplace_indices");
  int64_t num_args = static_cast<int64_t>(call.args().size()) - 1;
  std::set<int64_t> seen;
  for (int64_t index : indices) {
    if (index < -1 || index >= num_args) {
      Fail(call, "in-place index " + std::to_string(index) + " is out of range for " +
                     std::to_string(num_args) + " arguments");
    }
    if (index >= 0 && !seen.insert(index).second) {
      Fail(call, "in-place index " + std::to_string(index) + " is used more than once");
    }
  }
  if (seen.empty()) Fail(call, "needs at least one in-place index other than -1");
  StructInfo ret = DeclaredResult(call);
  auto check = [&](const StructInfo& out, int64_t index) {
    if (!IsBaseOf(out, ArgSInfo(call, index + 1))) {
      Fail(call, "the result type does not match the in-place argument " + std::to_string(index));
    }
  };
  if (indices.size() == 1) {
    check(ret, indices[0]);
  } else {
    const auto* tuple = As<TupleSInfoNode>(ret);
    if (tuple == nullptr || tuple->fields().size() != indices.size()) {
      Fail(call, "several in-place indices need a tuple result with one field each");
    }
    for (size_t i = 0; i < indices.size(); ++i) {
      if (indices[i] >= 0) check(tuple->fields()[i], indices[i]);
    }
  }
  return ret;
}

StructInfo InferCallBuiltinWithCtx(const CallNode& call) {
  if (call.sinfo_args().empty()) return VoidSInfo();
  return call.sinfo_args()[0];
}

StructInfo InferAssert(const CallNode& call) {
  if (call.args().empty()) Fail(call, "expects a condition");
  const StructInfo& cond = ArgSInfo(call, 0);
  DataType dtype;
  int ndim = 0;
  if (const auto* t = As<TensorSInfoNode>(cond)) {
    dtype = t->dtype();
    ndim = t->ndim();
  } else if (const auto* p = As<PrimSInfoNode>(cond)) {
    dtype = p->dtype();
  } else {
    Fail(call, "the condition must be a boolean scalar, got " + SInfoKindName(cond));
  }
  if (!(dtype.is_bool() || dtype.is_void()) || !(ndim == 0 || ndim == -1)) {
    Fail(call, "the condition must be a boolean scalar");
  }
  return VoidSInfo();
}

StructInfo InferShapeOf(const CallNode& call) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& t = TensorArg(call, 0);
  if (t.shape()) return Make<ShapeSInfoNode>(*t.shape());
  return Make<ShapeSInfoNode>(t.ndim());
}

StructInfo InferSize(const CallNode& call) {
  CheckArgCount(call, 1);
  TensorArg(call, 0);
  return MakeTensor({}, DataType::Int(64), "");
}

StructInfo InferTensorToShape(const CallNode& call) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& t = TensorArg(call, 0);
  if (t.ndim() != 1) Fail(call, "expects a 1-d tensor, got " + std::to_string(t.ndim()) + "-d");
  if (t.shape()) {
    if (auto n = AsConstInt((*t.shape())[0])) {
      return Make<ShapeSInfoNode>(static_cast<int>(*n));
    }
  }
  return Make<ShapeSInfoNode>(-1);
}

StructInfo InferShapeToTensor(const CallNode& call) {
  CheckArgCount(call, 1);
  const ShapeSInfoNode& s = ShapeArg(call, 0);
  return MakeTensor({Int64(s.ndim())}, DataType::Int(64), "");
}

StructInfo InferToVDevice(const CallNode& call) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& t = TensorArg(call, 0);
  std::string vdevice = CallAttrs(call).Str("dst_vdevice");
  if (t.shape()) return MakeTensor(*t.shape(), t.dtype(), vdevice);
  return MakeTensorNdim(t.dtype(), t.ndim(), vdevice);
}

StructInfo InferIdentity(const CallNode& call) {
  CheckArgCount(call, 1);
  return ArgSInfo(call, 0);
}

StructInfo InferTensorIdentity(const CallNode& call) {
  CheckArgCount(call, 1);
  TensorArg(call, 0);
  return ArgSInfo(call, 0);
}

StructInfo ReturnVoid(const CallNode&) { return VoidSInfo(); }
StructInfo ReturnObject(const CallNode&) { return ObjectSInfo(); }

}  // namespace

void RegisterBuiltinOps() {
  RegisterOp({.name = "relax.call_tir",
              .params = {Arg("gvar"), Arg("args"), SInfoArgs("out_sinfo"), OptionalArg("tir_vars")},
              .infer = InferCallTIR,
              .summary = "call a TIR kernel in destination-passing style"});
  RegisterOp({.name = "relax.call_tir_inplace",
              .params = {Arg("gvar"), Arg("args"), RequiredAttr("inplace_indices"),
                         SInfoArgs("out_sinfo"), OptionalArg("tir_vars")},
              .infer = InferCallTIRInplace,
              .summary = "call a TIR kernel that writes some outputs into its inputs",
              .complete_attrs = ListifyInts({"inplace_indices"})});
  RegisterOp(
      {.name = "relax.call_tir_with_grad",
       .params = {Arg("gvar"), Arg("args"), SInfoArgs("out_sinfo"), RequiredAttr("te_grad_name"),
                  Attr("te_grad_kwargs", AttrMap{}), OptionalArg("tir_vars")},
       .infer = InferCallTIR,
       .summary = "call a TIR kernel with a registered gradient"});
  RegisterOp({.name = "relax.call_dps_packed",
              .params = {Arg("func"), Arg("args"), SInfoArgs("out_sinfo")},
              .infer = InferOutSInfo,
              .summary = "call a packed function in destination-passing style"});
  RegisterOp({.name = "relax.call_py_func",
              .params = {Arg("func_name"), Arg("args"), SInfoArgs("out_sinfo")},
              .infer = InferOutSInfo,
              .summary = "call a Python function registered with the module"});
  RegisterOp({.name = "relax.call_pure_packed",
              .params = {Arg("func"), Variadic("args"), SInfoArgs()},
              .infer = InferCallPurePacked,
              .summary = "call a packed function known to be pure"});
  RegisterOp(
      {.name = "relax.call_inplace_packed",
       .params = {Arg("func"), Variadic("args"), RequiredAttr("inplace_indices"), SInfoArgs()},
       .infer = InferCallInplacePacked,
       .summary = "call a packed function that mutates some arguments",
       .complete_attrs = ListifyInts({"inplace_indices"})});
  RegisterOp({.name = "relax.call_builtin_with_ctx",
              .params = {Arg("func"), Arg("args"), SInfoArgs()},
              .is_pure = false,
              .infer = InferCallBuiltinWithCtx,
              .summary = "call a VM builtin with the VM context"});
  RegisterOp({.name = "relax.make_closure",
              .params = {Arg("func"), Arg("args")},
              .infer = ReturnObject,
              .summary = "bind a function to captured arguments"});
  RegisterOp({.name = "relax.invoke_closure",
              .params = {Arg("closure"), Arg("args"), SInfoArgs()},
              .is_pure = false,
              .infer = DeclaredResult,
              .summary = "call a closure"});
  RegisterOp({.name = "relax.invoke_pure_closure",
              .params = {Arg("closure"), Arg("args"), SInfoArgs()},
              .infer = DeclaredResult,
              .summary = "call a closure known to be pure"});
  RegisterOp({.name = "relax.null_value",
              .params = {},
              .infer = ReturnObject,
              .summary = "the null object"});
  RegisterOp({.name = "relax.print",
              .params = {Variadic("values"), AtIndex(OptionalArg("format", DefaultStr("")), 0)},
              .is_pure = false,
              .infer = ReturnVoid,
              .summary = "print values at run time with a format string"});
  RegisterOp({.name = "relax.assert_op",
              .params = {Arg("condition"), Variadic("format_args"),
                         AtIndex(OptionalArg("format", DefaultStr("")), 1)},
              .is_pure = false,
              .infer = InferAssert,
              .summary = "fail at run time when a boolean condition is false"});
  RegisterOp({.name = "relax.shape_of",
              .params = {Arg("expr")},
              .infer = InferShapeOf,
              .summary = "the shape of a tensor as a shape value"});
  RegisterOp({.name = "relax.size",
              .params = {Arg("expr")},
              .infer = InferSize,
              .summary = "the number of elements of a tensor"});
  RegisterOp({.name = "relax.tensor_to_shape",
              .params = {Arg("expr")},
              .infer = InferTensorToShape,
              .summary = "convert a 1-d int64 tensor to a shape value"});
  RegisterOp({.name = "relax.shape_to_tensor",
              .params = {Arg("expr")},
              .infer = InferShapeToTensor,
              .summary = "convert a shape value to a 1-d int64 tensor"});
  RegisterOp({.name = "relax.builtin.stop_lift_params",
              .params = {Arg("x")},
              .infer = InferIdentity,
              .summary = "mark a value that LiftTransformParams must not lift"});
  RegisterOp({.name = "relax.to_vdevice",
              .params = {Arg("data"), RequiredAttr("dst_vdevice")},
              .infer = InferToVDevice,
              .summary = "copy a tensor to another virtual device"});
  RegisterOp({.name = "relax.hint_on_device",
              .params = {Arg("data"), RequiredAttr("dst_vdevice"), Attr("memory_scope", "global")},
              .infer = InferTensorIdentity,
              .summary = "hint the device a tensor should live on"});
  RegisterOp({.name = "relax.vm.call_tir_dyn",
              .params = {Arg("func"), Arg("args")},
              .is_pure = false,
              .infer = ReturnVoid,
              .summary = "call a TIR kernel whose last arguments are the output buffers"});
}

}  // namespace pipesplit::ir
