// Visitors and mutators over Relax expressions.
//
// ExprVisitor walks an expression tree; override the VisitExpr_ overloads for the node kinds
// you care about and call the base to keep walking. ExprMutator rebuilds a tree bottom-up and
// returns the very same node when nothing below it changed (like Halide's IRMutator), so
// callers can test `result == input` to learn whether anything happened. Uses of a Var are
// rewritten through var_remap_; definitions go through VisitVarDef, which makes a new Var
// (and records the remap) only when the var's struct info changes.
//
// Rebuilt nodes keep their struct info, passed through VisitStructInfo. A pass that changes
// what values are (rather than renaming or substituting symbols) should re-normalize its
// output with a BlockBuilder.
#ifndef PIPESPLIT_IR_FUNCTOR_H_
#define PIPESPLIT_IR_FUNCTOR_H_

#include <unordered_map>

#include "pipesplit/ir/expr.h"

namespace pipesplit::ir {

class ExprVisitor {
 public:
  virtual ~ExprVisitor() = default;

  virtual void VisitExpr(const Expr& expr);
  virtual void VisitBinding(const Binding& binding);
  virtual void VisitBindingBlock(const BindingBlock& block);
  // Called for every Var definition: function params and binding vars.
  virtual void VisitVarDef(const Var& var);
  // Called for the struct info of definitions, match_cast targets, sinfo_args and function
  // return types. The default visits their PrimExprs.
  virtual void VisitStructInfo(const StructInfo& sinfo);
  virtual void VisitPrimExpr(const PrimExpr& expr) {}

 protected:
  virtual void VisitExpr_(const VarNode& node) {}
  virtual void VisitExpr_(const GlobalVarNode& node) {}
  virtual void VisitExpr_(const ConstantNode& node) {}
  virtual void VisitExpr_(const TupleNode& node);
  virtual void VisitExpr_(const TupleGetItemNode& node);
  virtual void VisitExpr_(const ShapeExprNode& node);
  virtual void VisitExpr_(const PrimValueNode& node);
  virtual void VisitExpr_(const StringImmNode& node) {}
  virtual void VisitExpr_(const DataTypeImmNode& node) {}
  virtual void VisitExpr_(const OpNode& node) {}
  virtual void VisitExpr_(const ExternFuncNode& node) {}
  virtual void VisitExpr_(const CallNode& node);
  virtual void VisitExpr_(const IfNode& node);
  virtual void VisitExpr_(const SeqExprNode& node);
  virtual void VisitExpr_(const FunctionNode& node);
  virtual void VisitExpr_(const PrimFuncNode& node) {}
};

class ExprMutator {
 public:
  virtual ~ExprMutator() = default;

  virtual Expr VisitExpr(const Expr& expr);
  // Returns the same binding when neither its var nor its value changed.
  virtual Binding VisitBinding(const Binding& binding);
  virtual BindingBlock VisitBindingBlock(const BindingBlock& block);
  virtual Var VisitVarDef(const Var& var);
  virtual StructInfo VisitStructInfo(const StructInfo& sinfo);
  virtual PrimExpr VisitPrimExpr(const PrimExpr& expr) { return expr; }

 protected:
  virtual Expr VisitExpr_(const Ptr<VarNode>& node);
  virtual Expr VisitExpr_(const Ptr<GlobalVarNode>& node) { return node; }
  virtual Expr VisitExpr_(const Ptr<ConstantNode>& node) { return node; }
  virtual Expr VisitExpr_(const Ptr<TupleNode>& node);
  virtual Expr VisitExpr_(const Ptr<TupleGetItemNode>& node);
  virtual Expr VisitExpr_(const Ptr<ShapeExprNode>& node);
  virtual Expr VisitExpr_(const Ptr<PrimValueNode>& node);
  virtual Expr VisitExpr_(const Ptr<StringImmNode>& node) { return node; }
  virtual Expr VisitExpr_(const Ptr<DataTypeImmNode>& node) { return node; }
  virtual Expr VisitExpr_(const Ptr<OpNode>& node) { return node; }
  virtual Expr VisitExpr_(const Ptr<ExternFuncNode>& node) { return node; }
  virtual Expr VisitExpr_(const Ptr<CallNode>& node);
  virtual Expr VisitExpr_(const Ptr<IfNode>& node);
  virtual Expr VisitExpr_(const Ptr<SeqExprNode>& node);
  virtual Expr VisitExpr_(const Ptr<FunctionNode>& node);
  virtual Expr VisitExpr_(const Ptr<PrimFuncNode>& node) { return node; }

  // Uses of the key var are replaced by the value.
  std::unordered_map<const VarNode*, Var> var_remap_;
};

}  // namespace pipesplit::ir

#endif  // PIPESPLIT_IR_FUNCTOR_H_
