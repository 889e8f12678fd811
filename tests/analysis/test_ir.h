// Helpers for building Relax IR by hand in the analysis tests: short constructors with explicit
// struct info, calls typed through the op table, and synthetic source spans ("hand.py:L:C") so
// diagnostics on hand-built IR can be located exactly.
#ifndef PIPESPLIT_TESTS_ANALYSIS_TEST_IR_H_
#define PIPESPLIT_TESTS_ANALYSIS_TEST_IR_H_

#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pipesplit/ir/block_builder.h"
#include "pipesplit/ir/module.h"
#include "pipesplit/ir/op.h"
#include "pipesplit/support/source.h"

namespace pipesplit::analysis::testing {

using namespace ir;  // NOLINT: test shorthand

// A span at line:col of a synthetic 60-line file, so Describe() gives "hand.py:line:col".
inline Span At(uint32_t line, uint32_t col) {
  static const SourceFile& file = [] {
    std::string text;
    for (int i = 0; i < 60; ++i) text += std::string(79, ' ') + "\n";
    return std::cref(SourceManager::Global().Add("hand.py", text));
  }();
  uint32_t offset = file.OffsetOf({line, col});
  return {file.id(), offset, offset + 1};
}

inline std::string Where(Span span) { return SourceManager::Global().Describe(span); }

inline StructInfo F32(std::vector<PrimExpr> shape) {
  return TensorSInfo(std::move(shape), DataType::Float(32));
}
inline StructInfo F32(std::initializer_list<int64_t> dims) {
  std::vector<PrimExpr> shape;
  for (int64_t d : dims) shape.push_back(IntImm(d));
  return F32(std::move(shape));
}

inline Var V(std::string name, StructInfo sinfo, Span span = {}) {
  return MakeVar(std::move(name), std::move(sinfo), false, span);
}
inline Var DV(std::string name, StructInfo sinfo, Span span = {}) {
  return MakeVar(std::move(name), std::move(sinfo), true, span);
}

// A call with its struct info inferred through the op table (or given).
inline Expr CallOp(const std::string& op, std::vector<Expr> args, AttrMap attrs = {},
                   std::vector<StructInfo> sinfo_args = {}, Span span = {}) {
  auto call = ir::Make<CallNode>(GetOp(op), std::move(args), std::move(attrs),
                                 std::move(sinfo_args), nullptr, span);
  BlockBuilder bb;
  return bb.Normalize(call);
}
inline Expr CallWith(Expr callee, std::vector<Expr> args, StructInfo sinfo, AttrMap attrs = {},
                     std::vector<StructInfo> sinfo_args = {}, Span span = {}) {
  return ir::Make<CallNode>(std::move(callee), std::move(args), std::move(attrs),
                            std::move(sinfo_args), std::move(sinfo), span);
}
inline Expr Add(Expr a, Expr b, Span span = {}) {
  return CallOp("relax.add", {std::move(a), std::move(b)}, {}, {}, span);
}

inline Binding Bind(Var var, Expr value, Span span = {}) {
  return ir::Make<VarBindingNode>(std::move(var), std::move(value), span);
}
inline Binding MatchCastTo(Var var, Expr value, StructInfo sinfo, Span span = {}) {
  return ir::Make<MatchCastNode>(std::move(var), std::move(value), std::move(sinfo), span);
}
inline BindingBlock Block(std::vector<Binding> bindings, Span span = {}) {
  return ir::Make<BindingBlockNode>(std::move(bindings), false, span);
}
inline BindingBlock Dataflow(std::vector<Binding> bindings, Span span = {}) {
  return ir::Make<BindingBlockNode>(std::move(bindings), true, span);
}
inline Expr Seq(std::vector<BindingBlock> blocks, Expr body, Span span = {}) {
  StructInfo sinfo = body ? body->struct_info() : nullptr;
  return ir::Make<SeqExprNode>(std::move(blocks), std::move(body), sinfo, span);
}
inline Expr Tuple(std::vector<Expr> fields, Span span = {}) {
  std::vector<StructInfo> sinfo;
  for (const Expr& f : fields) sinfo.push_back(f->struct_info());
  return ir::Make<TupleNode>(std::move(fields), TupleSInfo(std::move(sinfo)), span);
}

// A function whose return struct info is its body's unless given.
inline Function Func(std::vector<Var> params, Expr body, StructInfo ret = nullptr,
                     bool is_pure = true, AttrMap attrs = {}, Span span = {}) {
  if (ret == nullptr && body) ret = body->struct_info();
  return ir::Make<FunctionNode>(std::move(params), std::move(body), std::move(ret), is_pure,
                                std::move(attrs), span);
}

inline GlobalVar GV(const std::string& name, const Expr& func) {
  return ir::Make<GlobalVarNode>(name, func ? func->struct_info() : nullptr);
}

// A module of (name, function) members; each gets its own GlobalVar.
inline IRModule Module(std::vector<std::pair<std::string, Expr>> members) {
  IRModule mod;
  for (auto& [name, func] : members) mod.Add(GV(name, func), func);
  return mod;
}

}  // namespace pipesplit::analysis::testing

#endif  // PIPESPLIT_TESTS_ANALYSIS_TEST_IR_H_
