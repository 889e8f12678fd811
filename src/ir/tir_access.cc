// Block access region detection: the regions a TIR block reads and writes, inferred the way
// TVM's parser completes a block written without T.reads / T.writes.
//
// Each index is evaluated to an interval over the loops inside the block (an index that does
// not involve them is a single point and stays as written), accesses of one buffer are merged
// into their hull, and each dimension becomes a range: a point prints as the index itself, an
// unbounded one as the whole dimension.
#include "pipesplit/ir/tir_access.h"

#include <utility>

#include "pipesplit/ir/arith.h"
#include "pipesplit/ir/tir_functor.h"

namespace pipesplit::ir {
namespace {

// [lo, hi], both inclusive; null bounds: unbounded (the whole dimension). A single point has
// lo and hi the same node.
struct Interval {
  PrimExpr lo;
  PrimExpr hi;
  bool everything() const { return lo == nullptr || hi == nullptr; }
  bool point() const { return lo != nullptr && lo == hi; }
};

Interval Point(PrimExpr e) { return {e, e}; }
Interval Everything() { return {}; }

PrimExpr One(const PrimExpr& like) { return IntImm(1, like->dtype()); }

// The smaller (larger) of two bounds: the one a constant difference shows, else T.min (T.max).
PrimExpr Lower(const PrimExpr& a, const PrimExpr& b) {
  if (ExprDeepEqual(a, b)) return a;
  if (auto d = ConstDifference(a, b)) return *d <= 0 ? a : b;
  return Simplify(MakeBinary(BinaryOp::kMin, a, b));
}
PrimExpr Upper(const PrimExpr& a, const PrimExpr& b) {
  if (ExprDeepEqual(a, b)) return a;
  if (auto d = ConstDifference(a, b)) return *d >= 0 ? a : b;
  return Simplify(MakeBinary(BinaryOp::kMax, a, b));
}

Interval Hull(const Interval& a, const Interval& b) {
  if (a.everything() || b.everything()) return Everything();
  if (ExprDeepEqual(a.lo, b.lo) && ExprDeepEqual(a.hi, b.hi)) return a;
  return {Lower(a.lo, b.lo), Upper(a.hi, b.hi)};
}

bool NonNegative(const PrimExpr& e) {
  auto c = AsConstInt(e);
  return c ? *c >= 0 : KnownNonNegative(e);
}

// An interval op'ed with a single point `c` (multiplication, division).
Interval Scale(BinaryOp op, const Interval& a, const PrimExpr& c) {
  auto k = AsConstInt(c);
  if (op == BinaryOp::kMul && k && *k == 0) return Point(c);
  if (k && *k == 1) return a;
  if (k && *k == 0) return Everything();
  if (NonNegative(c)) {
    return {Simplify(MakeBinary(op, a.lo, c)), Simplify(MakeBinary(op, a.hi, c))};
  }
  if (k && *k < 0) {
    return {Simplify(MakeBinary(op, a.hi, c)), Simplify(MakeBinary(op, a.lo, c))};
  }
  return Everything();
}

Interval Combine(BinaryOp op, Interval a, Interval b) {
  if (a.point() && b.point()) return Point(Simplify(MakeBinary(op, a.lo, b.lo)));
  if (a.everything() || b.everything()) return Everything();
  switch (op) {
    case BinaryOp::kAdd:
      return {Add(a.lo, b.lo), Add(a.hi, b.hi)};
    case BinaryOp::kSub:
      return {Sub(a.lo, b.hi), Sub(a.hi, b.lo)};
    case BinaryOp::kMul:
      if (a.point()) std::swap(a, b);
      return b.point() ? Scale(op, a, b.lo) : Everything();
    case BinaryOp::kDiv:
    case BinaryOp::kFloorDiv:
      return b.point() ? Scale(op, a, b.lo) : Everything();
    case BinaryOp::kMod:
    case BinaryOp::kFloorMod: {
      std::optional<int64_t> k;
      if (b.point()) k = AsConstInt(b.lo);
      if (!k || *k <= 0) return Everything();
      if (op == BinaryOp::kFloorMod) {
        // Within one period the remainder is the dividend shifted down.
        PrimExpr q_lo = FloorDiv(a.lo, b.lo), q_hi = FloorDiv(a.hi, b.hi);
        if (ConstDifference(q_lo, q_hi) == 0) {
          PrimExpr shift = Mul(b.lo, q_lo);
          return {Sub(a.lo, shift), Sub(a.hi, shift)};
        }
      }
      return {IntImm(0, b.lo->dtype()), IntImm(*k - 1, b.lo->dtype())};
    }
    case BinaryOp::kMin:
      return {Lower(a.lo, b.lo), Lower(a.hi, b.hi)};
    case BinaryOp::kMax:
      return {Upper(a.lo, b.lo), Upper(a.hi, b.hi)};
    default:
      return Everything();
  }
}

// Statements and index expressions each go through the handler of their kind.
class Detector : private StmtFunctor<void(const StmtNode&)>,
                 private PrimExprFunctor<Interval(const PrimExprNode&, const PrimExpr&)> {
 public:
  explicit Detector(const VisibleBuffers& visible) : visible_(visible) {}

  BlockAccessRegions Run(const BlockNode& block) {
    for (const MatchBufferRegion& m : block.match_buffers()) {
      if (visible_.count(m.source.buffer->data().get())) {
        visible_[m.buffer->data().get()] = m.buffer;
        matched_[m.buffer.get()] = &m;
      }
    }
    for (const IterVar& iv : block.iter_vars()) {
      Expr(iv.dom.min);
      Expr(iv.dom.extent);
    }
    for (const MatchBufferRegion& m : block.match_buffers()) {
      for (const Range& r : m.source.region) {
        Expr(r.min);
        Expr(r.extent);
      }
    }
    if (block.init() != nullptr) Stmt(block.init());
    Stmt(block.body());
    BlockAccessRegions out;
    out.writes = Collect(writes_, {});
    std::vector<const BufferNode*> excluded;
    if (block.init() != nullptr) {
      for (const BufferRegion& w : out.writes) excluded.push_back(w.buffer.get());
    }
    out.reads = Collect(reads_, excluded);
    out.opaque = Collect(opaque_, {});
    return out;
  }

 private:
  struct Access {
    Buffer buffer;
    std::vector<Interval> dims;
  };

  Interval Eval(const PrimExpr& e) { return VisitExpr(*e, e); }

  // Each handler gets the node and its pointer (a point interval is the expression itself).
  Interval VisitExpr_(const IntImmNode&, const PrimExpr& e) override { return Point(e); }
  Interval VisitExpr_(const FloatImmNode&, const PrimExpr&) override { return Everything(); }
  Interval VisitExpr_(const TirVarNode& n, const PrimExpr& e) override {
    auto it = dom_.find(&n);
    return it == dom_.end() ? Point(e) : it->second;
  }
  Interval VisitExpr_(const BinaryNode& n, const PrimExpr& e) override {
    Interval a = Eval(n.a()), b = Eval(n.b());
    if (a.point() && a.lo == n.a() && b.point() && b.lo == n.b()) return Point(e);
    return Combine(n.op(), a, b);
  }
  Interval VisitExpr_(const NotNode&, const PrimExpr&) override { return Everything(); }
  Interval VisitExpr_(const CastNode& n, const PrimExpr& e) override {
    Interval v = Eval(n.value());
    if (v.point()) return v.lo == n.value() ? Point(e) : Point(CastTo(v.lo, e->dtype()));
    if (v.everything()) return v;
    return {CastTo(v.lo, e->dtype()), CastTo(v.hi, e->dtype())};
  }
  Interval VisitExpr_(const SelectNode& n, const PrimExpr&) override {
    return Hull(Eval(n.false_value()), Eval(n.true_value()));
  }
  Interval VisitExpr_(const BufferLoadNode& n, const PrimExpr& e) override {
    bool relaxed = false;
    for (const PrimExpr& i : n.indices()) {
      VisitTirVars(i, [&](const TirVar& v) { relaxed |= dom_.count(v.get()) != 0; });
    }
    return relaxed ? Everything() : Point(e);
  }
  Interval VisitExpr_(const PrimCallNode&, const PrimExpr&) override { return Everything(); }
  Interval VisitExpr_(const TirStringImmNode&, const PrimExpr&) override { return Everything(); }
  Interval VisitExpr_(const LetNode&, const PrimExpr&) override { return Everything(); }

  // An index with the lets in the block substituted (TVM relaxes the bound values).
  PrimExpr Unlet(PrimExpr index) const {
    for (int round = 0; round < 64 && !lets_.empty(); ++round) {
      PrimExpr next = Substitute(index, lets_);
      if (next == index) break;
      index = next;
    }
    return index;
  }

  std::vector<Interval> Indices(const std::vector<PrimExpr>& indices) {
    std::vector<Interval> out;
    for (const PrimExpr& i : indices) out.push_back(Eval(Unlet(i)));
    return out;
  }

  Range Cover(const Interval& iv, const PrimExpr& extent) const {
    if (iv.everything()) return {IntImm(0, extent->dtype()), extent};
    if (iv.point() || ConstDifference(iv.lo, iv.hi) == 0) return {iv.lo, One(iv.lo)};
    PrimExpr size = NormalizeArith(Sub(Add(iv.hi, One(iv.hi)), iv.lo));
    if (auto c = AsConstInt(size)) size = IntImm(*c, iv.lo->dtype());
    return {Simplify(iv.lo), size};
  }

  // A region of a matched buffer, in the coordinates of the buffer it views.
  std::vector<Interval> Unmatch(const MatchBufferRegion& m, const std::vector<Interval>& dims) {
    std::vector<Range> source = m.source.region;
    size_t offset = source.size() >= dims.size() ? source.size() - dims.size() : 0;
    for (size_t i = 0; i < dims.size() && i + offset < source.size(); ++i) {
      Range r = Cover(dims[i], m.buffer->shape()[i]);
      source[i + offset] = {Add(source[i + offset].min, r.min), r.extent};
    }
    std::vector<Interval> out;
    for (const Range& r : source) out.push_back(FromRange(r));
    return out;
  }

  Interval FromRange(const Range& r) {
    if (IsOne(r.extent)) return Eval(r.min);
    Interval lo = Eval(r.min);
    Interval hi = Eval(Sub(Add(r.min, r.extent), One(r.extent)));
    if (lo.everything() || hi.everything()) return Everything();
    return {lo.lo, hi.hi};
  }

  static bool IsOne(const PrimExpr& e) {
    auto c = AsConstInt(e);
    return c && *c == 1;
  }

  void Update(std::vector<Access>* list, Buffer buffer, std::vector<Interval> dims) {
    if (!visible_.count(buffer->data().get())) return;
    auto m = matched_.find(buffer.get());
    if (m != matched_.end()) {
      dims = Unmatch(*m->second, dims);
      buffer = m->second->source.buffer;
    }
    for (Access& a : *list) {
      if (a.buffer != buffer) continue;
      for (size_t j = 0; j < a.dims.size() && j < dims.size(); ++j) {
        a.dims[j] = Hull(a.dims[j], dims[j]);
      }
      return;
    }
    list->push_back({std::move(buffer), std::move(dims)});
  }

  std::vector<BufferRegion> Collect(const std::vector<Access>& list,
                                    const std::vector<const BufferNode*>& excluded) const {
    std::vector<BufferRegion> out;
    for (const Access& a : list) {
      bool skip = false;
      for (const BufferNode* b : excluded) skip |= b == a.buffer.get();
      if (skip) continue;
      BufferRegion region{a.buffer, {}};
      for (size_t j = 0; j < a.dims.size(); ++j) {
        region.region.push_back(Cover(a.dims[j], a.buffer->shape()[j]));
      }
      out.push_back(std::move(region));
    }
    return out;
  }

  void Expr(const PrimExpr& e) {
    if (e == nullptr) return;
    if (const auto* load = As<BufferLoadNode>(e)) {
      Update(&reads_, load->buffer(), Indices(load->indices()));
    } else if (const auto* var = As<TirVarNode>(e)) {
      auto it = visible_.find(var);
      if (it != visible_.end()) {
        std::vector<Interval> all(it->second->shape().size(), Everything());
        Update(&opaque_, it->second, std::move(all));
      }
    }
    ForEachChild(e, [&](const PrimExpr& c) { Expr(c); });
  }

  void Stmt(const ir::Stmt& s) {
    if (s != nullptr) VisitStmt(*s);
  }

  void VisitStmt_(const SeqStmtNode& n) override {
    for (const ir::Stmt& item : n.seq()) Stmt(item);
  }
  void VisitStmt_(const ForNode& n) override {
    Expr(n.min());
    Expr(n.extent());
    dom_[n.loop_var().get()] =
        IsOne(n.extent()) ? Point(n.min())
                          : Interval{n.min(), Sub(Add(n.min(), n.extent()), One(n.extent()))};
    Stmt(n.body());
    dom_.erase(n.loop_var().get());
  }
  void VisitStmt_(const BlockRealizeNode& n) override {
    // A nested block counts by its declared regions, its iter vars bound to their values.
    const BlockNode& inner = *n.block();
    TirVarMap bind;
    for (size_t i = 0; i < inner.iter_vars().size() && i < n.iter_values().size(); ++i) {
      bind[inner.iter_vars()[i].var.get()] = n.iter_values()[i];
    }
    auto relax = [&](const BufferRegion& r, std::vector<Access>* list) {
      std::vector<Interval> dims;
      for (const Range& range : r.region) {
        dims.push_back(FromRange({Substitute(range.min, bind), Substitute(range.extent, bind)}));
      }
      Update(list, r.buffer, std::move(dims));
    };
    for (const BufferRegion& r : inner.reads()) relax(r, &reads_);
    for (const BufferRegion& r : inner.writes()) relax(r, &writes_);
  }
  void VisitStmt_(const BlockNode& n) override {
    Stmt(n.init());
    Stmt(n.body());
  }
  void VisitStmt_(const BufferStoreNode& n) override {
    Update(&writes_, n.buffer(), Indices(n.indices()));
    Expr(n.value());
    for (const PrimExpr& i : n.indices()) Expr(i);
  }
  void VisitStmt_(const LetStmtNode& n) override {
    lets_[n.var().get()] = n.value();
    Expr(n.value());
    Stmt(n.body());
  }
  void VisitStmt_(const IfThenElseNode& n) override {
    Expr(n.cond());
    Stmt(n.then_case());
    Stmt(n.else_case());
  }
  void VisitStmt_(const EvaluateNode& n) override { Expr(n.value()); }
  void VisitStmt_(const AllocateNode& n) override {
    for (const PrimExpr& e : n.extents()) Expr(e);
    Stmt(n.body());
  }
  void VisitStmt_(const DeclBufferNode& n) override { Stmt(n.body()); }
  void VisitStmt_(const AllocBufferNode& n) override { Stmt(n.body()); }
  void VisitStmt_(const AssertStmtNode& n) override { Expr(n.cond()); }
  void VisitStmt_(const WhileNode& n) override {
    Expr(n.cond());
    Stmt(n.body());
  }
  void VisitStmt_(const AttrStmtNode& n) override {
    if (n.target().kind == AttrTarget::Kind::kExpr) Expr(n.target().expr);
    Expr(n.value());
    // A launched thread ranges over [0, extent), as a loop var does.
    const TirVarNode* thread = n.is_thread_launch() ? n.target().var.get() : nullptr;
    if (thread != nullptr) {
      PrimExpr zero = IntImm(0, n.value()->dtype());
      dom_[thread] =
          IsOne(n.value()) ? Point(zero) : Interval{zero, Sub(n.value(), One(n.value()))};
    }
    Stmt(n.body());
    if (thread != nullptr) dom_.erase(thread);
  }

  VisibleBuffers visible_;
  std::unordered_map<const BufferNode*, const MatchBufferRegion*> matched_;
  std::unordered_map<const TirVarNode*, Interval> dom_;
  TirVarMap lets_;
  std::vector<Access> reads_;
  std::vector<Access> writes_;
  std::vector<Access> opaque_;
};

}  // namespace

BlockAccessRegions DetectBlockAccessRegions(const BlockNode& block, const VisibleBuffers& visible) {
  return Detector(visible).Run(block);
}

}  // namespace pipesplit::ir
