// The cost model's reading of TIR kernels (see cost_model.h): FLOPs of a prim function from its
// loop nests. Each block executes once per iteration of the loops around it (its spatial x
// reduction iterations); each execution costs the arithmetic of the values its body stores.
#include "pipesplit/analysis/cost_model.h"
#include "pipesplit/ir/arith.h"

namespace pipesplit::analysis {

using namespace ir;  // NOLINT: IR node names throughout

namespace {

// Arithmetic operations in a stored value: binary arithmetic and intrinsic calls (exp, sqrt,
// ...) count one each; loads (and their index arithmetic), casts and selects count nothing.
int64_t ValueOps(const PrimExpr& e) {
  if (!e) return 0;
  switch (e->kind()) {
    case NodeKind::kBufferLoad:
    case NodeKind::kIntImm:
    case NodeKind::kFloatImm:
    case NodeKind::kTirVar:
      return 0;
    case NodeKind::kBinary: {
      const auto* b = static_cast<const BinaryNode*>(e.get());
      return 1 + ValueOps(b->a()) + ValueOps(b->b());
    }
    case NodeKind::kPrimCall: {
      const auto* c = static_cast<const PrimCallNode*>(e.get());
      int64_t ops = c->name() == "if_then_else" ? 0 : 1;
      for (const PrimExpr& a : c->args()) ops += ValueOps(a);
      return ops;
    }
    default: {
      int64_t ops = 0;
      ForEachChild(e, [&](const PrimExpr& child) { ops += ValueOps(child); });
      return ops;
    }
  }
}

class FlopCounter {
 public:
  FlopCounter(const TirVarMap& values, const ShapeBounds& bounds)
      : values_(values), bounds_(bounds) {}

  // Adds the FLOPs of `stmt` executed `trips` times; false when an extent is unknown.
  bool Visit(const Stmt& stmt, int64_t trips) {
    if (!stmt) return true;
    switch (stmt->kind()) {
      case NodeKind::kFor: {
        const auto* loop = static_cast<const ForNode*>(stmt.get());
        std::optional<int64_t> extent = bounds_.Eval(loop->extent(), values_);
        if (!extent) return false;
        return Visit(loop->body(), trips * std::max<int64_t>(*extent, 0));
      }
      case NodeKind::kBlockRealize:
        return Visit(static_cast<const BlockRealizeNode*>(stmt.get())->block(), trips);
      case NodeKind::kBlock: {
        const auto* block = static_cast<const BlockNode*>(stmt.get());
        return Visit(block->body(), trips);
      }
      case NodeKind::kSeqStmt:
        for (const Stmt& s : static_cast<const SeqStmtNode*>(stmt.get())->seq()) {
          if (!Visit(s, trips)) return false;
        }
        return true;
      case NodeKind::kBufferStore:
        flops_ += trips * ValueOps(static_cast<const BufferStoreNode*>(stmt.get())->value());
        return true;
      case NodeKind::kLetStmt:
        return Visit(static_cast<const LetStmtNode*>(stmt.get())->body(), trips);
      case NodeKind::kIfThenElse: {
        // Both branches counted: an upper bound.
        const auto* branch = static_cast<const IfThenElseNode*>(stmt.get());
        return Visit(branch->then_case(), trips) && Visit(branch->else_case(), trips);
      }
      case NodeKind::kAllocate:
        return Visit(static_cast<const AllocateNode*>(stmt.get())->body(), trips);
      case NodeKind::kDeclBuffer:
        return Visit(static_cast<const DeclBufferNode*>(stmt.get())->body(), trips);
      default:
        return true;
    }
  }

  int64_t flops() const { return flops_; }

 private:
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
