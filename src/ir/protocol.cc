// Recognising and building calls of packed functions (see protocol.h).
#include "pipesplit/ir/protocol.h"

#include "pipesplit/ir/op.h"

namespace pipesplit::ir {

const ExternFuncNode* PackedCallee(const CallNode& call) {
  return call.args().empty() ? nullptr : As<ExternFuncNode>(call.args()[0]);
}

bool IsExternCall(const CallNode& call, std::string_view op_name, std::string_view symbol) {
  if (!call.IsOp(op_name)) return false;
  const ExternFuncNode* callee = PackedCallee(call);
  return callee != nullptr && callee->global_symbol() == symbol;
}

const CallNode* IsExternCall(const Expr& expr, std::string_view op_name, std::string_view symbol) {
  const auto* call = As<CallNode>(expr);
  return call != nullptr && IsExternCall(*call, op_name, symbol) ? call : nullptr;
}

const CallNode* IsExternCall(const Expr& expr, std::string_view symbol) {
  const auto* call = As<CallNode>(expr);
  if (call == nullptr) return nullptr;
  const auto* callee = As<ExternFuncNode>(call->op());
  return callee != nullptr && callee->global_symbol() == symbol ? call : nullptr;
}

Call MakeExternCall(std::string_view op_name, std::string symbol, std::vector<Expr> rest,
                    std::vector<StructInfo> sinfo_args, StructInfo sinfo) {
  std::vector<Expr> args;
  args.reserve(rest.size() + 1);
  args.push_back(std::make_shared<const ExternFuncNode>(std::move(symbol)));
  for (Expr& e : rest) args.push_back(std::move(e));
  return std::make_shared<const CallNode>(GetOp(op_name), std::move(args), AttrMap{},
                                          std::move(sinfo_args), std::move(sinfo));
}

}  // namespace pipesplit::ir
