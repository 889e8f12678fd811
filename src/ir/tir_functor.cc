// The default walks of StmtVisitor and StmtMutator.
#include "pipesplit/ir/tir_functor.h"

#include <utility>

namespace pipesplit::ir {

// ---- StmtVisitor ----

void StmtVisitor::VisitRegion(const BufferRegion& region) {
  for (const Range& range : region.region) {
    VisitPrimExpr(range.min);
    VisitPrimExpr(range.extent);
  }
}

void StmtVisitor::VisitStmt_(const ForNode& op) {
  VisitPrimExpr(op.min());
  VisitPrimExpr(op.extent());
  VisitStmt(op.body());
}

void StmtVisitor::VisitStmt_(const BlockNode& op) {
  for (const IterVar& iv : op.iter_vars()) {
    VisitPrimExpr(iv.dom.min);
    VisitPrimExpr(iv.dom.extent);
  }
  for (const BufferRegion& r : op.reads()) VisitRegion(r);
  for (const BufferRegion& r : op.writes()) VisitRegion(r);
  for (const MatchBufferRegion& m : op.match_buffers()) VisitRegion(m.source);
  VisitStmt(op.init());
  VisitStmt(op.body());
}

void StmtVisitor::VisitStmt_(const BlockRealizeNode& op) {
  for (const PrimExpr& v : op.iter_values()) VisitPrimExpr(v);
  VisitPrimExpr(op.predicate());
  if (op.block() != nullptr) VisitStmt(*op.block());
}

void StmtVisitor::VisitStmt_(const SeqStmtNode& op) {
  for (const Stmt& s : op.seq()) VisitStmt(s);
}

void StmtVisitor::VisitStmt_(const BufferStoreNode& op) {
  VisitPrimExpr(op.value());
  for (const PrimExpr& i : op.indices()) VisitPrimExpr(i);
}

void StmtVisitor::VisitStmt_(const LetStmtNode& op) {
  VisitPrimExpr(op.value());
  VisitStmt(op.body());
}

void StmtVisitor::VisitStmt_(const IfThenElseNode& op) {
  VisitPrimExpr(op.cond());
  VisitStmt(op.then_case());
  VisitStmt(op.else_case());
}

void StmtVisitor::VisitStmt_(const EvaluateNode& op) { VisitPrimExpr(op.value()); }

void StmtVisitor::VisitStmt_(const AllocateNode& op) {
  for (const PrimExpr& e : op.extents()) VisitPrimExpr(e);
  VisitStmt(op.body());
}

void StmtVisitor::VisitStmt_(const DeclBufferNode& op) { VisitStmt(op.body()); }

void StmtVisitor::VisitStmt_(const AssertStmtNode& op) { VisitPrimExpr(op.cond()); }

void StmtVisitor::VisitStmt_(const WhileNode& op) {
  VisitPrimExpr(op.cond());
  VisitStmt(op.body());
}

void StmtVisitor::VisitStmt_(const AttrStmtNode& op) {
  const AttrTarget& target = op.target();
  if (target.kind == AttrTarget::Kind::kExpr) VisitPrimExpr(target.expr);
  if (target.kind == AttrTarget::Kind::kCommReducer) {
    for (const PrimExpr& e : target.reducer->result) VisitPrimExpr(e);
    for (const PrimExpr& e : target.reducer->identity) VisitPrimExpr(e);
  }
  VisitPrimExpr(op.value());
  VisitStmt(op.body());
}

void StmtVisitor::VisitStmt_(const AllocBufferNode& op) { VisitStmt(op.body()); }

// ---- StmtMutator ----

std::vector<PrimExpr> StmtMutator::VisitPrimExprs(const std::vector<PrimExpr>& exprs,
                                                  bool* changed) {
  std::vector<PrimExpr> out;
  out.reserve(exprs.size());
  for (const PrimExpr& e : exprs) {
    out.push_back(VisitPrimExpr(e));
    *changed |= out.back() != e;
  }
  return out;
}

BufferRegion StmtMutator::VisitRegion(const BufferRegion& region, bool* changed) {
  BufferRegion out{region.buffer, {}};
  out.region.reserve(region.region.size());
  for (const Range& range : region.region) {
    Range r{VisitPrimExpr(range.min), VisitPrimExpr(range.extent)};
    *changed |= r.min != range.min || r.extent != range.extent;
    out.region.push_back(std::move(r));
  }
  return out;
}

Stmt StmtMutator::VisitStmt_(const ForNode& op, const Stmt& self) {
  PrimExpr min = VisitPrimExpr(op.min());
  PrimExpr extent = VisitPrimExpr(op.extent());
  Stmt body = VisitStmt(op.body());
  if (min == op.min() && extent == op.extent() && body == op.body()) return self;
  return Make<ForNode>(op.loop_var(), std::move(min), std::move(extent), op.for_kind(),
                       std::move(body), op.thread_tag(), op.annotations(), op.span());
}

Stmt StmtMutator::VisitStmt_(const BlockNode& op, const Stmt& self) {
  bool changed = false;
  BlockNode::Fields f{op.name_hint(),     op.iter_vars(),   {},     {}, nullptr, op.alloc_buffers(),
                      op.match_buffers(), op.annotations(), nullptr};
  for (IterVar& iv : f.iter_vars) {
    Range dom{VisitPrimExpr(iv.dom.min), VisitPrimExpr(iv.dom.extent)};
    changed |= dom.min != iv.dom.min || dom.extent != iv.dom.extent;
    iv.dom = std::move(dom);
  }
  for (const BufferRegion& r : op.reads()) f.reads.push_back(VisitRegion(r, &changed));
  for (const BufferRegion& r : op.writes()) f.writes.push_back(VisitRegion(r, &changed));
  for (MatchBufferRegion& m : f.match_buffers) m.source = VisitRegion(m.source, &changed);
  f.init = VisitStmt(op.init());
  f.body = VisitStmt(op.body());
  if (!changed && f.init == op.init() && f.body == op.body()) return self;
  return Make<BlockNode>(std::move(f), op.span());
}

Stmt StmtMutator::VisitStmt_(const BlockRealizeNode& op, const Stmt& self) {
  bool changed = false;
  std::vector<PrimExpr> values = VisitPrimExprs(op.iter_values(), &changed);
  PrimExpr predicate = VisitPrimExpr(op.predicate());
  Stmt block = VisitStmt(Stmt(op.block()));
  if (!changed && predicate == op.predicate() && block == op.block()) return self;
  Block new_block = Cast<BlockNode>(block);
  PS_CHECK(new_block != nullptr) << "a block realize's block was rewritten to a non-block";
  return Make<BlockRealizeNode>(std::move(values), std::move(predicate), std::move(new_block),
                                op.span());
}

Stmt StmtMutator::VisitStmt_(const SeqStmtNode& op, const Stmt& self) {
  std::vector<Stmt> seq;
  seq.reserve(op.seq().size());
  bool changed = false;
  for (const Stmt& s : op.seq()) {
    seq.push_back(VisitStmt(s));
    changed |= seq.back() != s;
  }
  if (!changed) return self;
  return Make<SeqStmtNode>(std::move(seq), op.span());
}

Stmt StmtMutator::VisitStmt_(const BufferStoreNode& op, const Stmt& self) {
  PrimExpr value = VisitPrimExpr(op.value());
  bool changed = value != op.value();
  std::vector<PrimExpr> indices = VisitPrimExprs(op.indices(), &changed);
  if (!changed) return self;
  return Make<BufferStoreNode>(op.buffer(), std::move(value), std::move(indices), op.span());
}

Stmt StmtMutator::VisitStmt_(const LetStmtNode& op, const Stmt& self) {
  PrimExpr value = VisitPrimExpr(op.value());
  Stmt body = VisitStmt(op.body());
  if (value == op.value() && body == op.body()) return self;
  return Make<LetStmtNode>(op.var(), std::move(value), std::move(body), op.span());
}

Stmt StmtMutator::VisitStmt_(const IfThenElseNode& op, const Stmt& self) {
  PrimExpr cond = VisitPrimExpr(op.cond());
  Stmt then_case = VisitStmt(op.then_case());
  Stmt else_case = VisitStmt(op.else_case());
  if (cond == op.cond() && then_case == op.then_case() && else_case == op.else_case()) {
    return self;
  }
  return Make<IfThenElseNode>(std::move(cond), std::move(then_case), std::move(else_case),
                              op.span());
}

Stmt StmtMutator::VisitStmt_(const EvaluateNode& op, const Stmt& self) {
  PrimExpr value = VisitPrimExpr(op.value());
  if (value == op.value()) return self;
  return Make<EvaluateNode>(std::move(value), op.span());
}

Stmt StmtMutator::VisitStmt_(const AllocateNode& op, const Stmt& self) {
  bool changed = false;
  std::vector<PrimExpr> extents = VisitPrimExprs(op.extents(), &changed);
  Stmt body = VisitStmt(op.body());
  if (!changed && body == op.body()) return self;
  return Make<AllocateNode>(op.buffer_var(), op.dtype(), std::move(extents), op.scope(),
                            std::move(body), op.span());
}

Stmt StmtMutator::VisitStmt_(const DeclBufferNode& op, const Stmt& self) {
  Stmt body = VisitStmt(op.body());
  if (body == op.body()) return self;
  return Make<DeclBufferNode>(op.buffer(), std::move(body), op.span());
}

Stmt StmtMutator::VisitStmt_(const AssertStmtNode& op, const Stmt& self) {
  PrimExpr cond = VisitPrimExpr(op.cond());
  if (cond == op.cond()) return self;
  return Make<AssertStmtNode>(std::move(cond), op.error_kind(), op.message_parts(), op.span());
}

Stmt StmtMutator::VisitStmt_(const WhileNode& op, const Stmt& self) {
  PrimExpr cond = VisitPrimExpr(op.cond());
  Stmt body = VisitStmt(op.body());
  if (cond == op.cond() && body == op.body()) return self;
  return Make<WhileNode>(std::move(cond), std::move(body), op.span());
}

Stmt StmtMutator::VisitStmt_(const AttrStmtNode& op, const Stmt& self) {
  AttrTarget target = op.target();
  bool changed = false;
  if (target.kind == AttrTarget::Kind::kExpr) {
    target.expr = VisitPrimExpr(op.target().expr);
    changed |= target.expr != op.target().expr;
  }
  if (target.kind == AttrTarget::Kind::kCommReducer) {
    CommReducer reducer = *op.target().reducer;
    reducer.result = VisitPrimExprs(reducer.result, &changed);
    reducer.identity = VisitPrimExprs(reducer.identity, &changed);
    if (changed) target.reducer = std::make_shared<const CommReducer>(std::move(reducer));
  }
  PrimExpr value = VisitPrimExpr(op.value());
  Stmt body = VisitStmt(op.body());
  if (!changed && value == op.value() && body == op.body()) return self;
  return Make<AttrStmtNode>(std::move(target), op.attr_key(), std::move(value), std::move(body),
                            op.span());
}

Stmt StmtMutator::VisitStmt_(const AllocBufferNode& op, const Stmt& self) {
  Stmt body = VisitStmt(op.body());
  if (body == op.body()) return self;
  return Make<AllocBufferNode>(op.buffer(), std::move(body), op.span());
}

}  // namespace pipesplit::ir
