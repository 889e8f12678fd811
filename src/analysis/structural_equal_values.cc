// Structural equality of struct info, symbolic expressions and attribute values (the leaves of
// the comparer's walk; see structural_comparer.h).
#include <cmath>

#include "pipesplit/support/check.h"
#include "src/analysis/structural_comparer.h"

namespace pipesplit::analysis::structural {

bool FloatEqual(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

std::string FirstDifferingLine(const std::string& a, const std::string& b, bool lhs) {
  size_t start = 0;
  int line = 1;
  size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n && a[i] == b[i]; ++i) {
    if (a[i] == '\n') {
      start = i + 1;
      ++line;
    }
  }
  const std::string& text = lhs ? a : b;
  if (start >= text.size()) return "line " + std::to_string(line) + ": <end of text>";
  size_t end = text.find('\n', start);
  std::string content = text.substr(start, end == std::string::npos ? end : end - start);
  if (content.size() > script::kShortTextLength)
    content = content.substr(0, script::kShortTextLength) + "...";
  return "line " + std::to_string(line) + ": " + content;
}

bool Comparer::TirVarEq(const TirVarNode* l, const TirVarNode* r, bool def) {
  // Paired vars must agree both ways (a lambda may rebind one side's var for its body).
  auto it = tir_l2r_.find(l);
  auto rit = tir_r2l_.find(r);
  if (it != tir_l2r_.end() || rit != tir_r2l_.end()) {
    return it != tir_l2r_.end() && rit != tir_r2l_.end() && it->second == r && rit->second == l;
  }
  if (!(def || map_free_vars_ || in_function_) && l != r) return false;
  if (l->is_size_var() != r->is_size_var()) return false;
  tir_l2r_.emplace(l, r);
  tir_r2l_.emplace(r, l);
  return true;
}

bool Comparer::PrimEq(const PrimExpr& l, const PrimExpr& r, bool def) {
  // Iterative pre-order walk: symbolic expressions may be long operator chains.
  std::vector<std::pair<const PrimExprNode*, const PrimExprNode*>>& stack = prim_stack_;
  stack.assign(1, {l.get(), r.get()});  // reused: PrimEq does not re-enter
  while (!stack.empty()) {
    auto [a, b] = stack.back();
    stack.pop_back();
    if (a == nullptr || b == nullptr) {
      if (a != b) return Fail(l, r);
      continue;
    }
    if (a->kind() != b->kind() || a->dtype() != b->dtype()) return Fail(l, r);
    switch (a->kind()) {
      case NodeKind::kIntImm:
        if (static_cast<const IntImmNode*>(a)->value() !=
            static_cast<const IntImmNode*>(b)->value()) {
          return Fail(l, r);
        }
        break;
      case NodeKind::kFloatImm:
        if (!FloatEqual(static_cast<const FloatImmNode*>(a)->value(),
                        static_cast<const FloatImmNode*>(b)->value())) {
          return Fail(l, r);
        }
        break;
      case NodeKind::kTirVar:
        if (!TirVarEq(static_cast<const TirVarNode*>(a), static_cast<const TirVarNode*>(b), def)) {
          return Fail(l, r);
        }
        break;
      case NodeKind::kBinary: {
        const auto* x = static_cast<const BinaryNode*>(a);
        const auto* y = static_cast<const BinaryNode*>(b);
        if (x->op() != y->op()) return Fail(l, r);
        stack.emplace_back(x->b().get(), y->b().get());
        stack.emplace_back(x->a().get(), y->a().get());
        break;
      }
      case NodeKind::kNot:
        stack.emplace_back(static_cast<const NotNode*>(a)->a().get(),
                           static_cast<const NotNode*>(b)->a().get());
        break;
      case NodeKind::kCast:
        stack.emplace_back(static_cast<const CastNode*>(a)->value().get(),
                           static_cast<const CastNode*>(b)->value().get());
        break;
      case NodeKind::kSelect: {
        const auto* x = static_cast<const SelectNode*>(a);
        const auto* y = static_cast<const SelectNode*>(b);
        stack.emplace_back(x->false_value().get(), y->false_value().get());
        stack.emplace_back(x->true_value().get(), y->true_value().get());
        stack.emplace_back(x->cond().get(), y->cond().get());
        break;
      }
      case NodeKind::kPrimCall: {
        const auto* x = static_cast<const PrimCallNode*>(a);
        const auto* y = static_cast<const PrimCallNode*>(b);
        if (x->name() != y->name() || x->args().size() != y->args().size()) return Fail(l, r);
        for (size_t i = x->args().size(); i-- > 0;) {
          stack.emplace_back(x->args()[i].get(), y->args()[i].get());
        }
        break;
      }
      case NodeKind::kBufferLoad: {
        // Only TIR bodies load from buffers, and PrimFuncs compare through their canonical form
        // (structural_tir.h); outside them a load is the same only from the same buffer.
        const auto* x = static_cast<const BufferLoadNode*>(a);
        const auto* y = static_cast<const BufferLoadNode*>(b);
        if (x->buffer() != y->buffer() || x->indices().size() != y->indices().size()) {
          return Fail(l, r);
        }
        for (size_t i = x->indices().size(); i-- > 0;) {
          stack.emplace_back(x->indices()[i].get(), y->indices()[i].get());
        }
        break;
      }
      case NodeKind::kTirStringImm:
        if (static_cast<const TirStringImmNode*>(a)->value() !=
            static_cast<const TirStringImmNode*>(b)->value()) {
          return Fail(l, r);
        }
        break;
      case NodeKind::kLet: {
        // The let binds its var: the two sides' vars pair as definitions.
        const auto* x = static_cast<const LetNode*>(a);
        const auto* y = static_cast<const LetNode*>(b);
        if (x->var()->dtype() != y->var()->dtype() ||
            !TirVarEq(x->var().get(), y->var().get(), /*def=*/true)) {
          return Fail(l, r);
        }
        stack.emplace_back(x->body().get(), y->body().get());
        stack.emplace_back(x->value().get(), y->value().get());
        break;
      }
      PIPESPLIT_KINDS_OUTSIDE_PRIM_EXPR:
        PS_UNREACHABLE();
    }
  }
  return true;
}

bool Comparer::SInfoEq(const StructInfo& l, const StructInfo& r, bool def) {
  if (l == nullptr || r == nullptr) {
    return l == r ? true : Fail(l, r);
  }
  DepthGuard guard(&depth_);
  if (guard.too_deep()) return Fail("<nesting too deep>", "<nesting too deep>");
  if (l->kind() != r->kind()) return Fail(l, r);
  auto prims = [&](const char* field, const std::vector<PrimExpr>& a,
                   const std::vector<PrimExpr>& b) {
    return SeqEq(
        field, a, b, [&](const PrimExpr& x, const PrimExpr& y) { return PrimEq(x, y, def); },
        [](const PrimExpr& x) { return script::PrintShort(x); });
  };
  switch (l->kind()) {
    case NodeKind::kObjectSInfo:
      return true;
    case NodeKind::kPrimSInfo: {
      const auto& a = static_cast<const PrimSInfoNode&>(*l);
      const auto& b = static_cast<const PrimSInfoNode&>(*r);
      if (a.dtype() != b.dtype()) {
        Step step(this, ".dtype");
        return Fail(a.dtype().ToString(), b.dtype().ToString());
      }
      Step step(this, ".value");
      if (!a.value() || !b.value()) {
        return a.value() == b.value() ? true : Fail(a.value(), b.value());
      }
      return PrimEq(a.value(), b.value(), def);
    }
    case NodeKind::kShapeSInfo: {
      const auto& a = static_cast<const ShapeSInfoNode&>(*l);
      const auto& b = static_cast<const ShapeSInfoNode&>(*r);
      if (a.ndim() != b.ndim()) {
        Step step(this, ".ndim");
        return Fail(std::to_string(a.ndim()), std::to_string(b.ndim()));
      }
      if (a.values().has_value() != b.values().has_value()) return Fail(l, r);
      return !a.values() || prims(".values", *a.values(), *b.values());
    }
    case NodeKind::kTensorSInfo: {
      const auto& a = static_cast<const TensorSInfoNode&>(*l);
      const auto& b = static_cast<const TensorSInfoNode&>(*r);
      if (a.dtype() != b.dtype()) {
        Step step(this, ".dtype");
        return Fail(a.dtype().ToString(), b.dtype().ToString());
      }
      if (a.ndim() != b.ndim()) {
        Step step(this, ".ndim");
        return Fail(std::to_string(a.ndim()), std::to_string(b.ndim()));
      }
      if (a.vdevice() != b.vdevice()) {
        Step step(this, ".vdevice");
        return Fail(a.vdevice(), b.vdevice());
      }
      if (a.shape_var() || b.shape_var()) {  // the var holding the shape, mapped as any use
        Step step(this, ".shape");
        if (!a.shape_var() || !b.shape_var()) return Fail(l, r);
        if (!VarUseEq(a.shape_var().get(), b.shape_var().get())) {
          return Fail(a.shape_var()->name_hint(), b.shape_var()->name_hint());
        }
        return true;
      }
      if (a.shape().has_value() != b.shape().has_value()) return Fail(l, r);
      return !a.shape() || prims(".shape", *a.shape(), *b.shape());
    }
    case NodeKind::kTupleSInfo:
      return SeqEq(
          ".fields", static_cast<const TupleSInfoNode&>(*l).fields(),
          static_cast<const TupleSInfoNode&>(*r).fields(),
          [&](const StructInfo& x, const StructInfo& y) { return SInfoEq(x, y, def); },
          [](const StructInfo& x) { return script::PrintShort(x); });
    case NodeKind::kFuncSInfo: {
      const auto& a = static_cast<const FuncSInfoNode&>(*l);
      const auto& b = static_cast<const FuncSInfoNode&>(*r);
      if (a.params().has_value() != b.params().has_value()) return Fail(l, r);
      if (a.params() &&
          !SeqEq(
              ".params", *a.params(), *b.params(),
              [&](const StructInfo& x, const StructInfo& y) { return SInfoEq(x, y, true); },
              [](const StructInfo& x) { return script::PrintShort(x); })) {
        return false;
      }
      {
        Step step(this, ".ret");
        if (!SInfoEq(a.ret(), b.ret(), def)) return false;
      }
      if (a.is_pure() != b.is_pure()) {
        Step step(this, ".purity");
        return FailBool(a.is_pure(), b.is_pure());
      }
      return true;
    }
    PIPESPLIT_KINDS_OUTSIDE_STRUCT_INFO:
      PS_UNREACHABLE();
  }
  return false;
}

bool Comparer::AttrsEq(const CanonicalAttrs& l, const CanonicalAttrs& r) {
  // Both are sorted by key: merge them, reporting the first key present on one side only.
  size_t i = 0, j = 0;
  while (i < l.size() || j < r.size()) {
    if (j == r.size() || (i < l.size() && l[i].key < r[j].key)) {
      Step step(this, l[i].key);
      return Fail(script::PrintShort(*l[i].value), Missing());
    }
    if (i == l.size() || r[j].key < l[i].key) {
      Step step(this, r[j].key);
      return Fail(Missing(), script::PrintShort(*r[j].value));
    }
    Step step(this, l[i].key);
    if (!AttrEq(*l[i].value, *r[j].value)) return false;
    ++i;
    ++j;
  }
  return true;
}

bool Comparer::AttrEq(const AttrValue& l, const AttrValue& r) {
  DepthGuard guard(&depth_);
  if (guard.too_deep()) return Fail("<nesting too deep>", "<nesting too deep>");
  auto fail = [&] {
    return difference_ ? Fail(script::PrintShort(l), script::PrintShort(r)) : false;
  };
  // An int64 attribute equals an int64 immediate of the same value (the same TVM IntImm).
  auto as_int64 = [](const AttrValue& v) -> std::optional<int64_t> {
    if (const int64_t* i = v.as_int()) return *i;
    if (const PrimExpr* e = v.as_prim_expr()) {
      if ((*e)->kind() == NodeKind::kIntImm && (*e)->dtype() == DataType::Int(64)) {
        return static_cast<const IntImmNode&>(**e).value();
      }
    }
    return std::nullopt;
  };
  if (in_op_attrs_) {
    std::optional<NumberKey> a = OpAttrNumber(l), b = OpAttrNumber(r);
    if (a && b) return SameNumber(*a, *b) ? true : fail();
  }
  if (l.value().index() != r.value().index()) {
    auto a = as_int64(l), b = as_int64(r);
    return a && b && *a == *b ? true : fail();
  }
  if (l.is_none()) return true;
  if (const bool* a = l.as_bool()) return *a == *r.as_bool() ? true : fail();
  if (const int64_t* a = l.as_int()) return *a == *r.as_int() ? true : fail();
  if (const double* a = l.as_float()) return FloatEqual(*a, *r.as_float()) ? true : fail();
  if (const std::string* a = l.as_string()) return *a == *r.as_string() ? true : fail();
  // Symbolic vars in attributes are bound there (T.index_map's lambda params): map them freely.
  if (const PrimExpr* a = l.as_prim_expr()) return PrimEq(*a, *r.as_prim_expr(), true);
  if (const Expr* a = l.as_expr()) return ExprEq(*a, *r.as_expr());
  if (const AttrList* a = l.as_list()) {
    return SeqEq(
        "", *a, *r.as_list(), [&](const AttrValue& x, const AttrValue& y) { return AttrEq(x, y); },
        [](const AttrValue& x) { return script::PrintShort(x); });
  }
  if (const AttrMap* a = l.as_map())
    return AttrsEq(CanonicalizeAttrs(*a), CanonicalizeAttrs(*r.as_map()));
  if (const AttrCall* a = l.as_call()) {
    const AttrCall* b = r.as_call();
    if (a->callee != b->callee) {
      Step step(this, ".callee");
      return Fail(a->callee, b->callee);
    }
    if (auto params = LambdaParams(*a)) return LambdaEq(*a, *b, *params);
    if (!SeqEq(
            ".args", a->args, b->args,
            [&](const AttrValue& x, const AttrValue& y) { return AttrEq(x, y); },
            [](const AttrValue& x) { return script::PrintShort(x); })) {
      return false;
    }
    Step step(this, ".kwargs");
    return AttrsEq(CanonicalizeAttrs(a->kwargs), CanonicalizeAttrs(b->kwargs));
  }
  PS_UNREACHABLE();
  return false;
}

bool Comparer::LambdaEq(const AttrCall& a, const AttrCall& b,
                        const std::vector<const TirVarNode*>& params) {
  std::optional<std::vector<const TirVarNode*>> other = LambdaParams(b);
  if (!other || other->size() != params.size()) {
    Step step(this, ".args");
    Step item(this, size_t{0});
    return Fail(script::PrintShort(a.args[0]), script::PrintShort(b.args[0]));
  }
  // The params are bound afresh for the body (shadowing any outer pairing), then unbound.
  struct Saved {
    const TirVarNode* var;
    std::unordered_map<const TirVarNode*, const TirVarNode*>* map;
    const TirVarNode* old;  // nullptr: no entry before
  };
  std::vector<Saved> saved;
  auto bind = [&](std::unordered_map<const TirVarNode*, const TirVarNode*>* map,
                  const TirVarNode* key, const TirVarNode* value) {
    auto it = map->find(key);
    saved.push_back({key, map, it == map->end() ? nullptr : it->second});
    (*map)[key] = value;
  };
  bool ok = true;
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i]->dtype() != (*other)[i]->dtype()) {
      Step step(this, ".args");
      Step list(this, size_t{0});
      Step item(this, i);
      ok = Fail(params[i]->name() + " (" + params[i]->dtype().ToString() + ")",
                (*other)[i]->name() + " (" + (*other)[i]->dtype().ToString() + ")");
      break;
    }
    bind(&tir_l2r_, params[i], (*other)[i]);
    bind(&tir_r2l_, (*other)[i], params[i]);
  }
  if (ok) {
    Step step(this, ".args");
    Step body(this, size_t{1});
    ok = AttrEq(a.args[1], b.args[1]);
  }
  for (auto it = saved.rbegin(); it != saved.rend(); ++it) {
    if (it->old == nullptr) {
      it->map->erase(it->var);
    } else {
      (*it->map)[it->var] = it->old;
    }
  }
  if (!ok) return false;
  Step step(this, ".kwargs");
  return AttrsEq(CanonicalizeAttrs(a.kwargs), CanonicalizeAttrs(b.kwargs));
}

}  // namespace pipesplit::analysis::structural
