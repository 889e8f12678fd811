// The walks behind `tir-compute-inline`'s checks: facts about a whole function, its allocating
// blocks, and the buffer uses of each statement of their sequences.
#include "src/transform/tir_compute_inline_uses.h"

#include <algorithm>
#include <array>

#include "pipesplit/ir/attrs.h"
#include "pipesplit/ir/tir_functor.h"

namespace pipesplit::transform::compute_inline {
namespace {

using ir::PrimExpr;

// Calls `fn` on `e` and each of its subexpressions, in pre-order.
template <typename F>
void ForEachExpr(const PrimExpr& e, F& fn) {
  if (e == nullptr) return;
  fn(e);
  ir::ForEachChild(e, [&](const PrimExpr& child) { ForEachExpr(child, fn); });
}

bool NoAlias(const ir::PrimFuncNode& func) {
  const ir::AttrValue* v = ir::FindAttr(func.attrs(), "tir.noalias");
  if (v == nullptr) v = ir::FindAttr(func.attrs(), "tirx.noalias");
  if (v == nullptr) return false;
  if (const bool* b = v->as_bool()) return *b;
  if (const PrimExpr* e = v->as_prim_expr()) return ir::AsConstInt(*e) == 1;
  return v->ToInt() == 1;
}

class FactCollector : public ir::StmtVisitor {
 public:
  explicit FactCollector(FunctionFacts* facts) : facts_(facts) {}

  void NoteBuffer(const ir::Buffer& b) { facts_->buffers_of_data[b->data().get()].insert(b.get()); }

  void VisitPrimExpr(const PrimExpr& e) override {
    auto note = [this](const PrimExpr& x) {
      if (const auto* v = ir::As<ir::TirVarNode>(x)) {
        facts_->vars_in_exprs.insert(v);
      } else if (const auto* load = ir::As<ir::BufferLoadNode>(x)) {
        NoteBuffer(load->buffer());
      } else if (const auto* let = ir::As<ir::LetNode>(x)) {
        facts_->bound_vars.insert(let->var().get());
      }
    };
    ForEachExpr(e, note);
  }

 protected:
  void VisitStmt_(const ir::ForNode& op) override {
    facts_->bound_vars.insert(op.loop_var().get());
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const ir::BlockNode& op) override {
    for (const ir::IterVar& iv : op.iter_vars()) facts_->bound_vars.insert(iv.var.get());
    for (const ir::BufferRegion& r : op.reads()) NoteBuffer(r.buffer);
    for (const ir::BufferRegion& r : op.writes()) NoteBuffer(r.buffer);
    for (const ir::Buffer& b : op.alloc_buffers()) NoteBuffer(b);
    for (const ir::MatchBufferRegion& m : op.match_buffers()) {
      NoteBuffer(m.buffer);
      NoteBuffer(m.source.buffer);
      facts_->matched_data.insert(m.source.buffer->data().get());
    }
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const ir::BufferStoreNode& op) override {
    NoteBuffer(op.buffer());
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const ir::LetStmtNode& op) override {
    facts_->bound_vars.insert(op.var().get());
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const ir::AllocateNode& op) override {
    facts_->bound_vars.insert(op.buffer_var().get());
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const ir::DeclBufferNode& op) override {
    NoteBuffer(op.buffer());
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const ir::AllocBufferNode& op) override {
    NoteBuffer(op.buffer());
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const ir::AttrStmtNode& op) override {
    const ir::AttrTarget& target = op.target();
    if (target.kind == ir::AttrTarget::Kind::kThread) facts_->bound_vars.insert(target.var.get());
    if (target.kind == ir::AttrTarget::Kind::kCommReducer) {
      for (const ir::TirVar& v : target.reducer->lhs) facts_->bound_vars.insert(v.get());
      for (const ir::TirVar& v : target.reducer->rhs) facts_->bound_vars.insert(v.get());
    }
    StmtVisitor::VisitStmt_(op);
  }

 private:
  FunctionFacts* facts_;
};

class ScopeFinder : public ir::StmtVisitor {
 public:
  ScopeFinder(VarSet params, std::vector<Scope>* scopes)
      : visible_(std::move(params)), scopes_(scopes) {}

 protected:
  void VisitStmt_(const ir::BlockNode& op) override {
    VarSet saved = visible_;
    for (const ir::Buffer& b : op.alloc_buffers()) visible_.insert(b->data().get());
    const auto* seq = ir::As<ir::SeqStmtNode>(op.body());
    if (!op.alloc_buffers().empty() && seq != nullptr && op.init() == nullptr) {
      scopes_->push_back({&op, seq, visible_});
    }
    StmtVisitor::VisitStmt_(op);
    visible_ = std::move(saved);
  }

 private:
  VarSet visible_;
  std::vector<Scope>* scopes_;
};

// Whether a statement holds a block.
class BlockFinder : public ir::StmtVisitor {
 public:
  static bool Contains(const ir::BlockNode& block) {
    BlockFinder finder;
    finder.VisitStmt(block.init());
    finder.VisitStmt(block.body());
    return finder.found_;
  }

 protected:
  void VisitStmt_(const ir::BlockRealizeNode&) override { found_ = true; }

 private:
  bool found_ = false;
};

class UseScanner : public ir::StmtVisitor {
 public:
  explicit UseScanner(StatementUses* uses) : uses_(uses) {}

  void VisitPrimExpr(const PrimExpr& e) override { Walk(e, /*opaque=*/false); }

 protected:
  void VisitStmt_(const ir::BlockRealizeNode& op) override {
    bool saved = in_leaf_;
    in_leaf_ = !BlockFinder::Contains(*op.block());
    StmtVisitor::VisitStmt_(op);
    in_leaf_ = saved;
  }
  void VisitStmt_(const ir::BlockNode& op) override {
    for (const ir::BufferRegion& r : op.reads()) {
      (in_leaf_ ? uses_->leaf_reads : uses_->other_uses).insert(r.buffer->data().get());
    }
    for (const ir::BufferRegion& r : op.writes()) {
      const ir::TirVarNode* data = r.buffer->data().get();
      if (in_leaf_) {
        ++uses_->write_regions[data];
      } else {
        uses_->other_uses.insert(data);
        uses_->opaque_writes.insert(data);
      }
    }
    for (const ir::MatchBufferRegion& m : op.match_buffers()) {
      uses_->other_uses.insert(m.source.buffer->data().get());
      uses_->opaque_writes.insert(m.source.buffer->data().get());
    }
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const ir::BufferStoreNode& op) override {
    const ir::TirVarNode* data = op.buffer()->data().get();
    ++uses_->stores[data];
    if (!in_leaf_) uses_->other_uses.insert(data);
    StmtVisitor::VisitStmt_(op);
  }

 private:
  void Walk(const PrimExpr& e, bool opaque) {
    if (e == nullptr) return;
    if (const auto* load = ir::As<ir::BufferLoadNode>(e)) {
      const ir::TirVarNode* data = load->buffer()->data().get();
      if (in_leaf_ && !opaque) {
        uses_->leaf_loads[data].push_back(load);
      } else {
        uses_->other_uses.insert(data);
      }
    }
    const auto* call = ir::As<ir::PrimCallNode>(e);
    const bool child_opaque = opaque || (call != nullptr && !IsPureIntrinsic(call->name()));
    ir::ForEachChild(e, [&](const PrimExpr& child) { Walk(child, child_opaque); });
  }

  StatementUses* uses_;
  bool in_leaf_ = false;
};

}  // namespace

bool IsPureIntrinsic(std::string_view name) {
  static constexpr std::array<std::string_view, 52> kPure = {
      "abs",      "acos",       "acosh",       "asin",         "asinh",       "atan",
      "atan2",    "atanh",      "bitwise_and", "bitwise_not",  "bitwise_or",  "bitwise_xor",
      "ceil",     "clz",        "copysign",    "cos",          "cosh",        "erf",
      "exp",      "exp10",      "exp2",        "fabs",         "floor",       "floordiv",
      "floormod", "fmod",       "hypot",       "if_then_else", "isfinite",    "isinf",
      "isnan",    "ldexp",      "likely",      "log",          "log10",       "log1p",
      "log2",     "nearbyint",  "nextafter",   "pow",          "reinterpret", "round",
      "rsqrt",    "shift_left", "shift_right", "sigmoid",      "sin",         "sinh",
      "sqrt",     "tan",        "tanh",        "trunc"};
  return std::find(kPure.begin(), kPure.end(), name) != kPure.end();
}

FunctionFacts CollectFunctionFacts(const ir::PrimFuncNode& func) {
  FunctionFacts facts;
  facts.noalias = NoAlias(func);
  FactCollector collector(&facts);
  for (const auto& [param, buffer] : func.buffer_map()) {
    collector.NoteBuffer(buffer);
    facts.param_data.insert(buffer->data().get());
  }
  collector.VisitStmt(func.body());
  return facts;
}

std::vector<Scope> FindScopes(const ir::PrimFuncNode& func) {
  VarSet params;
  for (const auto& [param, buffer] : func.buffer_map()) params.insert(buffer->data().get());
  std::vector<Scope> scopes;
  ScopeFinder finder(std::move(params), &scopes);
  finder.VisitStmt(func.body());
  return scopes;
}

bool StatementUses::Mentions(const ir::TirVarNode* data) const {
  return leaf_loads.count(data) != 0 || leaf_reads.count(data) != 0 ||
         other_uses.count(data) != 0 || stores.count(data) != 0 || write_regions.count(data) != 0;
}

bool StatementUses::Writes(const ir::TirVarNode* data) const {
  return stores.count(data) != 0 || write_regions.count(data) != 0 ||
         opaque_writes.count(data) != 0;
}

StatementUses ScanStatement(const ir::Stmt& stmt) {
  StatementUses uses;
  UseScanner scanner(&uses);
  scanner.VisitStmt(stmt);
  return uses;
}

}  // namespace pipesplit::transform::compute_inline
