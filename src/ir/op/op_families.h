// Registration entry points of the op families (called once, when the table is built) and
// helpers shared by their inference rules.
#ifndef PIPESPLIT_SRC_IR_OP_OP_FAMILIES_H_
#define PIPESPLIT_SRC_IR_OP_OP_FAMILIES_H_

#include <string>
#include <vector>

#include "pipesplit/ir/op.h"

namespace pipesplit::ir {

// call_tir, call_tir_inplace, call_tir_with_grad, call_dps_packed, call_pure_packed,
// call_builtin_with_ctx, print, assert_op, builtin.stop_lift_params, ...
void RegisterBuiltinOps();
// Tensor operators (elementwise, linear algebra, manipulation, reductions, nn, creation).
void RegisterTensorOps();

// ---- Helpers for inference rules ----

// Shorthands for OpParam lists.
OpParam Arg(std::string name);
OpParam OptionalArg(std::string name, AttrValue default_value = AttrValue());
OpParam Variadic(std::string name);
OpParam Attr(std::string name, AttrValue default_value);
OpParam RequiredAttr(std::string name);
OpParam SInfoArgs(std::string name = "sinfo_args");

// Throws InferError(message).
[[noreturn]] void InferFail(std::string message);

// The struct info of argument i, which must exist.
const StructInfo& ArgSInfo(const CallNode& call, size_t i);
// Argument i as a tensor; InferFail naming the op and position otherwise.
const TensorSInfoNode& TensorArg(const CallNode& call, size_t i);

// The result struct info declared by sinfo_args: the single one, or a tuple of several.
StructInfo DeclaredResult(const CallNode& call);

// Short name of the op for messages ("R.add").
std::string OpDisplayName(const CallNode& call);

}  // namespace pipesplit::ir

#endif  // PIPESPLIT_SRC_IR_OP_OP_FAMILIES_H_
