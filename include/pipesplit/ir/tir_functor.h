// Functors over TIR statements and scalar expressions (PrimExprs).
//
// DispatchStmt and DispatchPrimExpr are the only switches over the kinds of their family, each
// without a `default:`. On them:
//
// - StmtFunctor<R(const StmtNode&, Args...)> and PrimExprFunctor<R(const PrimExprNode&,
//   Args...)> declare one pure virtual VisitStmt_ / VisitExpr_ per kind. A class that must
//   decide what each kind means (hashing, equality, checking, printing, code generation, cost)
//   derives from them and overrides every handler, so a new kind, once its case and handler
//   are added here, is a compile error ("abstract type") in each of those classes.
// - StmtVisitor walks a statement tree (children in field order), StmtMutator rebuilds one and
//   returns the very same node when nothing below it changed; a walker overrides only the
//   kinds it cares about and calls the base handler to keep walking.
//
// Handlers receive the node by reference. A handler that needs the shared pointer takes it as
// an extra argument (as StmtMutator does: `VisitStmt_(const ForNode& op, const Stmt& self)`).
#ifndef PIPESPLIT_IR_TIR_FUNCTOR_H_
#define PIPESPLIT_IR_TIR_FUNCTOR_H_

#include <utility>
#include <vector>

#include "pipesplit/ir/prim_expr.h"
#include "pipesplit/ir/tir.h"
#include "pipesplit/support/check.h"

namespace pipesplit::ir {

// Calls `f` with `stmt` as its node class (`f(static_cast<const ForNode&>(stmt))`, ...) and
// returns what it returns. The one switch over statement kinds.
template <typename F>
decltype(auto) DispatchStmt(const StmtNode& stmt, F&& f) {
  switch (stmt.kind()) {
    case NodeKind::kFor:
      return f(static_cast<const ForNode&>(stmt));
    case NodeKind::kBlock:
      return f(static_cast<const BlockNode&>(stmt));
    case NodeKind::kBlockRealize:
      return f(static_cast<const BlockRealizeNode&>(stmt));
    case NodeKind::kSeqStmt:
      return f(static_cast<const SeqStmtNode&>(stmt));
    case NodeKind::kBufferStore:
      return f(static_cast<const BufferStoreNode&>(stmt));
    case NodeKind::kLetStmt:
      return f(static_cast<const LetStmtNode&>(stmt));
    case NodeKind::kIfThenElse:
      return f(static_cast<const IfThenElseNode&>(stmt));
    case NodeKind::kEvaluate:
      return f(static_cast<const EvaluateNode&>(stmt));
    case NodeKind::kAllocate:
      return f(static_cast<const AllocateNode&>(stmt));
    case NodeKind::kDeclBuffer:
      return f(static_cast<const DeclBufferNode&>(stmt));
    case NodeKind::kAssertStmt:
      return f(static_cast<const AssertStmtNode&>(stmt));
    case NodeKind::kWhile:
      return f(static_cast<const WhileNode&>(stmt));
    case NodeKind::kAttrStmt:
      return f(static_cast<const AttrStmtNode&>(stmt));
    case NodeKind::kAllocBuffer:
      return f(static_cast<const AllocBufferNode&>(stmt));
    PIPESPLIT_KINDS_OUTSIDE_STMT:
      break;  // a StmtNode has a statement kind
  }
  PS_UNREACHABLE();
}

// The same over PrimExpr kinds.
template <typename F>
decltype(auto) DispatchPrimExpr(const PrimExprNode& expr, F&& f) {
  switch (expr.kind()) {
    case NodeKind::kIntImm:
      return f(static_cast<const IntImmNode&>(expr));
    case NodeKind::kFloatImm:
      return f(static_cast<const FloatImmNode&>(expr));
    case NodeKind::kTirVar:
      return f(static_cast<const TirVarNode&>(expr));
    case NodeKind::kBinary:
      return f(static_cast<const BinaryNode&>(expr));
    case NodeKind::kNot:
      return f(static_cast<const NotNode&>(expr));
    case NodeKind::kCast:
      return f(static_cast<const CastNode&>(expr));
    case NodeKind::kSelect:
      return f(static_cast<const SelectNode&>(expr));
    case NodeKind::kBufferLoad:
      return f(static_cast<const BufferLoadNode&>(expr));
    case NodeKind::kPrimCall:
      return f(static_cast<const PrimCallNode&>(expr));
    case NodeKind::kTirStringImm:
      return f(static_cast<const TirStringImmNode&>(expr));
    case NodeKind::kLet:
      return f(static_cast<const LetNode&>(expr));
    PIPESPLIT_KINDS_OUTSIDE_PRIM_EXPR:
      break;  // a PrimExprNode has a PrimExpr kind
  }
  PS_UNREACHABLE();
}

template <typename FType>
class StmtFunctor;

template <typename R, typename... Args>
class StmtFunctor<R(const StmtNode&, Args...)> {
 public:
  virtual ~StmtFunctor() = default;

  // Calls the handler of `stmt`'s kind.
  R VisitStmt(const StmtNode& stmt, Args... args) {
    return DispatchStmt(
        stmt, [&](const auto& node) -> R { return VisitStmt_(node, std::forward<Args>(args)...); });
  }

 protected:
  virtual R VisitStmt_(const ForNode& op, Args... args) = 0;
  virtual R VisitStmt_(const BlockNode& op, Args... args) = 0;
  virtual R VisitStmt_(const BlockRealizeNode& op, Args... args) = 0;
  virtual R VisitStmt_(const SeqStmtNode& op, Args... args) = 0;
  virtual R VisitStmt_(const BufferStoreNode& op, Args... args) = 0;
  virtual R VisitStmt_(const LetStmtNode& op, Args... args) = 0;
  virtual R VisitStmt_(const IfThenElseNode& op, Args... args) = 0;
  virtual R VisitStmt_(const EvaluateNode& op, Args... args) = 0;
  virtual R VisitStmt_(const AllocateNode& op, Args... args) = 0;
  virtual R VisitStmt_(const DeclBufferNode& op, Args... args) = 0;
  virtual R VisitStmt_(const AssertStmtNode& op, Args... args) = 0;
  virtual R VisitStmt_(const WhileNode& op, Args... args) = 0;
  virtual R VisitStmt_(const AttrStmtNode& op, Args... args) = 0;
  virtual R VisitStmt_(const AllocBufferNode& op, Args... args) = 0;
};

template <typename FType>
class PrimExprFunctor;

template <typename R, typename... Args>
class PrimExprFunctor<R(const PrimExprNode&, Args...)> {
 public:
  virtual ~PrimExprFunctor() = default;

  // Calls the handler of `expr`'s kind.
  R VisitExpr(const PrimExprNode& expr, Args... args) {
    return DispatchPrimExpr(
        expr, [&](const auto& node) -> R { return VisitExpr_(node, std::forward<Args>(args)...); });
  }

 protected:
  virtual R VisitExpr_(const IntImmNode& op, Args... args) = 0;
  virtual R VisitExpr_(const FloatImmNode& op, Args... args) = 0;
  virtual R VisitExpr_(const TirVarNode& op, Args... args) = 0;
  virtual R VisitExpr_(const BinaryNode& op, Args... args) = 0;
  virtual R VisitExpr_(const NotNode& op, Args... args) = 0;
  virtual R VisitExpr_(const CastNode& op, Args... args) = 0;
  virtual R VisitExpr_(const SelectNode& op, Args... args) = 0;
  virtual R VisitExpr_(const BufferLoadNode& op, Args... args) = 0;
  virtual R VisitExpr_(const PrimCallNode& op, Args... args) = 0;
  virtual R VisitExpr_(const TirStringImmNode& op, Args... args) = 0;
  virtual R VisitExpr_(const LetNode& op, Args... args) = 0;
};

// Walks statements: each handler visits the node's expressions (through VisitPrimExpr) and
// statements in field order. Expressions: a loop's min and extent; a realize's iter values and
// predicate; a block's iter var domains, read and write regions and matched source regions; a
// store's value then indices; a let's value; a condition; an evaluated value; an allocation's
// extents; an assert's condition; an attribute's expression target (or a reducer's results and
// identities) then its value. Defined vars and buffers are not visited.
class StmtVisitor : public StmtFunctor<void(const StmtNode&)> {
 public:
  using StmtFunctor::VisitStmt;
  // Visits `stmt` unless it is null (an absent else branch or T.init()).
  void VisitStmt(const Stmt& stmt) {
    if (stmt != nullptr) VisitStmt(*stmt);
  }
  // Called for each expression a statement holds. The default does nothing.
  virtual void VisitPrimExpr(const PrimExpr& expr) {}

 protected:
  void VisitStmt_(const ForNode& op) override;
  void VisitStmt_(const BlockNode& op) override;
  void VisitStmt_(const BlockRealizeNode& op) override;
  void VisitStmt_(const SeqStmtNode& op) override;
  void VisitStmt_(const BufferStoreNode& op) override;
  void VisitStmt_(const LetStmtNode& op) override;
  void VisitStmt_(const IfThenElseNode& op) override;
  void VisitStmt_(const EvaluateNode& op) override;
  void VisitStmt_(const AllocateNode& op) override;
  void VisitStmt_(const DeclBufferNode& op) override;
  void VisitStmt_(const AssertStmtNode& op) override;
  void VisitStmt_(const WhileNode& op) override;
  void VisitStmt_(const AttrStmtNode& op) override;
  void VisitStmt_(const AllocBufferNode& op) override;

  void VisitRegion(const BufferRegion& region);
};

// Rebuilds statements bottom-up, visiting what StmtVisitor visits in the same order; a node
// none of whose children changed is returned as is (`self`), so `result == input` tells
// whether anything happened. Rebuilt nodes keep their span.
class StmtMutator : public StmtFunctor<Stmt(const StmtNode&, const Stmt&)> {
 public:
  // The rewritten `stmt`; null stays null.
  Stmt VisitStmt(const Stmt& stmt) {
    return stmt != nullptr ? StmtFunctor::VisitStmt(*stmt, stmt) : stmt;
  }
  // Called for each expression a statement holds. The default returns it unchanged.
  virtual PrimExpr VisitPrimExpr(const PrimExpr& expr) { return expr; }

 protected:
  Stmt VisitStmt_(const ForNode& op, const Stmt& self) override;
  Stmt VisitStmt_(const BlockNode& op, const Stmt& self) override;
  Stmt VisitStmt_(const BlockRealizeNode& op, const Stmt& self) override;
  Stmt VisitStmt_(const SeqStmtNode& op, const Stmt& self) override;
  Stmt VisitStmt_(const BufferStoreNode& op, const Stmt& self) override;
  Stmt VisitStmt_(const LetStmtNode& op, const Stmt& self) override;
  Stmt VisitStmt_(const IfThenElseNode& op, const Stmt& self) override;
  Stmt VisitStmt_(const EvaluateNode& op, const Stmt& self) override;
  Stmt VisitStmt_(const AllocateNode& op, const Stmt& self) override;
  Stmt VisitStmt_(const DeclBufferNode& op, const Stmt& self) override;
  Stmt VisitStmt_(const AssertStmtNode& op, const Stmt& self) override;
  Stmt VisitStmt_(const WhileNode& op, const Stmt& self) override;
  Stmt VisitStmt_(const AttrStmtNode& op, const Stmt& self) override;
  Stmt VisitStmt_(const AllocBufferNode& op, const Stmt& self) override;

  // Each expression through VisitPrimExpr; sets *changed when one changed.
  std::vector<PrimExpr> VisitPrimExprs(const std::vector<PrimExpr>& exprs, bool* changed);
  BufferRegion VisitRegion(const BufferRegion& region, bool* changed);
};

}  // namespace pipesplit::ir

#endif  // PIPESPLIT_IR_TIR_FUNCTOR_H_
