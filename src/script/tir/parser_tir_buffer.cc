// TIR lowering: buffer lookups and regions, shape dims, buffer declarations (T.Buffer,
// T.match_buffer, T.alloc_buffer, ...) and attribute dicts.
#include <algorithm>

#include "pipesplit/ir/arith.h"
#include "pipesplit/support/diagnostic.h"
#include "src/script/syntax/lexer.h"
#include "src/script/syntax/parser_syntax.h"
#include "src/script/tir/parser_tir.h"

namespace pipesplit::script {

using ir::PrimExpr;

ir::Buffer TirLowerer::LookupBuffer(const PyExpr* name_expr, const char* what) {
  if (name_expr->kind != PyExprKind::kName) Error(name_expr, std::string("expected ") + what);
  const Symbol* sym = Find(name_expr->text);
  if (sym == nullptr || sym->buffer == nullptr) {
    Error(name_expr, "undefined buffer '" + std::string(name_expr->text) + "'");
  }
  return sym->buffer;
}

ir::BufferRegion TirLowerer::Region(const PyExpr* e) {
  if (e->kind != PyExprKind::kSubscript) Error(e, "expected a buffer region such as A[i, 0:4]");
  ir::BufferRegion region;
  region.buffer = LookupBuffer(e->items[0], "a buffer");
  const PyExpr* index = e->items[1];
  std::vector<const PyExpr*> dims;
  if (index->kind == PyExprKind::kTuple && !index->parenthesized) {
    for (const PyExpr* d : index->items) dims.push_back(d);
  } else if (!(index->kind == PyExprKind::kTuple && index->items.empty())) {
    dims.push_back(index);
  }
  for (const PyExpr* d : dims) {
    if (d->kind == PyExprKind::kSlice) {
      if (d->items[0] == nullptr || d->items[1] == nullptr || d->items[2] != nullptr) {
        Error(d, "a region slice needs a start and a stop, and no step");
      }
      PrimExpr begin = Expr(d->items[0]);
      PrimExpr end = Expr(d->items[1], begin->dtype());
      region.region.push_back({begin, ExtentOf(begin, end)});
    } else {
      PrimExpr index_value = Expr(d);
      region.region.push_back({index_value, ir::IntImm(1, index_value->dtype())});
    }
  }
  if (region.region.size() != region.buffer->shape().size()) {
    Error(e, "buffer '" + region.buffer->name() + "' has " +
                 std::to_string(region.buffer->shape().size()) + " dimensions, not " +
                 std::to_string(region.region.size()));
  }
  return region;
}

PrimExpr TirLowerer::ShapeDim(const PyExpr* e) {
  if (e->kind != PyExprKind::kString) return Expr(e);
  // A quoted dim of a signature: an expression naming vars declared at the start of the body.
  if (!in_signature_) Error(e, "a quoted dim is only allowed in a function signature");
  std::string_view t = e->text;
  if (t.size() < 2 || (t[0] != '"' && t[0] != '\'') || t.back() != t[0] ||
      t.substr(1, t.size() - 2).find_first_of("\\\"'") != std::string_view::npos) {
    Error(e, "a quoted dim must be a plain string literal");
  }
  std::vector<Token> tokens = LexExpression(file_, e->begin + 1, e->end - 1, options_.max_depth);
  if (tokens.size() <= 1) Error(e, "empty quoted dim");
  SyntaxTree tree;
  SyntaxParser parser(file_, tokens, options_.max_depth, &tree);
  const PyExpr* expr = parser.ParseStandaloneExpression();
  if (expr->kind == PyExprKind::kString) Error(e, "a quoted dim must not hold a string");
  return Expr(expr);
}

ir::Buffer TirLowerer::BufferDecl(const PyExpr* call, size_t first_arg, std::string name) {
  std::string callee = DottedName(call->items[0]);
  std::vector<PrimExpr> shape;
  DataType dtype = DataType::Float(32);
  std::string scope = callee == "T.alloc_shared"  ? "shared"
                      : callee == "T.alloc_local" ? "local"
                                                  : "global";
  bool has_shape = false;
  const PyExpr* strides = nullptr;
  const PyExpr* elem_offset = nullptr;
  ir::BufferLayout layout;
  auto read_shape = [&](const PyExpr* e) {
    if (e->kind != PyExprKind::kTuple && e->kind != PyExprKind::kList) {
      const std::vector<PrimExpr>* seq = Sequence(e);  // A.shape
      shape = seq != nullptr ? *seq : std::vector<PrimExpr>{ShapeDim(e)};
      return;
    }
    for (const PyExpr* d : e->items) {
      if (d->kind == PyExprKind::kStarred) {
        std::vector<PrimExpr> unpacked = Exprs(d);
        shape.insert(shape.end(), unpacked.begin(), unpacked.end());
      } else {
        shape.push_back(ShapeDim(d));
      }
    }
  };
  auto int_arg = [&](const PyExpr* v, const char* what) {
    std::optional<int64_t> value;
    if (v->kind == PyExprKind::kInt) value = ir::AsConstInt(Expr(v));
    if (!value || *value < 0) Error(v, std::string(what) + " must be a non-negative integer");
    return *value;
  };
  if (call->items.size() > first_arg) {
    read_shape(call->items[first_arg]);
    has_shape = true;
  }
  if (call->items.size() > first_arg + 1) dtype = DTypeArg(call->items[first_arg + 1]);
  if (call->items.size() > first_arg + 2) Error(call->items[first_arg + 2], "too many arguments");
  for (const PyKeyword& kw : call->keywords) {
    if (kw.name == "dtype") {
      dtype = DTypeArg(kw.value);
    } else if (kw.name == "scope") {
      if (kw.value->kind != PyExprKind::kString) Error(kw.value, "expected a scope string");
      scope = std::string(kw.value->str);
    } else if (kw.name == "shape") {
      read_shape(kw.value);
      has_shape = true;
    } else if (kw.name == "strides") {
      strides = kw.value;
    } else if (kw.name == "elem_offset") {
      elem_offset = kw.value;
    } else if (kw.name == "offset_factor") {
      layout.offset_factor = int_arg(kw.value, "offset_factor");
    } else if (kw.name == "align") {
      layout.data_alignment = int_arg(kw.value, "align");
    } else {
      Error(kw.name_begin, kw.name_begin + static_cast<uint32_t>(kw.name.size()),
            "unsupported argument '" + std::string(kw.name) + "' of " + callee);
    }
  }
  if (!has_shape) Error(call, callee + " needs a shape");
  // The index dtype of the vars the declaration introduces (TVM: the first dim's).
  DataType index_dtype = shape.empty() ? DataType::Int(32) : shape[0]->dtype();
  if (strides != nullptr) {
    if (strides->kind != PyExprKind::kTuple && strides->kind != PyExprKind::kList) {
      Error(strides, "strides must be a tuple");
    }
    for (const PyExpr* st : strides->items) {
      // A string names a new var (`strides=("s1", "s0")`, read back as A.strides[i]).
      layout.strides.push_back(
          st->kind == PyExprKind::kString
              ? ir::Make<ir::TirVarNode>(std::string(st->str), index_dtype, false, SpanOf(st))
              : Expr(st));
    }
  }
  if (elem_offset != nullptr) {
    layout.elem_offset = Expr(elem_offset);
  } else if (layout.offset_factor != 0 &&
             std::any_of(call->keywords.begin(), call->keywords.end(),
                         [](const PyKeyword& kw) { return kw.name == "offset_factor"; })) {
    // An offset factor without an offset: the buffer's own offset var (A.elem_offset). A
    // matched buffer's has the dtype of its dims; a param's is an int32, as in the kernels TVM
    // prints (an int64 one would print as a TypeVar).
    DataType offset_dtype = callee == "T.match_buffer" ? index_dtype : DataType::Int(32);
    layout.elem_offset =
        ir::Make<ir::TirVarNode>(name + "_elem_offset", offset_dtype, false, SpanOf(call));
  }
  if (layout.offset_factor == 0) layout.offset_factor = 1;
  if (auto it = pending_buffers_.find(name); it != pending_buffers_.end()) {
    // The buffer declared ahead under this name, when both declarations agree.
    const ir::Buffer& ahead = it->second;
    bool same = ahead->dtype() == dtype && ahead->scope() == scope &&
                ahead->shape().size() == shape.size() && layout.strides.empty() &&
                ahead->strides().empty() && ahead->layout().offset_factor == layout.offset_factor &&
                ahead->layout().data_alignment == layout.data_alignment &&
                (ahead->elem_offset() == nullptr) == (layout.elem_offset == nullptr);
    for (size_t i = 0; same && i < shape.size(); ++i) same = SameExpr(ahead->shape()[i], shape[i]);
    if (same && layout.elem_offset == nullptr) {
      ir::Buffer found = ahead;
      pending_buffers_.erase(it);
      return found;
    }
  }
  return ir::MakeBuffer(std::move(name), dtype, std::move(shape), std::move(scope), SpanOf(call),
                        std::move(layout));
}

ir::AttrMap TirLowerer::AttrDict(const PyExpr* e) {
  if (e->kind != PyExprKind::kDict) Error(e, "expected a dictionary");
  ir::AttrMap out;
  for (size_t i = 0; i + 1 < e->items.size(); i += 2) {
    const PyExpr* key = e->items[i];
    const PyExpr* value = e->items[i + 1];
    if (key->kind != PyExprKind::kString) Error(key, "attribute keys must be strings");
    auto attr = [&](auto&& self, const PyExpr* x) -> ir::AttrValue {
      if (x->kind == PyExprKind::kString) return std::string(x->str);
      if (x->kind == PyExprKind::kDict) return AttrDict(x);
      if (x->kind == PyExprKind::kList) {  // {"layout_free_buffers": [1]}
        ir::AttrList list;
        for (const PyExpr* item : x->items) list.push_back(self(self, item));
        return list;
      }
      if (TirCallee(x) == "T.target") {  // T.target({"kind": "llvm", ...})
        if (x->items.size() != 2 || x->items[1]->kind != PyExprKind::kDict ||
            !x->keywords.empty()) {
          Error(x, "T.target expects one dictionary");
        }
        return ir::AttrCall{"T.target", {AttrDict(x->items[1])}, {}};
      }
      return Expr(x);
    };
    out.emplace_back(std::string(key->str), attr(attr, value));
  }
  return out;
}

}  // namespace pipesplit::script
