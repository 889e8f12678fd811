// Printer: Relax expressions (vars, `cls.f` references, constants, tuples, shapes, prim
// values, strings, dtypes, extern funcs) and attribute values.
#include <algorithm>
#include <cmath>
#include <limits>

#include "src/script/printer_internal.h"

namespace pipesplit::script::printer {
namespace {

using ir::NodeKind;

bool HasDefaultExternSInfo(const ir::ExternFuncNode& func) {
  const auto* s = ir::As<ir::FuncSInfoNode>(func.struct_info());
  if (func.struct_info() == nullptr) return true;
  return s != nullptr && !s->params() && !s->is_pure() && ir::Is<ir::ObjectSInfoNode>(s->ret());
}

// Rounds to the precision of the constant's dtype, as TVM stores it (float32, float16).
double RoundToDtype(double value, DataType dtype) {
  if (dtype == DataType::Float(32)) return static_cast<double>(static_cast<float>(value));
  if (dtype == DataType::Float(16) && std::isfinite(value) && value != 0) {
    // Round to 11 significant bits, with the subnormal step 2^-24 below 2^-14.
    int exp = 0;
    std::frexp(value, &exp);  // value = m * 2^exp, 0.5 <= |m| < 1
    int step_exp = std::max(exp - 11, -24);
    double step = std::ldexp(1.0, step_exp);
    double rounded = std::nearbyint(value / step) * step;
    if (std::fabs(rounded) > 65504.0)
      return std::copysign(std::numeric_limits<double>::infinity(), value);
    return rounded;
  }
  return value;
}

}  // namespace

std::string Printer::RelaxVar(const ir::VarNode& var) {
  if (config_.fragment) return SanitizeName(var.name_hint());
  if (const std::string* name = NameOf(&var)) return *name;
  // A var used before any definition (ill-formed, or a fragment): TVM declares it in place.
  Frame* f = InnermostFrame();
  if (current() && ir::Is<ir::PrimSInfoNode>(var.struct_info())) {
    Frame* rf = RelaxFrame();
    if (rf != nullptr) f = rf;
    const auto* prim = ir::As<ir::PrimSInfoNode>(var.struct_info());
    const std::string& name = Define(&var, var.name_hint(), f);
    usage_ |= kUseTir;
    f->stmts.push_back(StmtDoc::Line(name + " = T." + prim->dtype().ToString() + "()"));
    return name;
  }
  std::string ann = SInfo(var.struct_info());
  const std::string& name = Define(&var, var.name_hint(), f);
  f->stmts.push_back(StmtDoc::Line(name + ": " + ann));
  return name;
}

std::string Printer::GlobalVarRef(const ir::GlobalVarNode& gvar) {
  const std::string& name = gvar.name_hint();
  if (config_.one_line) return "cls." + name;  // as a function body refers to it
  if (mod_ == nullptr || mod_->Find(name) == nullptr || config_.fragment) return name;
  Frame* f = RelaxFrame();
  if (f == nullptr || !f->is_func) return "Module." + name;
  if (!f->module_alias_printed) {
    f->stmts.push_back(StmtDoc::Line("cls = Module"));
    f->module_alias_printed = true;
  }
  return "cls." + name;
}

std::string Printer::ExternFuncExpr(const ir::ExternFuncNode& func) {
  usage_ |= kUseRelax;
  std::string out = "R.ExternFunc(" + QuoteString(func.global_symbol());
  if (!HasDefaultExternSInfo(func)) out += ", " + SInfo(func.struct_info());
  out += ')';
  return out;
}

std::string Printer::Callee(const ir::Expr& expr) {
  if (const auto* ext = ir::As<ir::ExternFuncNode>(expr)) return QuoteString(ext->global_symbol());
  return Expr(expr);
}

std::string Printer::Expr(const ir::Expr& expr) {
  if (!expr) return "<null>";
  Nest nest(this);
  if (nest.too_deep()) return "...";
  switch (expr->kind()) {
    case NodeKind::kVar:
    case NodeKind::kDataflowVar:
      return RelaxVar(*ir::As<ir::VarNode>(expr));
    case NodeKind::kGlobalVar:
      return GlobalVarRef(*ir::As<ir::GlobalVarNode>(expr));
    case NodeKind::kConstant: {
      const auto* n = ir::As<ir::ConstantNode>(expr);
      if (n->is_metadata()) {
        usage_ |= kUseMetadata;
        return "metadata[\"relax.expr.Constant\"][" + std::to_string(n->metadata_index()) + "]";
      }
      usage_ |= kUseRelax;
      // The literal follows the dtype, whatever C++ type holds the value.
      double d = 0;
      if (const auto* i = std::get_if<int64_t>(&n->scalar())) d = static_cast<double>(*i);
      if (const auto* f = std::get_if<double>(&n->scalar())) d = *f;
      if (const auto* b = std::get_if<bool>(&n->scalar())) d = *b ? 1 : 0;
      std::string value;
      if (n->dtype().is_bool()) {
        value = d != 0 ? "True" : "False";
      } else if (n->dtype().is_float()) {
        value = FloatLiteral(RoundToDtype(d, n->dtype()));
      } else if (const auto* i = std::get_if<int64_t>(&n->scalar())) {
        value = std::to_string(*i);
      } else {
        value = std::to_string(static_cast<int64_t>(d));
      }
      return "R.const(" + value + ", " + QuoteString(n->dtype().ToString()) + ")";
    }
    case NodeKind::kTuple: {
      const auto* n = ir::As<ir::TupleNode>(expr);
      if (n->fields().empty()) {
        usage_ |= kUseRelax;
        return "R.tuple()";
      }
      std::vector<std::string> fields;
      fields.reserve(n->fields().size());
      for (const ir::Expr& f : n->fields()) fields.push_back(Expr(f));
      return Tuple(fields);
    }
    case NodeKind::kTupleGetItem: {
      const auto* n = ir::As<ir::TupleGetItemNode>(expr);
      return Expr(n->tuple()) + "[" + std::to_string(n->index()) + "]";
    }
    case NodeKind::kShapeExpr: {
      const auto* n = ir::As<ir::ShapeExprNode>(expr);
      usage_ |= kUseRelax;
      std::string out = "R.shape([";
      for (size_t i = 0; i < n->values().size(); ++i) {
        if (i > 0) out += ", ";
        out += Dim(n->values()[i]);
      }
      out += "])";
      return out;
    }
    case NodeKind::kPrimValue: {
      const auto* n = ir::As<ir::PrimValueNode>(expr);
      if (current()) return PrimStr(n->value());
      usage_ |= kUseRelax;
      return "R.prim_value(" + PrimStr(n->value()) + ")";
    }
    case NodeKind::kStringImm:
      usage_ |= kUseRelax;
      return "R.str(" + QuoteString(ir::As<ir::StringImmNode>(expr)->value()) + ")";
    case NodeKind::kDataTypeImm:
      usage_ |= kUseRelax;
      return "R.dtype(" + QuoteString(ir::As<ir::DataTypeImmNode>(expr)->value().ToString()) + ")";
    case NodeKind::kOp:
      usage_ |= kUseIr;
      return "I.Op(" + QuoteString(ir::As<ir::OpNode>(expr)->name()) + ")";
    case NodeKind::kExternFunc:
      return ExternFuncExpr(*ir::As<ir::ExternFuncNode>(expr));
    case NodeKind::kCall:
      return Call(*ir::As<ir::CallNode>(expr));
    case NodeKind::kPrimFunc:
      return ir::As<ir::PrimFuncNode>(expr)->name();
    case NodeKind::kIf:
    case NodeKind::kSeqExpr:
    case NodeKind::kFunction:
    PIPESPLIT_KINDS_OUTSIDE_EXPR:
      // If / SeqExpr / Function only occur as statements; TVM cannot print them inline.
      return config_.one_line ? Summary(expr) : "<unprintable>";
  }
  PS_UNREACHABLE();
}

std::string Printer::AttrDict(const ir::AttrMap& map) {
  std::vector<const std::pair<std::string, ir::AttrValue>*> items;
  items.reserve(map.size());
  for (const auto& kv : map) items.push_back(&kv);
  std::sort(items.begin(), items.end(),
            [](const auto* a, const auto* b) { return a->first < b->first; });
  std::string out = "{";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += QuoteString(items[i]->first);
    out += ": ";
    out += Attr(items[i]->second);
  }
  out += '}';
  return out;
}

std::string Printer::Lambda(const ir::AttrList& params, const ir::AttrValue& body) {
  // The parameters are defined in a frame of their own (TVM's TIRFrame for an index map), so
  // their names are freed after the lambda.
  FrameScope frame(this);
  frame->is_relax = false;
  std::vector<std::string> names;
  for (const ir::AttrValue& p : params) {
    const ir::PrimExpr* e = p.as_prim_expr();
    const auto* var = e != nullptr ? ir::As<ir::TirVarNode>(*e) : nullptr;
    if (var == nullptr) {
      names.push_back(Attr(p));
      continue;
    }
    names.push_back(config_.fragment ? SanitizeName(var->name())
                                     : Define(TirKey(*var), var->name(), frame.get()));
  }
  std::string out = "lambda ";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ", ";
    out += names[i];
  }
  out += ": ";
  // TVM prints the body of an index map as a tuple.
  if (const ir::AttrList* list = body.as_list()) {
    std::vector<std::string> items;
    items.reserve(list->size());
    for (const ir::AttrValue& v : *list) items.push_back(Attr(v));
    out += Tuple(items);
  } else {
    out += Attr(body);
  }
  return out;
}

std::string Printer::Attr(const ir::AttrValue& value) {
  Nest nest(this);
  if (nest.too_deep()) return "...";
  const ir::AttrValue::Variant& v = value.value();
  if (value.is_none()) return "None";
  if (const bool* b = std::get_if<bool>(&v)) return *b ? "True" : "False";
  if (const int64_t* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const double* d = std::get_if<double>(&v)) return FloatLiteral(*d);
  if (const std::string* s = std::get_if<std::string>(&v)) return QuoteString(*s);
  if (const ir::PrimExpr* e = value.as_prim_expr()) return PrimStr(*e);
  if (const ir::Expr* e = value.as_expr()) return Expr(*e);
  if (const ir::AttrList* list = value.as_list()) {
    std::string out = "[";
    for (size_t i = 0; i < list->size(); ++i) {
      if (i > 0) out += ", ";
      out += Attr((*list)[i]);
    }
    out += ']';
    return out;
  }
  if (const ir::AttrMap* map = value.as_map()) return AttrDict(*map);
  if (const ir::AttrCall* call = value.as_call()) {
    if (call->callee == "lambda" && call->args.size() == 2 && call->args[0].as_list()) {
      return Lambda(*call->args[0].as_list(), call->args[1]);
    }
    std::string_view callee = call->callee;
    if (callee.substr(0, 2) == "I.") usage_ |= kUseIr;
    if (callee.substr(0, 2) == "T.") usage_ |= kUseTir;
    if (callee.substr(0, 2) == "R.") usage_ |= kUseRelax;
    std::string out = call->callee + "(";
    bool first = true;
    for (const ir::AttrValue& a : call->args) {
      if (!first) out += ", ";
      first = false;
      out += Attr(a);
    }
    for (const auto& [key, a] : call->kwargs) {
      // TVM prints an index map as its lambda (and inverse) only: the index dtype is the
      // dtype of the lambda's variables.
      if (call->callee == "T.index_map" && key == "index_dtype") continue;
      if (!first) out += ", ";
      first = false;
      out += key + "=" + Attr(a);
    }
    out += ')';
    return out;
  }
  return "None";
}

}  // namespace pipesplit::script::printer
