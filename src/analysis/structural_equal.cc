// Structural equality of IR modulo renaming (tvm.ir.structural_equal), with the first difference
// reported as a path and a rendering of both sides.
//
// Vars are paired at their definitions (params, binding vars, match_cast targets) and every later
// use must agree with the pairing, one-to-one in both directions. Symbolic TirVars are paired at
// their first occurrence inside a defining position (the struct info of a definition, a
// match_cast target, a callable's params), or anywhere when free vars may be mapped. The walk
// order is the one StructuralHash uses, so equal structures hash alike.
#include "pipesplit/analysis/structural_equal.h"

#include "pipesplit/script/printer.h"
#include "pipesplit/support/check.h"
#include "src/analysis/structural_comparer.h"
#include "src/analysis/structural_tir.h"

namespace pipesplit::analysis {
namespace structural {

bool Comparer::VarDefEq(const Var& l, const Var& r) {
  if (l == nullptr || r == nullptr) return l == r ? true : Fail(Expr(l), Expr(r));
  if (l->kind() != r->kind()) return Fail(Expr(l), Expr(r));
  {
    Step step(this, ".struct_info");
    if (!SInfoEq(l->struct_info(), r->struct_info(), true)) return false;
  }
  auto it = var_l2r_.find(l.get());
  auto rit = var_r2l_.find(r.get());
  if (it != var_l2r_.end() || rit != var_r2l_.end()) {
    if (it != var_l2r_.end() && it->second == r.get()) return true;
    return Fail(script::PrintShort(l) + " (defined again)", script::PrintShort(r));
  }
  var_l2r_.emplace(l.get(), r.get());
  var_r2l_.emplace(r.get(), l.get());
  return true;
}

bool Comparer::VarUseEq(const VarNode* l, const VarNode* r) {
  auto it = var_l2r_.find(l);
  if (it != var_l2r_.end()) return it->second == r;
  if (var_r2l_.count(r) != 0) return false;
  if (l->kind() != r->kind()) return false;
  if (!map_free_vars_) {
    if (l != r) return false;
  } else if (!SInfoEq(l->struct_info(), r->struct_info(), true)) {
    return false;
  }
  var_l2r_.emplace(l, r);
  var_r2l_.emplace(r, l);
  return true;
}

bool Comparer::ConstantEq(const Expr& l, const Expr& r) {
  const auto& a = static_cast<const ConstantNode&>(*l);
  const auto& b = static_cast<const ConstantNode&>(*r);
  if (a.is_metadata() != b.is_metadata()) return Fail(l, r);
  if (a.metadata_index() != b.metadata_index()) {
    Step step(this, ".metadata_index");
    return Fail(std::to_string(a.metadata_index()), std::to_string(b.metadata_index()));
  }
  if (!a.is_metadata()) {
    if (a.dtype() != b.dtype()) {
      Step step(this, ".dtype");
      return Fail(a.dtype().ToString(), b.dtype().ToString());
    }
    auto scalar_eq = [](const ConstantNode::Scalar& x, const ConstantNode::Scalar& y) {
      if (x.index() != y.index()) return false;
      if (const auto* f = std::get_if<double>(&x)) return FloatEqual(*f, std::get<double>(y));
      return x == y;
    };
    bool same = a.is_tensor() == b.is_tensor() && a.shape() == b.shape() &&
                scalar_eq(a.scalar(), b.scalar());
    for (size_t i = 0; same && i < a.elements().size(); ++i) {
      same = scalar_eq(a.elements()[i], b.elements()[i]);
    }
    if (!same) {
      Step step(this, ".value");
      return Fail(l, r);
    }
  }
  return true;
}

bool Comparer::CallEq(const CallNode& a, const CallNode& b) {
  {
    Step step(this, ".op");
    if (!ExprEq(a.op(), b.op())) return false;
  }
  if (!SeqEq(
          ".args", a.args(), b.args(), [&](const Expr& x, const Expr& y) { return ExprEq(x, y); },
          [](const Expr& x) { return script::PrintShort(x); })) {
    return false;
  }
  {
    Step step(this, ".attrs");
    bool saved = in_op_attrs_;
    in_op_attrs_ = a.op_node() != nullptr;
    bool same = AttrsEq(CanonicalizeCallAttrs(a), CanonicalizeCallAttrs(b));
    in_op_attrs_ = saved;
    if (!same) return false;
  }
  return SeqEq(
      ".sinfo_args", a.sinfo_args(), b.sinfo_args(),
      [&](const StructInfo& x, const StructInfo& y) { return SInfoEq(x, y, false); },
      [](const StructInfo& x) { return script::PrintShort(x); });
}

bool Comparer::BindingEq(const Binding& l, const Binding& r) {
  if (l == nullptr || r == nullptr || l->kind() != r->kind()) {
    if (l == r) return true;
    return difference_ ? Fail(script::PrintShort(l), script::PrintShort(r)) : false;
  }
  // A function bound to a var may call itself through it: define the var first then.
  bool var_first = l->value() && l->value()->kind() == NodeKind::kFunction;
  if (var_first) {
    Step step(this, ".var");
    if (!VarDefEq(l->var(), r->var())) return false;
  }
  {
    Step step(this, ".value");
    if (!ExprEq(l->value(), r->value())) return false;
  }
  if (const auto* mc = As<MatchCastNode>(l)) {
    Step step(this, ".struct_info");
    if (!SInfoEq(mc->struct_info(), static_cast<const MatchCastNode&>(*r).struct_info(), true)) {
      return false;
    }
  }
  if (!var_first) {
    Step step(this, ".var");
    if (!VarDefEq(l->var(), r->var())) return false;
  }
  return true;
}

bool Comparer::BlockEq(const BindingBlock& l, const BindingBlock& r) {
  if (l == nullptr || r == nullptr || l->is_dataflow() != r->is_dataflow()) {
    return l == r ? true : Fail(script::PrintShort(l), script::PrintShort(r));
  }
  return SeqEq(
      ".bindings", l->bindings(), r->bindings(),
      [&](const Binding& x, const Binding& y) { return BindingEq(x, y); },
      [](const Binding& x) { return script::PrintShort(x); });
}

bool Comparer::FunctionEq(const FunctionNode& a, const FunctionNode& b) {
  const bool outer = in_function_;
  in_function_ = true;
  const bool equal = FunctionBodyEq(a, b);
  in_function_ = outer;
  return equal;
}

bool Comparer::FunctionBodyEq(const FunctionNode& a, const FunctionNode& b) {
  if (!SeqEq(
          ".params", a.params(), b.params(),
          [&](const Var& x, const Var& y) { return VarDefEq(x, y); },
          [](const Var& x) {
            return script::PrintShort(x) + ": " +
                   script::PrintShort(x ? x->struct_info() : nullptr);
          })) {
    return false;
  }
  {
    Step step(this, ".ret_struct_info");
    if (!SInfoEq(a.ret_struct_info(), b.ret_struct_info(), false)) return false;
  }
  if (a.is_pure() != b.is_pure()) {
    Step step(this, ".is_pure");
    return FailBool(a.is_pure(), b.is_pure());
  }
  {
    Step step(this, ".attrs");
    if (!AttrsEq(CanonicalizeAttrs(a.attrs()), CanonicalizeAttrs(b.attrs()))) return false;
  }
  Step step(this, ".body");
  return ExprEq(a.body(), b.body());
}

bool Comparer::ExprEq(const Expr& l, const Expr& r) {
  if (l == nullptr || r == nullptr) return l == r ? true : Fail(l, r);
  DepthGuard guard(&depth_);
  if (guard.too_deep()) return Fail("<nesting too deep>", "<nesting too deep>");
  if (l->kind() != r->kind()) return Fail(l, r);
  switch (l->kind()) {
    case NodeKind::kVar:
    case NodeKind::kDataflowVar: {
      const auto* a = static_cast<const VarNode*>(l.get());
      const auto* b = static_cast<const VarNode*>(r.get());
      if (VarUseEq(a, b)) return true;
      if (difference_ == nullptr) return false;
      std::string rhs = script::PrintShort(r);
      if (a->name_hint() == b->name_hint()) rhs += " (a different variable)";
      return Fail(script::PrintShort(l), rhs);
    }
    case NodeKind::kGlobalVar:
      return static_cast<const GlobalVarNode&>(*l).name_hint() ==
                     static_cast<const GlobalVarNode&>(*r).name_hint()
                 ? true
                 : Fail(l, r);
    case NodeKind::kConstant:
      return ConstantEq(l, r) && ExprSInfoEq(l, r);
    case NodeKind::kTuple:
      return SeqEq(
                 ".fields", static_cast<const TupleNode&>(*l).fields(),
                 static_cast<const TupleNode&>(*r).fields(),
                 [&](const Expr& x, const Expr& y) { return ExprEq(x, y); },
                 [](const Expr& x) { return script::PrintShort(x); }) &&
             ExprSInfoEq(l, r);
    case NodeKind::kTupleGetItem: {
      const auto& a = static_cast<const TupleGetItemNode&>(*l);
      const auto& b = static_cast<const TupleGetItemNode&>(*r);
      {
        Step step(this, ".tuple");
        if (!ExprEq(a.tuple(), b.tuple())) return false;
      }
      if (a.index() != b.index()) {
        Step step(this, ".index");
        return Fail(std::to_string(a.index()), std::to_string(b.index()));
      }
      return ExprSInfoEq(l, r);
    }
    case NodeKind::kShapeExpr:
      return SeqEq(
          ".values", static_cast<const ShapeExprNode&>(*l).values(),
          static_cast<const ShapeExprNode&>(*r).values(),
          [&](const PrimExpr& x, const PrimExpr& y) { return PrimEq(x, y, false); },
          [](const PrimExpr& x) { return script::PrintShort(x); });
    case NodeKind::kPrimValue: {
      Step step(this, ".value");
      return PrimEq(static_cast<const PrimValueNode&>(*l).value(),
                    static_cast<const PrimValueNode&>(*r).value(), false);
    }
    case NodeKind::kStringImm:
      return static_cast<const StringImmNode&>(*l).value() ==
                     static_cast<const StringImmNode&>(*r).value()
                 ? true
                 : Fail(l, r);
    case NodeKind::kDataTypeImm:
      return static_cast<const DataTypeImmNode&>(*l).value() ==
                     static_cast<const DataTypeImmNode&>(*r).value()
                 ? true
                 : Fail(l, r);
    case NodeKind::kOp:
      return static_cast<const OpNode&>(*l).name() == static_cast<const OpNode&>(*r).name()
                 ? true
                 : Fail(l, r);
    case NodeKind::kExternFunc:
      if (static_cast<const ExternFuncNode&>(*l).global_symbol() !=
          static_cast<const ExternFuncNode&>(*r).global_symbol()) {
        return Fail(l, r);
      }
      return ExprSInfoEq(l, r);
    case NodeKind::kCall:
      return CallEq(static_cast<const CallNode&>(*l), static_cast<const CallNode&>(*r)) &&
             ExprSInfoEq(l, r);
    case NodeKind::kIf: {
      const auto& a = static_cast<const IfNode&>(*l);
      const auto& b = static_cast<const IfNode&>(*r);
      {
        Step step(this, ".cond");
        if (!ExprEq(a.cond(), b.cond())) return false;
      }
      {
        Step step(this, ".true_branch");
        if (!ExprEq(a.true_branch(), b.true_branch())) return false;
      }
      {
        Step step(this, ".false_branch");
        if (!ExprEq(a.false_branch(), b.false_branch())) return false;
      }
      return ExprSInfoEq(l, r);
    }
    case NodeKind::kSeqExpr: {
      const auto& a = static_cast<const SeqExprNode&>(*l);
      const auto& b = static_cast<const SeqExprNode&>(*r);
      if (!SeqEq(
              ".blocks", a.blocks(), b.blocks(),
              [&](const BindingBlock& x, const BindingBlock& y) { return BlockEq(x, y); },
              [](const BindingBlock& x) { return script::PrintShort(x); })) {
        return false;
      }
      {
        Step step(this, ".body");
        if (!ExprEq(a.body(), b.body())) return false;
      }
      return ExprSInfoEq(l, r);
    }
    case NodeKind::kFunction:
      return FunctionEq(static_cast<const FunctionNode&>(*l), static_cast<const FunctionNode&>(*r));
    case NodeKind::kPrimFunc: {
      const auto& a = static_cast<const PrimFuncNode&>(*l);
      const auto& b = static_cast<const PrimFuncNode&>(*r);
      if (a.is_private() != b.is_private()) {
        Step step(this, ".is_private");
        return FailBool(a.is_private(), b.is_private());
      }
      // TIR compares structurally modulo renaming; a difference is shown on the printed text.
      if (a.name() != b.name() || TirCanonicalForm(a) != TirCanonicalForm(b)) {
        Step step(this, ".text");
        std::string ta = script::PrintExpr(l), tb = script::PrintExpr(r);
        if (ta == tb) return Fail("TIR " + a.name(), "TIR " + b.name() + " (same text)");
        return Fail(FirstDifferingLine(ta, tb, true), FirstDifferingLine(ta, tb, false));
      }
      return true;
    }
    PIPESPLIT_KINDS_OUTSIDE_EXPR:
      PS_UNREACHABLE();
  }
  return false;
}

}  // namespace structural

using structural::Comparer;
using namespace ir;  // NOLINT: IR node names

std::string StructuralDifference::ToString() const { return path + ": " + lhs + " vs " + rhs; }

bool StructuralEqual(const IRModule& lhs, const IRModule& rhs, StructuralDifference* difference) {
  Comparer comparer(/*map_free_vars=*/false, difference);
  for (const IRModule::Member& member : lhs.members()) {
    const std::string& name = member.gvar->name_hint();
    const IRModule::Member* other = rhs.Find(name);
    if (other == nullptr)
      return comparer.FailAt(name, script::PrintShort(member.func), "<missing>");
    comparer.Reset();
    comparer.SetRoot(name);
    if (!comparer.ExprEq(member.func, other->func)) return false;
  }
  for (const IRModule::Member& member : rhs.members()) {
    const std::string& name = member.gvar->name_hint();
    if (lhs.Find(name) == nullptr) {
      return comparer.FailAt(name, "<missing>", script::PrintShort(member.func));
    }
  }
  comparer.Reset();
  comparer.SetRoot("attrs");
  if (!comparer.AttrsEq(CanonicalizeAttrs(lhs.attrs()), CanonicalizeAttrs(rhs.attrs()))) {
    return false;
  }
  comparer.SetRoot("global_infos");
  return comparer.AttrsEq(CanonicalizeAttrs(lhs.global_infos()),
                          CanonicalizeAttrs(rhs.global_infos()));
}

bool StructuralEqual(const Expr& lhs, const Expr& rhs, bool map_free_vars,
                     StructuralDifference* difference) {
  Comparer comparer(map_free_vars, difference);
  return comparer.ExprEq(lhs, rhs);
}

bool StructuralEqual(const StructInfo& lhs, const StructInfo& rhs, bool map_free_vars,
                     StructuralDifference* difference) {
  Comparer comparer(map_free_vars, difference);
  return comparer.SInfoEq(lhs, rhs, false);
}

}  // namespace pipesplit::analysis
