// Recognising and building calls of packed functions (see protocol.h).
#include "pipesplit/ir/protocol.h"

#include <map>

#include "pipesplit/ir/functor.h"
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

size_t CountPackedCalls(const FunctionNode& function, std::string_view symbol) {
  struct Counter : ExprVisitor {
    std::string_view symbol;
    size_t count = 0;
    void VisitExpr_(const CallNode& call) override {
      const ExternFuncNode* callee = As<ExternFuncNode>(call.op());  // R.call_packed("sym", ...)
      if (callee == nullptr) callee = PackedCallee(call);            // a packing op's callee
      if (callee != nullptr && callee->global_symbol() == symbol) ++count;
      ExprVisitor::VisitExpr_(call);
    }
  } counter;
  counter.symbol = symbol;
  counter.VisitExpr(function.body());
  return counter.count;
}

const CallNode* FindDispatchCall(const FunctionNode& func) {
  const auto* seq = As<SeqExprNode>(func.body());
  if (seq == nullptr) return nullptr;
  for (const BindingBlock& block : seq->blocks()) {
    for (const Binding& b : block->bindings()) {
      if (const CallNode* call = IsExternCall(b->value(), protocol::kCallBuiltinWithCtx,
                                              protocol::kDispatchFunctionByGroup)) {
        return call;
      }
    }
  }
  return nullptr;
}

std::optional<std::vector<const TupleNode*>> ReadDispatchTable(const CallNode& dispatch) {
  // call_builtin_with_ctx(kDispatchFunctionByGroup, (table,)) with table = ((stage, args...), ...)
  const auto* args = dispatch.args().size() > 1 ? As<TupleNode>(dispatch.args()[1]) : nullptr;
  const auto* table = args && !args->fields().empty() ? As<TupleNode>(args->fields()[0]) : nullptr;
  if (table == nullptr) return std::nullopt;
  std::vector<const TupleNode*> entries;
  entries.reserve(table->fields().size());
  for (const Expr& e : table->fields()) {
    const auto* entry = As<TupleNode>(e);
    entries.push_back(entry != nullptr && !entry->fields().empty() ? entry : nullptr);
  }
  return entries;
}

std::vector<WeightRead> WeightReadsOf(const FunctionNode& function) {
  if (function.params().empty() ||
      function.params().back()->name_hint() != protocol::kPackedParams) {
    return {};
  }
  struct Finder : ExprVisitor {
    const VarNode* packed;
    std::map<int64_t, StructInfo> found;
    void Add(int64_t index, const StructInfo& sinfo) {
      auto [it, inserted] = found.emplace(index, sinfo);
      if (!inserted && it->second->kind() == NodeKind::kObjectSInfo) it->second = sinfo;
    }
    void VisitExpr_(const TupleGetItemNode& node) override {
      if (node.tuple().get() == packed) Add(node.index(), node.struct_info());
      ExprVisitor::VisitExpr_(node);
    }
    void VisitExpr_(const CallNode& call) override {
      // call_pure_packed("vm.builtin.tuple_getitem", packed_params, i) (pipesplit's stages), or
      // R.call_packed("vm.builtin.tuple_getitem", packed_params, i) (MLC's memory-planned ones).
      size_t first = 0;
      if (IsExternCall(call, protocol::kCallPurePacked, protocol::kTupleGetItem)) {
        first = 1;
      } else if (const auto* callee = As<ExternFuncNode>(call.op());
                 callee == nullptr || callee->global_symbol() != protocol::kTupleGetItem) {
        first = call.args().size();  // neither
      }
      if (call.args().size() == first + 2 && call.args()[first].get() == packed) {
        if (const auto* index = As<PrimValueNode>(call.args()[first + 1])) {
          if (auto i = AsConstInt(index->value())) {
            Add(*i, call.sinfo_args().empty() ? ObjectSInfo() : call.sinfo_args()[0]);
          }
        }
      }
      ExprVisitor::VisitExpr_(call);
    }
  } finder;
  finder.packed = function.params().back().get();
  finder.VisitExpr(function.body());
  std::vector<WeightRead> out;
  for (auto& [index, sinfo] : finder.found) {
    out.push_back({index, sinfo ? sinfo : ObjectSInfo()});
  }
  return out;
}

Call MakeExternCall(std::string_view op_name, std::string symbol, std::vector<Expr> rest,
                    std::vector<StructInfo> sinfo_args, StructInfo sinfo) {
  std::vector<Expr> args;
  args.reserve(rest.size() + 1);
  args.push_back(Make<ExternFuncNode>(std::move(symbol)));
  for (Expr& e : rest) args.push_back(std::move(e));
  return Make<CallNode>(GetOp(op_name), std::move(args), AttrMap{}, std::move(sinfo_args),
                        std::move(sinfo));
}

}  // namespace pipesplit::ir
