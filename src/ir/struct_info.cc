#include "pipesplit/ir/struct_info.h"

#include "pipesplit/ir/arith.h"
#include "pipesplit/ir/expr.h"
#include "pipesplit/ir/map_on_change.h"
#include "pipesplit/support/check.h"

namespace pipesplit::ir {

TensorSInfoNode::TensorSInfoNode(Ptr<VarNode> shape_var, DataType dtype, std::string vdevice,
                                 Span span)
    : StructInfoNode(NodeKind::kTensorSInfo, span),
      shape_var_(std::move(shape_var)),
      dtype_(dtype),
      ndim_(-1),
      vdevice_(std::move(vdevice)) {
  symbolic_shape_ = true;
  PS_CHECK(shape_var_ != nullptr) << "a tensor's shape var is null";
  const auto* shape = As<ShapeSInfoNode>(shape_var_->struct_info());
  PS_CHECK(shape != nullptr) << "the shape var '" << shape_var_->name_hint()
                             << "' of a tensor does not hold a shape";
  ndim_ = shape->ndim();
}

StructInfo ObjectSInfo() {
  static const StructInfo kObject = Make<ObjectSInfoNode>();
  return kObject;
}

StructInfo TensorSInfo(std::vector<PrimExpr> shape, DataType dtype) {
  return Make<TensorSInfoNode>(std::move(shape), dtype);
}

StructInfo TupleSInfo(std::vector<StructInfo> fields) {
  return Make<TupleSInfoNode>(std::move(fields));
}

StructInfo VoidSInfo() {
  static const StructInfo kVoid = Make<TupleSInfoNode>(std::vector<StructInfo>{});
  return kVoid;
}

namespace {

// Rebuilds `sinfo` with every leaf (a struct info that is not a tuple or a callable) passed
// through `leaf`, walking tuple fields and callable params and results; the same node when no
// leaf changed.
template <typename F>
StructInfo MapLeaves(const StructInfo& sinfo, F&& leaf) {
  auto map = [&](const StructInfo& s) { return MapLeaves(s, leaf); };
  switch (sinfo->kind()) {
    case NodeKind::kTupleSInfo: {
      const auto* n = static_cast<const TupleSInfoNode*>(sinfo.get());
      std::vector<StructInfo> fields;
      if (!MapOnChange(n->fields(), &fields, map)) return sinfo;
      return Make<TupleSInfoNode>(std::move(fields), n->span());
    }
    case NodeKind::kFuncSInfo: {
      const auto* n = static_cast<const FuncSInfoNode*>(sinfo.get());
      std::vector<StructInfo> mapped;
      bool params_changed = n->params() && MapOnChange(*n->params(), &mapped, map);
      StructInfo ret = map(n->ret());
      if (!params_changed && ret == n->ret()) return sinfo;
      std::optional<std::vector<StructInfo>> params = n->params();
      if (params_changed) params = std::move(mapped);
      return Make<FuncSInfoNode>(std::move(params), ret, n->is_pure(), n->span());
    }
    case NodeKind::kObjectSInfo:
    case NodeKind::kPrimSInfo:
    case NodeKind::kShapeSInfo:
    case NodeKind::kTensorSInfo:
      return leaf(sinfo);
    PIPESPLIT_KINDS_OUTSIDE_STRUCT_INFO:
      return sinfo;
  }
  PS_UNREACHABLE();
}

// Calls `leaf` on every leaf of `sinfo` (see MapLeaves), in order.
template <typename F>
void ForEachLeaf(const StructInfo& sinfo, F&& leaf) {
  switch (sinfo->kind()) {
    case NodeKind::kTupleSInfo:
      for (const StructInfo& f : static_cast<const TupleSInfoNode*>(sinfo.get())->fields()) {
        ForEachLeaf(f, leaf);
      }
      break;
    case NodeKind::kFuncSInfo: {
      const auto* n = static_cast<const FuncSInfoNode*>(sinfo.get());
      if (n->params()) {
        for (const StructInfo& p : *n->params()) ForEachLeaf(p, leaf);
      }
      ForEachLeaf(n->ret(), leaf);
      break;
    }
    case NodeKind::kObjectSInfo:
    case NodeKind::kPrimSInfo:
    case NodeKind::kShapeSInfo:
    case NodeKind::kTensorSInfo:
      leaf(sinfo);
      break;
    PIPESPLIT_KINDS_OUTSIDE_STRUCT_INFO:
      break;
  }
}

// Rebuilds `sinfo` with every PrimExpr passed through `f`; same node when nothing changed.
template <typename F>
StructInfo MapPrimExprs(const StructInfo& sinfo, F&& f) {
  return MapLeaves(sinfo, [&](const StructInfo& s) -> StructInfo {
    std::vector<PrimExpr> mapped;
    if (const auto* n = As<PrimSInfoNode>(s)) {
      if (!n->value()) return s;
      PrimExpr v = f(n->value());
      return v == n->value() ? s : Make<PrimSInfoNode>(n->dtype(), v, n->span());
    }
    if (const auto* n = As<ShapeSInfoNode>(s)) {
      if (!n->values() || !MapOnChange(*n->values(), &mapped, f)) return s;
      return Make<ShapeSInfoNode>(std::move(mapped), n->span());
    }
    if (const auto* n = As<TensorSInfoNode>(s)) {
      if (!n->shape() || !MapOnChange(*n->shape(), &mapped, f)) return s;
      return Make<TensorSInfoNode>(std::move(mapped), n->dtype(), n->vdevice(), n->span());
    }
    return s;
  });
}

// Calls `f` on every PrimExpr of `sinfo`, in order.
template <typename F>
void ForEachPrimExpr(const StructInfo& sinfo, F&& f) {
  ForEachLeaf(sinfo, [&](const StructInfo& s) {
    if (const auto* n = As<PrimSInfoNode>(s)) {
      if (n->value()) f(n->value());
    } else if (const auto* n = As<ShapeSInfoNode>(s)) {
      if (n->values()) {
        for (const PrimExpr& e : *n->values()) f(e);
      }
    } else if (const auto* n = As<TensorSInfoNode>(s)) {
      if (n->shape()) {
        for (const PrimExpr& e : *n->shape()) f(e);
      }
    }
  });
}

bool AllProvablyEqual(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!ProvablyEqual(a[i], b[i])) return false;
  }
  return true;
}

}  // namespace

StructInfo Substitute(const StructInfo& sinfo, const TirVarMap& map) {
  if (map.empty() || !sinfo) return sinfo;
  return MapPrimExprs(sinfo, [&](const PrimExpr& e) { return Substitute(e, map); });
}

void VisitTirVars(const StructInfo& sinfo, const std::function<void(const TirVar&)>& fn) {
  if (!sinfo) return;
  ForEachPrimExpr(sinfo, [&](const PrimExpr& e) {
    if (e != nullptr && e->kind() != NodeKind::kIntImm) VisitTirVars(e, fn);  // most dims: none
  });
}

bool IsBaseOf(const StructInfo& base, const StructInfo& derived) {
  if (base == derived) return true;
  if (base->kind() == NodeKind::kObjectSInfo) return true;
  if (base->kind() != derived->kind()) return false;
  switch (base->kind()) {
    case NodeKind::kPrimSInfo: {
      const auto* b = static_cast<const PrimSInfoNode*>(base.get());
      const auto* d = static_cast<const PrimSInfoNode*>(derived.get());
      if (b->dtype() != d->dtype()) return false;
      if (!b->value()) return true;
      return d->value() && ProvablyEqual(b->value(), d->value());
    }
    case NodeKind::kShapeSInfo: {
      const auto* b = static_cast<const ShapeSInfoNode*>(base.get());
      const auto* d = static_cast<const ShapeSInfoNode*>(derived.get());
      if (b->ndim() != -1 && b->ndim() != d->ndim()) return false;
      if (!b->values()) return true;
      return d->values() && AllProvablyEqual(*b->values(), *d->values());
    }
    case NodeKind::kTensorSInfo: {
      const auto* b = static_cast<const TensorSInfoNode*>(base.get());
      const auto* d = static_cast<const TensorSInfoNode*>(derived.get());
      if (!b->dtype().is_void() && b->dtype() != d->dtype()) return false;
      if (b->ndim() != -1 && b->ndim() != d->ndim()) return false;
      if (!b->vdevice().empty() && b->vdevice() != d->vdevice()) return false;
      // A shape held by a var is known only to equal itself (TVM's ShapeMatchCheck).
      if (b->shape_var()) return b->shape_var() == d->shape_var();
      if (!b->shape()) return true;
      return d->shape() && AllProvablyEqual(*b->shape(), *d->shape());
    }
    case NodeKind::kTupleSInfo: {
      const auto* b = static_cast<const TupleSInfoNode*>(base.get());
      const auto* d = static_cast<const TupleSInfoNode*>(derived.get());
      if (b->fields().size() != d->fields().size()) return false;
      for (size_t i = 0; i < b->fields().size(); ++i) {
        if (!IsBaseOf(b->fields()[i], d->fields()[i])) return false;
      }
      return true;
    }
    case NodeKind::kFuncSInfo: {
      const auto* b = static_cast<const FuncSInfoNode*>(base.get());
      const auto* d = static_cast<const FuncSInfoNode*>(derived.get());
      if (b->is_pure() && !d->is_pure()) return false;
      if (!IsBaseOf(b->ret(), d->ret())) return false;
      if (!b->params()) return true;
      if (!d->params() || d->params()->size() != b->params()->size()) return false;
      // Params are contravariant.
      for (size_t i = 0; i < b->params()->size(); ++i) {
        if (!IsBaseOf((*d->params())[i], (*b->params())[i])) return false;
      }
      return true;
    }
    case NodeKind::kObjectSInfo:
    PIPESPLIT_KINDS_OUTSIDE_STRUCT_INFO:
      return false;
  }
  PS_UNREACHABLE();
}

StructInfo EraseToWellDefined(const StructInfo& sinfo,
                              const std::function<bool(const TirVarNode&)>& is_defined,
                              const std::function<bool(const VarNode&)>& is_relax_defined) {
  auto well_defined = [&](const PrimExpr& e) {
    bool ok = true;
    VisitTirVars(e, [&](const TirVar& v) { ok &= is_defined(*v); });
    return ok;
  };
  auto all_defined = [&](const std::vector<PrimExpr>& values) {
    for (const PrimExpr& e : values) {
      if (!well_defined(e)) return false;
    }
    return true;
  };
  switch (sinfo->kind()) {
    case NodeKind::kPrimSInfo: {
      const auto* n = static_cast<const PrimSInfoNode*>(sinfo.get());
      if (!n->value() || well_defined(n->value())) return sinfo;
      return Make<PrimSInfoNode>(n->dtype());
    }
    case NodeKind::kShapeSInfo: {
      const auto* n = static_cast<const ShapeSInfoNode*>(sinfo.get());
      if (!n->values() || all_defined(*n->values())) return sinfo;
      return Make<ShapeSInfoNode>(n->ndim());
    }
    case NodeKind::kTensorSInfo: {
      const auto* n = static_cast<const TensorSInfoNode*>(sinfo.get());
      if (n->shape_var()) {
        if (is_relax_defined && is_relax_defined(*n->shape_var())) return sinfo;
        return Make<TensorSInfoNode>(n->dtype(), n->ndim(), n->vdevice());
      }
      if (!n->shape() || all_defined(*n->shape())) return sinfo;
      return Make<TensorSInfoNode>(n->dtype(), n->ndim(), n->vdevice());
    }
    case NodeKind::kTupleSInfo: {
      const auto* n = static_cast<const TupleSInfoNode*>(sinfo.get());
      bool changed = false;
      std::vector<StructInfo> fields;
      for (const StructInfo& f : n->fields()) {
        fields.push_back(EraseToWellDefined(f, is_defined, is_relax_defined));
        changed |= fields.back() != f;
      }
      return changed ? Make<TupleSInfoNode>(std::move(fields)) : sinfo;
    }
    case NodeKind::kFuncSInfo: {
      const auto* n = static_cast<const FuncSInfoNode*>(sinfo.get());
      StructInfo ret = EraseToWellDefined(n->ret(), is_defined, is_relax_defined);
      if (ret == n->ret()) return sinfo;
      return Make<FuncSInfoNode>(n->params(), ret, n->is_pure());
    }
    case NodeKind::kObjectSInfo:
    PIPESPLIT_KINDS_OUTSIDE_STRUCT_INFO:
      return sinfo;
  }
  PS_UNREACHABLE();
}

namespace {

bool DimEqual(const PrimExpr& a, const PrimExpr& b, DimEquality dims) {
  return dims == DimEquality::kProvable ? ProvablyEqual(a, b) : ExprDeepEqual(a, b);
}

bool DimsEqual(const std::optional<std::vector<PrimExpr>>& a,
               const std::optional<std::vector<PrimExpr>>& b, DimEquality dims) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  if (a->size() != b->size()) return false;
  for (size_t i = 0; i < a->size(); ++i) {
    if (!DimEqual((*a)[i], (*b)[i], dims)) return false;
  }
  return true;
}

}  // namespace

bool StructInfoEqual(const StructInfo& a, const StructInfo& b, DimEquality dims) {
  if (a == b) return true;
  if (!a || !b || a->kind() != b->kind()) return false;
  switch (a->kind()) {
    case NodeKind::kObjectSInfo:
      return true;
    case NodeKind::kPrimSInfo: {
      const auto* x = As<PrimSInfoNode>(a);
      const auto* y = As<PrimSInfoNode>(b);
      if (!(x->dtype() == y->dtype())) return false;
      if (!x->value() || !y->value()) return !x->value() && !y->value();
      return DimEqual(x->value(), y->value(), dims);
    }
    case NodeKind::kShapeSInfo: {
      const auto* x = As<ShapeSInfoNode>(a);
      const auto* y = As<ShapeSInfoNode>(b);
      return x->ndim() == y->ndim() && DimsEqual(x->values(), y->values(), dims);
    }
    case NodeKind::kTensorSInfo: {
      const auto* x = As<TensorSInfoNode>(a);
      const auto* y = As<TensorSInfoNode>(b);
      return x->dtype() == y->dtype() && x->ndim() == y->ndim() && x->vdevice() == y->vdevice() &&
             x->shape_var() == y->shape_var() && DimsEqual(x->shape(), y->shape(), dims);
    }
    case NodeKind::kTupleSInfo: {
      const auto& x = As<TupleSInfoNode>(a)->fields();
      const auto& y = As<TupleSInfoNode>(b)->fields();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (!StructInfoEqual(x[i], y[i], dims)) return false;
      }
      return true;
    }
    case NodeKind::kFuncSInfo: {
      const auto* x = As<FuncSInfoNode>(a);
      const auto* y = As<FuncSInfoNode>(b);
      if (x->is_pure() != y->is_pure() || x->params().has_value() != y->params().has_value()) {
        return false;
      }
      if (x->params()) {
        if (x->params()->size() != y->params()->size()) return false;
        for (size_t i = 0; i < x->params()->size(); ++i) {
          if (!StructInfoEqual((*x->params())[i], (*y->params())[i], dims)) return false;
        }
      }
      return StructInfoEqual(x->ret(), y->ret(), dims);
    }
    PIPESPLIT_KINDS_OUTSIDE_STRUCT_INFO:
      return false;
  }
  PS_UNREACHABLE();
}

StructInfo SubstituteShapeVars(const StructInfo& sinfo,
                               const std::function<Ptr<VarNode>(const VarNode&)>& map) {
  if (!sinfo) return sinfo;
  return MapLeaves(sinfo, [&](const StructInfo& s) -> StructInfo {
    const auto* n = As<TensorSInfoNode>(s);
    if (n == nullptr || !n->shape_var()) return s;
    Ptr<VarNode> to = map(*n->shape_var());
    if (to == nullptr || to == n->shape_var()) return s;
    if (!Is<ShapeSInfoNode>(to->struct_info())) {
      return Make<TensorSInfoNode>(n->dtype(), n->ndim(), n->vdevice(), n->span());
    }
    return Make<TensorSInfoNode>(std::move(to), n->dtype(), n->vdevice(), n->span());
  });
}

void VisitShapeVars(const StructInfo& sinfo, const std::function<void(const VarNode&)>& fn) {
  if (!sinfo) return;
  ForEachLeaf(sinfo, [&](const StructInfo& s) {
    const auto* n = As<TensorSInfoNode>(s);
    if (n != nullptr && n->shape_var()) fn(*n->shape_var());
  });
}

}  // namespace pipesplit::ir
