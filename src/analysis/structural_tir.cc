// Canonical form of TIR functions for structural equality and hashing modulo renaming.
#include "src/analysis/structural_tir.h"

#include <bit>
#include <cstring>
#include <unordered_map>

#include "pipesplit/ir/tir_functor.h"

namespace pipesplit::analysis {
namespace {

using ir::PrimExpr;

// Each statement and expression kind is serialized by its own handler (no fallback: a kind
// this misses would give distinct kernels one canonical form).
class Canonicalizer : private ir::StmtFunctor<void(const ir::StmtNode&)>,
                      private ir::PrimExprFunctor<void(const ir::PrimExprNode&)> {
 public:
  std::string Run(const ir::PrimFuncNode& f) {
    Tag('F');
    Str(f.name());
    Int(f.is_private());
    Int(static_cast<int64_t>(f.params().size()));
    for (const ir::TirVar& p : f.params()) {
      Var(*p);
      const ir::Buffer* b = f.BufferOf(p.get());
      Int(b != nullptr);
      if (b != nullptr) Buffer(**b);
    }
    Attrs(f.attrs());
    Stmt(f.body());
    return std::move(out_);
  }

 private:
  void Tag(char c) { out_ += c; }
  void Int(int64_t v) {
    char buf[sizeof(v)];
    std::memcpy(buf, &v, sizeof(v));
    out_.append(buf, sizeof(v));
  }
  void Str(const std::string& s) {
    Int(static_cast<int64_t>(s.size()));
    out_ += s;
  }
  void DType(DataType t) { Str(t.ToString()); }

  // Vars and buffers: an index by first occurrence (with the dtype / fields on first sight).
  void Var(const ir::TirVarNode& v) {
    auto [it, fresh] = vars_.emplace(&v, static_cast<int64_t>(vars_.size()));
    Tag(fresh ? 'v' : 'V');
    Int(it->second);
    if (fresh) {
      DType(v.dtype());
      Int(v.is_size_var());
    }
  }
  void Buffer(const ir::BufferNode& b) {
    auto [it, fresh] = buffers_.emplace(&b, static_cast<int64_t>(buffers_.size()));
    Tag(fresh ? 'b' : 'B');
    Int(it->second);
    if (!fresh) return;
    Var(*b.data());
    DType(b.dtype());
    Str(b.scope());
    Exprs(b.shape());
    Exprs(b.strides());
    Expr(b.elem_offset());
    Int(b.layout().offset_factor);
    Int(b.layout().data_alignment);
  }

  void Exprs(const std::vector<PrimExpr>& es) {
    Int(static_cast<int64_t>(es.size()));
    for (const PrimExpr& e : es) Expr(e);
  }

  void Expr(const PrimExpr& e) {
    if (e == nullptr) return Tag('0');
    Tag('E');
    Int(static_cast<int64_t>(e->kind()));
    DType(e->dtype());
    VisitExpr(*e);
  }

  void VisitExpr_(const ir::IntImmNode& n) override { Int(n.value()); }
  void VisitExpr_(const ir::FloatImmNode& n) override { Int(std::bit_cast<int64_t>(n.value())); }
  void VisitExpr_(const ir::TirVarNode& n) override { Var(n); }
  void VisitExpr_(const ir::BinaryNode& n) override {
    Int(static_cast<int64_t>(n.op()));
    Expr(n.a());
    Expr(n.b());
  }
  void VisitExpr_(const ir::NotNode& n) override { Expr(n.a()); }
  void VisitExpr_(const ir::CastNode& n) override { Expr(n.value()); }
  void VisitExpr_(const ir::SelectNode& n) override {
    Expr(n.cond());
    Expr(n.true_value());
    Expr(n.false_value());
  }
  void VisitExpr_(const ir::BufferLoadNode& n) override {
    Buffer(*n.buffer());
    Exprs(n.indices());
  }
  void VisitExpr_(const ir::PrimCallNode& n) override {
    Str(n.name());
    Exprs(n.args());
  }
  void VisitExpr_(const ir::TirStringImmNode& n) override { Str(n.value()); }
  void VisitExpr_(const ir::LetNode& n) override {
    Var(*n.var());
    Expr(n.value());
    Expr(n.body());
  }

  void Attr(const ir::AttrValue& v) {
    if (const PrimExpr* e = v.as_prim_expr()) return Tag('p'), Expr(*e);
    if (const std::string* s = v.as_string()) return Tag('s'), Str(*s);
    if (const bool* b = v.as_bool()) return Tag('t'), Int(*b);
    if (const int64_t* i = v.as_int()) return Tag('i'), Int(*i);
    if (const double* d = v.as_float()) return Tag('d'), Int(std::bit_cast<int64_t>(*d));
    if (const ir::AttrList* list = v.as_list()) {
      Tag('l');
      Int(static_cast<int64_t>(list->size()));
      for (const ir::AttrValue& item : *list) Attr(item);
      return;
    }
    if (const ir::AttrMap* map = v.as_map()) return Tag('m'), Attrs(*map);
    if (const ir::AttrCall* call = v.as_call()) {  // T.target({...})
      Tag('c');
      Str(call->callee);
      Int(static_cast<int64_t>(call->args.size()));
      for (const ir::AttrValue& item : call->args) Attr(item);
      return Attrs(call->kwargs);
    }
    Tag('n');
  }
  void Attrs(const ir::AttrMap& map) {
    Int(static_cast<int64_t>(map.size()));
    for (const auto& [key, value] : map) {
      Str(key);
      Attr(value);
    }
  }

  void Region(const ir::BufferRegion& r) {
    Buffer(*r.buffer);
    Int(static_cast<int64_t>(r.region.size()));
    for (const ir::Range& range : r.region) {
      Expr(range.min);
      Expr(range.extent);
    }
  }

  void Stmt(const ir::Stmt& s) {
    if (s == nullptr) return Tag('0');
    Tag('S');
    Int(static_cast<int64_t>(s->kind()));
    VisitStmt(*s);
  }

  void VisitStmt_(const ir::ForNode& n) override {
    Var(*n.loop_var());
    Expr(n.min());
    Expr(n.extent());
    Int(static_cast<int64_t>(n.for_kind()));
    Str(n.thread_tag());
    Attrs(n.annotations());
    Stmt(n.body());
  }
  void VisitStmt_(const ir::BlockRealizeNode& n) override {
    Exprs(n.iter_values());
    Expr(n.predicate());
    Stmt(n.block());
  }
  void VisitStmt_(const ir::BlockNode& n) override {
    Str(n.name_hint());
    Int(static_cast<int64_t>(n.iter_vars().size()));
    for (const ir::IterVar& iv : n.iter_vars()) {
      Var(*iv.var);
      Expr(iv.dom.min);
      Expr(iv.dom.extent);
      Int(static_cast<int64_t>(iv.type));
    }
    Int(static_cast<int64_t>(n.alloc_buffers().size()));
    for (const ir::Buffer& b : n.alloc_buffers()) Buffer(*b);
    Int(static_cast<int64_t>(n.match_buffers().size()));
    for (const ir::MatchBufferRegion& m : n.match_buffers()) {
      Buffer(*m.buffer);
      Region(m.source);
    }
    Int(static_cast<int64_t>(n.reads().size()));
    for (const ir::BufferRegion& r : n.reads()) Region(r);
    Int(static_cast<int64_t>(n.writes().size()));
    for (const ir::BufferRegion& r : n.writes()) Region(r);
    Attrs(n.annotations());
    Stmt(n.init());
    Stmt(n.body());
  }
  void VisitStmt_(const ir::SeqStmtNode& n) override {
    Int(static_cast<int64_t>(n.seq().size()));
    for (const ir::Stmt& item : n.seq()) Stmt(item);
  }
  void VisitStmt_(const ir::BufferStoreNode& n) override {
    Buffer(*n.buffer());
    Exprs(n.indices());
    Expr(n.value());
  }
  void VisitStmt_(const ir::LetStmtNode& n) override {
    Var(*n.var());
    Expr(n.value());
    Stmt(n.body());
  }
  void VisitStmt_(const ir::IfThenElseNode& n) override {
    Expr(n.cond());
    Stmt(n.then_case());
    Stmt(n.else_case());
  }
  void VisitStmt_(const ir::EvaluateNode& n) override { Expr(n.value()); }
  void VisitStmt_(const ir::AllocateNode& n) override {
    Var(*n.buffer_var());
    DType(n.dtype());
    Exprs(n.extents());
    Str(n.scope());
    Stmt(n.body());
  }
  void VisitStmt_(const ir::DeclBufferNode& n) override {
    Buffer(*n.buffer());
    Stmt(n.body());
  }
  void VisitStmt_(const ir::AllocBufferNode& n) override {
    Buffer(*n.buffer());
    Stmt(n.body());
  }
  void VisitStmt_(const ir::AssertStmtNode& n) override {
    Expr(n.cond());
    Str(n.error_kind());
    Int(static_cast<int64_t>(n.message_parts().size()));
    for (const std::string& part : n.message_parts()) Str(part);
  }
  void VisitStmt_(const ir::WhileNode& n) override {
    Expr(n.cond());
    Stmt(n.body());
  }
  void VisitStmt_(const ir::AttrStmtNode& n) override {
    const ir::AttrTarget& t = n.target();
    Int(static_cast<int64_t>(t.kind));
    switch (t.kind) {
      case ir::AttrTarget::Kind::kNone:
        break;
      case ir::AttrTarget::Kind::kExpr:
        Expr(t.expr);
        break;
      case ir::AttrTarget::Kind::kThread:
        Var(*t.var);
        Str(t.thread_tag);
        break;
      case ir::AttrTarget::Kind::kCommReducer:
        Int(static_cast<int64_t>(t.reducer->lhs.size()));
        for (const ir::TirVar& v : t.reducer->lhs) Var(*v);
        for (const ir::TirVar& v : t.reducer->rhs) Var(*v);
        Exprs(t.reducer->result);
        Exprs(t.reducer->identity);
        break;
    }
    Str(n.attr_key());
    Expr(n.value());
    Stmt(n.body());
  }

  std::string out_;
  std::unordered_map<const ir::TirVarNode*, int64_t> vars_;
  std::unordered_map<const ir::BufferNode*, int64_t> buffers_;
};

}  // namespace

std::string TirCanonicalForm(const ir::PrimFuncNode& func) { return Canonicalizer().Run(func); }

}  // namespace pipesplit::analysis
