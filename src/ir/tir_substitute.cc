// SubstituteTirVars: a StmtMutator whose expressions substitute the vars and whose buffers are
// rebuilt (memoized per buffer) where a field mentions one.
#include "pipesplit/ir/tir_substitute.h"

#include <unordered_map>
#include <utility>

#include "pipesplit/ir/tir.h"
#include "pipesplit/ir/tir_functor.h"

namespace pipesplit::ir {
namespace {

class VarSubstituter : public StmtMutator {
 public:
  explicit VarSubstituter(const TirVarMap& vars) : vars_(vars) {}

  // The buffer with its fields substituted (the same node when none changed).
  Buffer Rebuilt(const Buffer& b) {
    if (b == nullptr) return b;
    auto it = buffers_.find(b.get());
    if (it != buffers_.end()) return it->second;
    bool changed = false;
    std::vector<PrimExpr> shape = VisitPrimExprs(b->shape(), &changed);
    BufferLayout layout = b->layout();
    layout.strides = VisitPrimExprs(b->strides(), &changed);
    if (layout.elem_offset != nullptr) {
      layout.elem_offset = VisitPrimExpr(b->elem_offset());
      changed |= layout.elem_offset != b->elem_offset();
    }
    Buffer out = b;
    if (changed) {
      out = Make<BufferNode>(b->name(), b->data(), b->dtype(), std::move(shape), b->scope(),
                             b->span(), std::move(layout));
    }
    buffers_.emplace(b.get(), out);
    return out;
  }

  PrimExpr VisitPrimExpr(const PrimExpr& e) override {
    if (e == nullptr) return e;
    if (const auto* v = As<TirVarNode>(e)) {
      auto it = vars_.find(v);
      return it != vars_.end() ? it->second : e;
    }
    if (const auto* load = As<BufferLoadNode>(e)) {
      bool changed = false;
      std::vector<PrimExpr> indices = VisitPrimExprs(load->indices(), &changed);
      Buffer buffer = Rebuilt(load->buffer());
      if (!changed && buffer == load->buffer()) return e;
      return Make<BufferLoadNode>(std::move(buffer), std::move(indices), e->span());
    }
    return MapChildren(e, [this](const PrimExpr& c) { return VisitPrimExpr(c); });
  }

 protected:
  BufferRegion Region(const BufferRegion& r, bool* changed) {
    BufferRegion out = VisitRegion(r, changed);
    out.buffer = Rebuilt(r.buffer);
    *changed |= out.buffer != r.buffer;
    return out;
  }

  Stmt VisitStmt_(const BufferStoreNode& op, const Stmt& self) override {
    bool changed = false;
    PrimExpr value = VisitPrimExpr(op.value());
    std::vector<PrimExpr> indices = VisitPrimExprs(op.indices(), &changed);
    Buffer buffer = Rebuilt(op.buffer());
    if (!changed && value == op.value() && buffer == op.buffer()) return self;
    return Make<BufferStoreNode>(std::move(buffer), std::move(value), std::move(indices),
                                 op.span());
  }
  Stmt VisitStmt_(const BlockNode& op, const Stmt& self) override {
    bool changed = false;
    BlockNode::Fields f{op.name_hint(),   op.iter_vars(), {}, {}, nullptr, {}, {},
                        op.annotations(), nullptr};
    for (IterVar& iv : f.iter_vars) {
      Range dom{VisitPrimExpr(iv.dom.min), VisitPrimExpr(iv.dom.extent)};
      changed |= dom.min != iv.dom.min || dom.extent != iv.dom.extent;
      iv.dom = std::move(dom);
    }
    for (const BufferRegion& r : op.reads()) f.reads.push_back(Region(r, &changed));
    for (const BufferRegion& r : op.writes()) f.writes.push_back(Region(r, &changed));
    for (const Buffer& b : op.alloc_buffers()) {
      f.alloc_buffers.push_back(Rebuilt(b));
      changed |= f.alloc_buffers.back() != b;
    }
    for (const MatchBufferRegion& m : op.match_buffers()) {
      f.match_buffers.push_back({Rebuilt(m.buffer), Region(m.source, &changed)});
      changed |= f.match_buffers.back().buffer != m.buffer;
    }
    f.init = VisitStmt(op.init());
    f.body = VisitStmt(op.body());
    if (!changed && f.init == op.init() && f.body == op.body()) return self;
    return Make<BlockNode>(std::move(f), op.span());
  }
  Stmt VisitStmt_(const DeclBufferNode& op, const Stmt& self) override {
    Buffer buffer = Rebuilt(op.buffer());
    Stmt body = VisitStmt(op.body());
    if (buffer == op.buffer() && body == op.body()) return self;
    return Make<DeclBufferNode>(std::move(buffer), std::move(body), op.span());
  }
  Stmt VisitStmt_(const AllocBufferNode& op, const Stmt& self) override {
    Buffer buffer = Rebuilt(op.buffer());
    Stmt body = VisitStmt(op.body());
    if (buffer == op.buffer() && body == op.body()) return self;
    return Make<AllocBufferNode>(std::move(buffer), std::move(body), op.span());
  }

 private:
  const TirVarMap& vars_;
  std::unordered_map<const BufferNode*, Buffer> buffers_;
};

}  // namespace

PrimFunc SubstituteTirVars(const PrimFunc& func, const TirVarMap& vars) {
  if (vars.empty()) return func;
  VarSubstituter sub(vars);
  PrimFuncNode::Fields f;
  f.name = func->name();
  f.params = func->params();
  f.attrs = func->attrs();
  f.is_private = func->is_private();
  f.s_tir = func->s_tir();
  bool changed = false;
  for (const auto& [param, buffer] : func->buffer_map()) {
    f.buffer_map.emplace_back(param, sub.Rebuilt(buffer));
    changed |= f.buffer_map.back().second != buffer;
  }
  f.body = sub.VisitStmt(func->body());
  if (!changed && f.body == func->body()) return func;
  return Make<PrimFuncNode>(std::move(f), func->span());
}

}  // namespace pipesplit::ir
