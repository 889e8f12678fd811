// Lowering: the symbol table and conversions of evaluated Values (to Relax arguments,
// PrimExprs, op attributes and scalars), following TVM's convert_to_expr and the conversions
// its Python op wrappers apply.
#include <limits>

#include "pipesplit/ir/arith.h"
#include "pipesplit/support/diagnostic.h"
#include "src/script/relax/parser_lower.h"

namespace pipesplit::script {

Value MakeInt(int64_t v, const PyExpr* node) {
  Value r;
  r.kind = Value::Kind::kInt;
  r.i = v;
  r.node = node;
  return r;
}

Value MakeFloat(double v, const PyExpr* node) {
  Value r;
  r.kind = Value::Kind::kFloat;
  r.f = v;
  r.node = node;
  return r;
}

Value MakeBool(bool v, const PyExpr* node) {
  Value r;
  r.kind = Value::Kind::kBool;
  r.b = v;
  r.node = node;
  return r;
}

bool IsNumber(const Value& v) {
  return v.kind == Value::Kind::kInt || v.kind == Value::Kind::kFloat ||
         v.kind == Value::Kind::kBool;
}

double AsDouble(const Value& v) {
  if (v.kind == Value::Kind::kFloat) return v.f;
  if (v.kind == Value::Kind::kBool) return v.b ? 1.0 : 0.0;
  return static_cast<double>(v.i);
}

int64_t AsInt(const Value& v) { return v.kind == Value::Kind::kBool ? (v.b ? 1 : 0) : v.i; }

const char* ValueKindName(Value::Kind kind) {
  switch (kind) {
    case Value::Kind::kNone:
      return "None";
    case Value::Kind::kBool:
      return "a bool";
    case Value::Kind::kInt:
      return "an int";
    case Value::Kind::kFloat:
      return "a float";
    case Value::Kind::kStr:
      return "a string";
    case Value::Kind::kPrim:
      return "a symbolic expression";
    case Value::Kind::kExpr:
      return "a relax expression";
    case Value::Kind::kSInfo:
      return "struct info";
    case Value::Kind::kTuple:
      return "a tuple";
    case Value::Kind::kList:
      return "a list";
    case Value::Kind::kDict:
      return "a dict";
    case Value::Kind::kModule:
      return "the module";
    case Value::Kind::kTypeVar:
      return "a TypeVar";
    case Value::Kind::kSymDecl:
      return "a symbolic variable declaration";
    case Value::Kind::kMatchCast:
      return "R.match_cast";
    case Value::Kind::kAttr:
      return "an attribute value";
  }
  return "a value";
}

// ---- SymbolTable ----

void SymbolTable::PushFrame() { frame_starts_.push_back(entries_.size()); }

void SymbolTable::PopFrame() {
  size_t start = frame_starts_.back();
  if (entries_.size() - start > start + 64) {
    // A big frame (a function body) over a small rest (the module's names): rebuilding the
    // map from the rest is cheaper than erasing each name. The last entry of a name is its
    // innermost one.
    entries_.resize(start);
    frame_starts_.pop_back();
    innermost_.clear();
    for (size_t i = 0; i < start; ++i) innermost_[entries_[i].name] = static_cast<int64_t>(i);
    return;
  }
  for (size_t i = entries_.size(); i-- > start;) {
    const Entry& e = entries_[i];
    auto it = innermost_.find(e.name);
    if (e.shadowed < 0) {
      innermost_.erase(it);
    } else {
      it->second = e.shadowed;
    }
  }
  entries_.resize(start);
  frame_starts_.pop_back();
}

void SymbolTable::Define(std::string_view name, Value value) {
  if (name.size() == 1) single_chars_defined_.set(static_cast<unsigned char>(name[0]));
  int64_t index = static_cast<int64_t>(entries_.size());
  auto [it, inserted] = innermost_.try_emplace(std::string(name), index);  // one hash
  if (!inserted && static_cast<size_t>(it->second) >= frame_starts_.back()) {
    entries_[static_cast<size_t>(it->second)].value = std::move(value);
    return;
  }
  int64_t shadowed = inserted ? -1 : it->second;
  it->second = index;
  entries_.emplace_back(std::string(name), std::move(value), shadowed);
}

const Value* SymbolTable::Lookup(std::string_view name) const {
  if (NeverDefined(name)) return nullptr;
  auto it = innermost_.find(name);
  return it == innermost_.end() ? nullptr : &entries_[static_cast<size_t>(it->second)].value;
}

bool SymbolTable::InInnermostFrame(std::string_view name) const {
  if (NeverDefined(name)) return false;
  auto it = innermost_.find(name);
  return it != innermost_.end() && static_cast<size_t>(it->second) >= frame_starts_.back();
}

// ---- Conversions ----

ir::PrimExpr Lowerer::MakeIntImm(int64_t value, DataType dtype, const PyExpr* node) {
  if (dtype.is_bool()) {
    if (value != 0 && value != 1) Error(node, std::to_string(value) + " is not a valid bool");
  } else if (dtype.is_integer() && dtype.bits() < 64) {
    int bits = dtype.bits();
    int64_t lo = dtype.is_uint() ? 0 : -(int64_t{1} << (bits - 1));
    int64_t hi = dtype.is_uint() ? (int64_t{1} << bits) - 1 : (int64_t{1} << (bits - 1)) - 1;
    if (value < lo || value > hi) {
      Error(node, std::to_string(value) + " is out of range for " + dtype.ToString());
    }
  } else if (dtype.is_uint() && value < 0) {
    Error(node, std::to_string(value) + " is out of range for " + dtype.ToString());
  }
  if (dtype.is_float()) {
    return ir::Make<ir::FloatImmNode>(dtype, static_cast<double>(value), SpanOf(node));
  }
  return ir::Make<ir::IntImmNode>(dtype, value, SpanOf(node));
}

ir::PrimExpr Lowerer::PrimOfVar(const Value& v) {
  if (v.kind != Value::Kind::kExpr || !ir::Is<ir::VarNode>(v.expr)) return nullptr;
  const auto* prim = ir::As<ir::PrimSInfoNode>(v.expr->struct_info());
  return prim != nullptr ? prim->value() : nullptr;
}

bool Lowerer::IsPrimLike(const Value& v) const {
  return v.kind == Value::Kind::kInt ||
         (v.kind == Value::Kind::kPrim && v.prim->dtype().is_integer());
}

ir::PrimExpr Lowerer::ToPrim(const Value& v, const PyExpr* node) {
  switch (v.kind) {
    case Value::Kind::kInt:
      return MakeIntImm(v.i, DataType::Int(64), node);
    case Value::Kind::kBool:
      return ir::Make<ir::IntImmNode>(DataType::Bool(), v.b ? 1 : 0, SpanOf(node));
    case Value::Kind::kFloat:
      return ir::Make<ir::FloatImmNode>(DataType::Float(32), v.f, SpanOf(node));
    case Value::Kind::kPrim:
      return v.prim;
    case Value::Kind::kExpr:
      if (const auto* pv = ir::As<ir::PrimValueNode>(v.expr)) return pv->value();
      if (ir::PrimExpr p = PrimOfVar(v)) return p;
      break;
    default:
      break;
  }
  Error(node, std::string("expected a symbolic expression but found ") + ValueKindName(v.kind));
}

ir::Expr Lowerer::ToExpr(const Value& v, const PyExpr* node) {
  Span span = SpanOf(node);
  switch (v.kind) {
    case Value::Kind::kExpr:
      return v.expr;
    case Value::Kind::kInt:
      return ir::Make<ir::PrimValueNode>(MakeIntImm(v.i, DataType::Int(64), node), span);
    case Value::Kind::kBool:
      // Classic TVM reads a Python bool as an int; since its 2026 Type change as a bool.
      if (current_syntax_) {
        return ir::Make<ir::PrimValueNode>(
            ir::Make<ir::IntImmNode>(DataType::Bool(), v.b ? 1 : 0, span), span);
      }
      return ir::Make<ir::PrimValueNode>(MakeIntImm(v.b ? 1 : 0, DataType::Int(64), node), span);
    case Value::Kind::kFloat:
      return ir::Make<ir::PrimValueNode>(ir::Make<ir::FloatImmNode>(DataType::Float(64), v.f, span),
                                         span);
    case Value::Kind::kPrim:
      return ir::Make<ir::PrimValueNode>(v.prim, span);
    case Value::Kind::kStr:
      return ir::Make<ir::StringImmNode>(v.s, span);
    case Value::Kind::kTuple:
    case Value::Kind::kList: {
      std::vector<ir::Expr> fields;
      fields.reserve(v.items.size());
      for (const Value& item : v.items) {
        fields.push_back(ToArg(item, item.node != nullptr ? item.node : node));
      }
      return NormalizeValue(ir::Make<ir::TupleNode>(std::move(fields), nullptr, span));
    }
    case Value::Kind::kSInfo:
      Error(node, "expected a relax expression but found struct info " + RenderStructInfo(v.sinfo));
    case Value::Kind::kMatchCast:
      Error(node, "R.match_cast can only be the right-hand side of a binding");
    case Value::Kind::kSymDecl:
      Error(node, "a symbolic variable declaration must be assigned to a name");
    case Value::Kind::kModule:
      Error(node, "expected a relax expression but found the module '" + v.s + "'");
    default:
      break;
  }
  Error(node, std::string("expected a relax expression but found ") + ValueKindName(v.kind));
}

ir::Expr Lowerer::ToArg(const Value& v, const PyExpr* node) {
  return NormalizeArg(ToExpr(v, node));
}

ir::Expr Lowerer::ToOpArg(const Value& v, const ir::OpParam& param, const std::string& op_name,
                          const PyExpr* node) {
  Span span = SpanOf(node);
  const std::string& name = param.name;
  bool inline_tuple_arg = op_name.rfind("relax.call_", 0) == 0 && name == "args";
  if (inline_tuple_arg) {
    // TVM wraps a single non-tuple argument of the call_* family into an in-line tuple.
    if (v.kind == Value::Kind::kTuple || v.kind == Value::Kind::kList) return ToArg(v, node);
    ir::Expr arg = ToArg(v, node);
    if (arg->kind() != ir::NodeKind::kTuple && !ir::Is<ir::TupleSInfoNode>(arg->struct_info())) {
      return NormalizeValue(ir::Make<ir::TupleNode>(std::vector<ir::Expr>{arg}, nullptr, span));
    }
    return arg;
  }
  if (v.kind == Value::Kind::kStr && name == "func") {
    return ir::Make<ir::ExternFuncNode>(v.s, nullptr, span);
  }
  if (v.kind == Value::Kind::kStr && name.find("dtype") != std::string::npos) {
    return ir::Make<ir::DataTypeImmNode>(ToDType(v, node), span);
  }
  bool shape_like = name == "shape" || name == "size" || name == "tir_vars" ||
                    (name.size() > 6 && name.substr(name.size() - 6) == "_shape");
  if (shape_like && (v.kind == Value::Kind::kTuple || v.kind == Value::Kind::kList)) {
    bool all_prim = true;
    for (const Value& item : v.items) all_prim &= IsPrimLike(item);
    if (all_prim) {
      std::vector<ir::PrimExpr> values;
      for (const Value& item : v.items) {
        const PyExpr* at = item.node ? item.node : node;
        values.push_back(CheckShapeDim(ToPrim(item, at), at));
      }
      return ir::Make<ir::ShapeExprNode>(std::move(values), span);
    }
  }
  return ToArg(v, node);
}

ir::AttrValue Lowerer::ToAttr(const Value& v, const PyExpr* node) {
  switch (v.kind) {
    case Value::Kind::kNone:
      return ir::AttrValue();
    case Value::Kind::kBool:
      return ir::AttrValue(v.b);
    case Value::Kind::kInt:
      return ir::AttrValue(v.i);
    case Value::Kind::kFloat:
      return ir::AttrValue(v.f);
    case Value::Kind::kStr:
      return ir::AttrValue(v.s);
    case Value::Kind::kPrim:
      return ir::AttrValue(v.prim);
    case Value::Kind::kExpr:
      return ir::AttrValue(NormalizeArg(v.expr));
    case Value::Kind::kAttr:
      return *v.attr;
    case Value::Kind::kTuple:
    case Value::Kind::kList: {
      ir::AttrList list;
      list.reserve(v.items.size());
      for (const Value& item : v.items) list.push_back(ToAttr(item, item.node ? item.node : node));
      return ir::AttrValue(std::move(list));
    }
    case Value::Kind::kDict: {
      ir::AttrMap map;
      for (size_t i = 0; i + 1 < v.items.size(); i += 2) {
        const Value& key = v.items[i];
        if (key.kind != Value::Kind::kStr) {
          Error(key.node ? key.node : node,
                std::string("dictionary keys must be strings, not ") + ValueKindName(key.kind));
        }
        ir::AttrValue value =
            ToAttr(v.items[i + 1], v.items[i + 1].node ? v.items[i + 1].node : node);
        map = ir::WithAttr(std::move(map), key.s, std::move(value));
      }
      return ir::AttrValue(std::move(map));
    }
    default:
      break;
  }
  Error(node, std::string(ValueKindName(v.kind)) + " cannot be used as an attribute value");
}

std::string Lowerer::ToStr(const Value& v, const PyExpr* node, const char* what) {
  if (v.kind != Value::Kind::kStr) {
    Error(node,
          std::string("expected a string for ") + what + " but found " + ValueKindName(v.kind));
  }
  return v.s;
}

int64_t Lowerer::ToInt(const Value& v, const PyExpr* node, const char* what) {
  if (v.kind == Value::Kind::kInt) return v.i;
  if (v.kind == Value::Kind::kBool) return v.b ? 1 : 0;
  if (v.kind == Value::Kind::kPrim) {
    if (auto c = ir::AsConstInt(v.prim)) return *c;
  }
  Error(node,
        std::string("expected an integer for ") + what + " but found " + ValueKindName(v.kind));
}

bool Lowerer::ToBool(const Value& v, const PyExpr* node, const char* what) {
  if (v.kind == Value::Kind::kBool) return v.b;
  if (v.kind == Value::Kind::kInt && (v.i == 0 || v.i == 1)) return v.i == 1;
  Error(node,
        std::string("expected True or False for ") + what + " but found " + ValueKindName(v.kind));
}

DataType Lowerer::ToDType(const Value& v, const PyExpr* node) {
  std::string s = ToStr(v, node, "a dtype");
  if (s.empty()) return DataType::Void();
  std::optional<DataType> dtype = DataType::Parse(s);
  if (!dtype) Error(node, "invalid dtype '" + s + "'");
  return *dtype;
}

void Lowerer::MatchDTypes(ir::PrimExpr* a, ir::PrimExpr* b, bool a_literal, bool b_literal,
                          const PyExpr* node) {
  DataType ta = (*a)->dtype();
  DataType tb = (*b)->dtype();
  if (ta == tb) return;
  auto convert_literal = [&](const ir::PrimExpr& lit, DataType to) -> ir::PrimExpr {
    if (const auto* i = ir::As<ir::IntImmNode>(lit)) {
      if (to.is_float()) {
        return ir::Make<ir::FloatImmNode>(to, static_cast<double>(i->value()), lit->span());
      }
      return MakeIntImm(i->value(), to, node);
    }
    if (const auto* f = ir::As<ir::FloatImmNode>(lit)) {
      if (to.is_float()) return ir::Make<ir::FloatImmNode>(to, f->value(), lit->span());
    }
    return ir::Make<ir::CastNode>(to, lit, lit->span());
  };
  if (a_literal && !b_literal) {
    *a = convert_literal(*a, tb);
    return;
  }
  if (b_literal && !a_literal) {
    *b = convert_literal(*b, ta);
    return;
  }
  ir::MatchOperandDTypes(a, b);
}

}  // namespace pipesplit::script
