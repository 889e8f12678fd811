// The cost model's reading of TIR kernels (see cost_model.h): FLOPs of a prim function from its
// loop nests. Each block executes once per iteration of the loops around it (its spatial x
// reduction iterations); each execution costs the arithmetic of the values its body stores.
#include "pipesplit/analysis/cost_model.h"
#include "pipesplit/ir/arith.h"
#include "pipesplit/ir/tir_functor.h"

namespace pipesplit::analysis {

using namespace ir;  // NOLINT: IR node names throughout

namespace {

// Arithmetic operations in a stored value: binary arithmetic and intrinsic calls (exp, sqrt,
// ...) count one each; loads (and their index arithmetic), casts and selects count nothing.
class ValueOpCounter : public PrimExprFunctor<int64_t(const PrimExprNode&)> {
 public:
  int64_t Count(const PrimExpr& e) { return e ? VisitExpr(*e) : 0; }

 private:
  int64_t VisitExpr_(const IntImmNode&) override { return 0; }
  int64_t VisitExpr_(const FloatImmNode&) override { return 0; }
  int64_t VisitExpr_(const TirVarNode&) override { return 0; }
  int64_t VisitExpr_(const BufferLoadNode&) override { return 0; }
  int64_t VisitExpr_(const BinaryNode& b) override { return 1 + Count(b.a()) + Count(b.b()); }
  int64_t VisitExpr_(const NotNode& n) override { return Count(n.a()); }
  int64_t VisitExpr_(const CastNode& n) override { return Count(n.value()); }
  int64_t VisitExpr_(const SelectNode& n) override {
    return Count(n.cond()) + Count(n.true_value()) + Count(n.false_value());
  }
  int64_t VisitExpr_(const PrimCallNode& c) override {
    int64_t ops = c.name() == "if_then_else" ? 0 : 1;
    for (const PrimExpr& a : c.args()) ops += Count(a);
    return ops;
  }
  int64_t VisitExpr_(const TirStringImmNode&) override { return 0; }
  int64_t VisitExpr_(const LetNode& n) override { return Count(n.value()) + Count(n.body()); }
};

// The FLOPs of a statement executed `trips` times; false when an extent is unknown.
class FlopCounter : public StmtFunctor<bool(const StmtNode&, int64_t)> {
 public:
  FlopCounter(const TirVarMap& values, const ShapeBounds& bounds)
      : values_(values), bounds_(bounds) {}

  // Adds the FLOPs of `stmt` executed `trips` times; false when an extent is unknown.
  bool Visit(const Stmt& stmt, int64_t trips) { return !stmt || VisitStmt(*stmt, trips); }

  int64_t flops() const { return flops_; }

 private:
  bool VisitStmt_(const ForNode& loop, int64_t trips) override {
    std::optional<int64_t> extent = bounds_.Eval(loop.extent(), values_);
    if (!extent) return false;
    return Visit(loop.body(), trips * std::max<int64_t>(*extent, 0));
  }
  bool VisitStmt_(const BlockRealizeNode& realize, int64_t trips) override {
    return Visit(realize.block(), trips);
  }
  bool VisitStmt_(const BlockNode& block, int64_t trips) override {
    return Visit(block.body(), trips);
  }
  bool VisitStmt_(const SeqStmtNode& seq, int64_t trips) override {
    for (const Stmt& s : seq.seq()) {
      if (!Visit(s, trips)) return false;
    }
    return true;
  }
  bool VisitStmt_(const BufferStoreNode& store, int64_t trips) override {
    flops_ += trips * ValueOpCounter().Count(store.value());
    return true;
  }
  bool VisitStmt_(const LetStmtNode& let, int64_t trips) override {
    return Visit(let.body(), trips);
  }
  bool VisitStmt_(const IfThenElseNode& branch, int64_t trips) override {
    // Both branches counted: an upper bound.
    return Visit(branch.then_case(), trips) && Visit(branch.else_case(), trips);
  }
  bool VisitStmt_(const EvaluateNode&, int64_t) override { return true; }
  bool VisitStmt_(const AllocateNode& alloc, int64_t trips) override {
    return Visit(alloc.body(), trips);
  }
  bool VisitStmt_(const DeclBufferNode& decl, int64_t trips) override {
    return Visit(decl.body(), trips);
  }
  bool VisitStmt_(const AllocBufferNode& alloc, int64_t trips) override {
    return Visit(alloc.body(), trips);
  }
  bool VisitStmt_(const AssertStmtNode&, int64_t) override { return true; }
  // A while loop runs an unknown number of times.
  bool VisitStmt_(const WhileNode&, int64_t) override { return false; }
  bool VisitStmt_(const AttrStmtNode& attr, int64_t trips) override {
    if (!attr.is_thread_launch()) return Visit(attr.body(), trips);
    // A launched thread axis multiplies the trips as a loop does.
    std::optional<int64_t> extent = bounds_.Eval(attr.value(), values_);
    if (!extent) return false;
    return Visit(attr.body(), trips * std::max<int64_t>(*extent, 0));
  }

  const TirVarMap& values_;
  const ShapeBounds& bounds_;
  int64_t flops_ = 0;
};

}  // namespace

std::optional<int64_t> CostModel::KernelFlops(const PrimFunc& func, const TirVarMap& values,
                                              const ShapeBounds& bounds) {
  FlopCounter counter(values, bounds);
  if (!counter.Visit(func->body(), 1)) return std::nullopt;
  return counter.flops();
}

}  // namespace pipesplit::analysis
