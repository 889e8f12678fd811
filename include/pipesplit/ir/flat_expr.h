// Flat Relax expressions: the vars, leaves, tuples, tuple items and calls that almost every
// binding of a model is made of (`lv = R.call_tir(f, (x, w), ...)`). The walks that run once
// per binding in the pipeline rewrite (var uses, symbolic vars, a stage's rewrite) take them
// through VisitFlat, a switch without virtual calls, and hand the rest (branches, nested
// functions and sequences) to a full visitor.
#ifndef PIPESPLIT_IR_FLAT_EXPR_H_
#define PIPESPLIT_IR_FLAT_EXPR_H_

#include "pipesplit/ir/expr.h"
#include "pipesplit/support/check.h"

namespace pipesplit::ir {

// Calls the member of `w` for the kind of `e` and returns what it returns:
//   w.Leaf(e)                        a global var, constant, string or dtype immediate, op or
//                                    extern function: no Var, no symbolic var, no children
//   w.Var(const VarNode&, e)         a use of a Var or DataflowVar
//   w.PrimValue(const PrimValueNode&, e), w.ShapeExpr(const ShapeExprNode&, e)
//                                    PrimExprs only: symbolic vars, never a Var
//   w.Tuple(const TupleNode&, e), w.TupleGetItem(const TupleGetItemNode&, e),
//   w.Call(const CallNode&, e)       the flat nodes with children
//   w.Nested(e)                      an If, SeqExpr, Function or PrimFunc
// The one switch over the Relax expression kinds of these walks: a new kind fails to compile
// here until it is given its place.
template <typename W>
decltype(auto) VisitFlat(const Expr& e, W&& w) {
  switch (e->kind()) {
    case NodeKind::kGlobalVar:
    case NodeKind::kConstant:
    case NodeKind::kStringImm:
    case NodeKind::kDataTypeImm:
    case NodeKind::kOp:
    case NodeKind::kExternFunc:
      return w.Leaf(e);
    case NodeKind::kVar:
    case NodeKind::kDataflowVar:
      return w.Var(static_cast<const VarNode&>(*e), e);
    case NodeKind::kPrimValue:
      return w.PrimValue(static_cast<const PrimValueNode&>(*e), e);
    case NodeKind::kShapeExpr:
      return w.ShapeExpr(static_cast<const ShapeExprNode&>(*e), e);
    case NodeKind::kTuple:
      return w.Tuple(static_cast<const TupleNode&>(*e), e);
    case NodeKind::kTupleGetItem:
      return w.TupleGetItem(static_cast<const TupleGetItemNode&>(*e), e);
    case NodeKind::kCall:
      return w.Call(static_cast<const CallNode&>(*e), e);
    case NodeKind::kIf:
    case NodeKind::kSeqExpr:
    case NodeKind::kFunction:
    case NodeKind::kPrimFunc:
      return w.Nested(e);
    PIPESPLIT_KINDS_OUTSIDE_EXPR:
      break;  // an Expr has a Relax expression kind
  }
  PS_UNREACHABLE();
}

// Walks `e` through VisitFlat in evaluation order: a tuple's fields, a tuple item's tuple, a
// call's op then its args and then `w.AfterCall(call)`. Calls `w.OnVar(var)` for each var use,
// `w.OnPrims(e)` for each PrimValue and ShapeExpr and `w.OnNested(e)` for each branch or nested
// function or sequence; leaves are passed over.
template <typename W>
void ForEachFlat(const Expr& e, W& w) {
  struct Walk {
    W& w;
    void Leaf(const Expr&) {}
    void Var(const VarNode& var, const Expr&) { w.OnVar(var); }
    void PrimValue(const PrimValueNode&, const Expr& e) { w.OnPrims(e); }
    void ShapeExpr(const ShapeExprNode&, const Expr& e) { w.OnPrims(e); }
    void Tuple(const TupleNode& tuple, const Expr&) {
      for (const Expr& field : tuple.fields()) VisitFlat(field, *this);
    }
    void TupleGetItem(const TupleGetItemNode& item, const Expr&) { VisitFlat(item.tuple(), *this); }
    void Call(const CallNode& call, const Expr&) {
      VisitFlat(call.op(), *this);
      for (const Expr& arg : call.args()) VisitFlat(arg, *this);
      w.AfterCall(call);
    }
    void Nested(const Expr& e) { w.OnNested(e); }
  };
  Walk walk{w};
  VisitFlat(e, walk);
}

}  // namespace pipesplit::ir

#endif  // PIPESPLIT_IR_FLAT_EXPR_H_
