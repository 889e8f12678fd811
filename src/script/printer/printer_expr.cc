// Printer: Relax expressions (vars, `cls.f` references, constants, tuples, shapes, prim
// values, strings, dtypes, extern funcs) and attribute values.
#include <algorithm>
#include <cmath>
#include <limits>

#include "src/script/printer/printer_internal.h"

namespace pipesplit::script::printer {
namespace {

using ir::NodeKind;

bool HasDefaultExternSInfo(const ir::ExternFuncNode& func) {
  const auto* s = ir::As<ir::FuncSInfoNode>(func.struct_info());
  if (func.struct_info() == nullptr) return true;
  return s != nullptr && !s->params() && !s->is_pure() && ir::Is<ir::ObjectSInfoNode>(s->ret());
}

// One element of an R.const literal: it follows the dtype, whatever C++ type holds the value.
void ConstScalar(const ir::ConstantNode::Scalar& value, DataType dtype, std::string* out) {
  double d = 0;
  if (const auto* i = std::get_if<int64_t>(&value)) d = static_cast<double>(*i);
  if (const auto* f = std::get_if<double>(&value)) d = *f;
  if (const auto* b = std::get_if<bool>(&value)) d = *b ? 1 : 0;
  if (dtype.is_bool()) {
    *out += d != 0 ? "True" : "False";
  } else if (dtype.is_float()) {
    *out += FloatLiteral(ir::RoundToDType(d, dtype));
  } else if (const auto* i = std::get_if<int64_t>(&value)) {
    AppendInt(*i, out);
  } else {
    AppendInt(static_cast<int64_t>(d), out);
  }
}

}  // namespace

void Printer::RelaxVar(const ir::VarNode& var, std::string* out) {
  if (config_.fragment) {
    *out += SanitizeName(var.name_hint());
    return;
  }
  if (const std::string* name = NameOf(&var)) {
    *out += *name;
    return;
  }
  // A var used before any definition (ill-formed, or a fragment): TVM declares it in place.
  Frame* f = InnermostFrame();
  if (current() && ir::Is<ir::PrimSInfoNode>(var.struct_info())) {
    Frame* rf = RelaxFrame();
    if (rf != nullptr) f = rf;
    const auto* prim = ir::As<ir::PrimSInfoNode>(var.struct_info());
    const std::string& name = Define(&var, var.name_hint(), f);
    usage_ |= kUseTir;
    f->stmts.push_back(StmtDoc::Line(name + " = T." + prim->dtype().ToString() + "()"));
    *out += name;
    return;
  }
  std::string ann = SInfo(var.struct_info());
  const std::string& name = Define(&var, var.name_hint(), f);
  f->stmts.push_back(StmtDoc::Line(name + ": " + ann));
  *out += name;
}

void Printer::GlobalVarRef(const ir::GlobalVarNode& gvar, std::string* out) {
  const std::string& name = gvar.name_hint();
  if (!config_.one_line) {  // one line: `cls.f`, as a function body refers to it
    auto [known, inserted] = gvar_in_module_.try_emplace(&gvar, false);
    if (inserted) known->second = mod_ != nullptr && mod_->Find(name) != nullptr;
    if (!known->second || config_.fragment) {
      *out += name;
      return;
    }
    Frame* f = RelaxFrame();
    if (f == nullptr || !f->is_func) {
      *out += "Module.";
      *out += name;
      return;
    }
    if (!f->module_alias_printed) {
      f->stmts.push_back(StmtDoc::Line("cls = Module"));
      f->module_alias_printed = true;
    }
  }
  *out += "cls.";
  *out += name;
}

void Printer::ExternFuncExpr(const ir::ExternFuncNode& func, std::string* out) {
  usage_ |= kUseRelax;
  *out += "R.ExternFunc(";
  AppendQuoted(func.global_symbol(), out);
  if (!HasDefaultExternSInfo(func)) {
    *out += ", ";
    SInfo(func.struct_info(), out);
  }
  *out += ')';
}

void Printer::Callee(const ir::Expr& expr, std::string* out) {
  if (const auto* ext = ir::As<ir::ExternFuncNode>(expr)) {
    AppendQuoted(ext->global_symbol(), out);
    return;
  }
  Expr(expr, out);
}

void Printer::Expr(const ir::Expr& expr, std::string* out) {
  if (!expr) {
    *out += "<null>";
    return;
  }
  Nest nest(this);
  if (nest.too_deep()) {
    *out += "...";
    return;
  }
  switch (expr->kind()) {
    case NodeKind::kVar:
    case NodeKind::kDataflowVar:
      return RelaxVar(*ir::As<ir::VarNode>(expr), out);
    case NodeKind::kGlobalVar:
      return GlobalVarRef(*ir::As<ir::GlobalVarNode>(expr), out);
    case NodeKind::kConstant: {
      const auto* n = ir::As<ir::ConstantNode>(expr);
      if (n->is_metadata()) {
        usage_ |= kUseMetadata;
        *out += "metadata[\"relax.expr.Constant\"][";
        AppendInt(n->metadata_index(), out);
        *out += ']';
        return;
      }
      usage_ |= kUseRelax;
      *out += "R.const(";
      if (n->is_tensor()) {
        // A tensor literal as the nested list TVM's parser reads back (TVM itself prints it as
        // a metadata reference, which loses the values).
        size_t next = 0;
        auto nest = [&](auto&& self, size_t depth) -> void {
          *out += '[';
          for (int64_t i = 0; i < n->shape()[depth]; ++i) {
            if (i > 0) *out += ", ";
            if (depth + 1 < n->shape().size()) {
              self(self, depth + 1);
            } else {
              ConstScalar(n->elements()[next++], n->dtype(), out);
            }
          }
          *out += ']';
        };
        nest(nest, 0);
      } else {
        ConstScalar(n->scalar(), n->dtype(), out);
      }
      *out += ", ";
      *out += QuoteString(n->dtype().ToString());
      *out += ')';
      return;
    }
    case NodeKind::kTuple: {
      const auto* n = ir::As<ir::TupleNode>(expr);
      if (n->fields().empty()) {
        usage_ |= kUseRelax;
        *out += "R.tuple()";
        return;
      }
      Tuple(n->fields().size(), out, [&](size_t i) { Expr(n->fields()[i], out); });
      return;
    }
    case NodeKind::kTupleGetItem: {
      const auto* n = ir::As<ir::TupleGetItemNode>(expr);
      Expr(n->tuple(), out);
      *out += '[';
      AppendInt(n->index(), out);
      *out += ']';
      return;
    }
    case NodeKind::kShapeExpr: {
      const auto* n = ir::As<ir::ShapeExprNode>(expr);
      usage_ |= kUseRelax;
      *out += "R.shape([";
      for (size_t i = 0; i < n->values().size(); ++i) {
        if (i > 0) *out += ", ";
        Dim(n->values()[i], out);
      }
      *out += "])";
      return;
    }
    case NodeKind::kPrimValue: {
      const auto* n = ir::As<ir::PrimValueNode>(expr);
      if (current()) {
        *out += PrimStr(n->value());
        return;
      }
      usage_ |= kUseRelax;
      *out += "R.prim_value(";
      *out += PrimStr(n->value());
      *out += ')';
      return;
    }
    case NodeKind::kStringImm:
      usage_ |= kUseRelax;
      *out += "R.str(";
      *out += QuoteString(ir::As<ir::StringImmNode>(expr)->value());
      *out += ')';
      return;
    case NodeKind::kDataTypeImm:
      usage_ |= kUseRelax;
      *out += "R.dtype(";
      *out += QuoteString(ir::As<ir::DataTypeImmNode>(expr)->value().ToString());
      *out += ')';
      return;
    case NodeKind::kOp:
      usage_ |= kUseIr;
      *out += "I.Op(";
      *out += QuoteString(ir::As<ir::OpNode>(expr)->name());
      *out += ')';
      return;
    case NodeKind::kExternFunc:
      return ExternFuncExpr(*ir::As<ir::ExternFuncNode>(expr), out);
    case NodeKind::kCall:
      return Call(*ir::As<ir::CallNode>(expr), out);
    case NodeKind::kPrimFunc:
      *out += ir::As<ir::PrimFuncNode>(expr)->name();
      return;
    case NodeKind::kIf:
    case NodeKind::kSeqExpr:
    case NodeKind::kFunction:
    PIPESPLIT_KINDS_OUTSIDE_EXPR:
      // If / SeqExpr / Function only occur as statements; TVM cannot print them inline.
      *out += config_.one_line ? Summary(expr) : "<unprintable>";
      return;
  }
  PS_UNREACHABLE();
}

void Printer::AttrDict(const ir::AttrMap& map, std::string* out) {
  std::vector<const std::pair<std::string, ir::AttrValue>*> items;
  items.reserve(map.size());
  for (const auto& kv : map) items.push_back(&kv);
  std::sort(items.begin(), items.end(),
            [](const auto* a, const auto* b) { return a->first < b->first; });
  *out += '{';
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) *out += ", ";
    *out += QuoteString(items[i]->first);
    *out += ": ";
    Attr(items[i]->second, out);
  }
  *out += '}';
}

void Printer::Lambda(const ir::AttrList& params, const ir::AttrValue& body, std::string* out) {
  // The parameters are defined in a frame of their own (TVM's TIRFrame for an index map), so
  // their names are freed after the lambda.
  FrameScope frame(this);
  frame->is_relax = false;
  *out += "lambda ";
  for (size_t i = 0; i < params.size(); ++i) {
    if (i > 0) *out += ", ";
    const ir::AttrValue& p = params[i];
    const ir::PrimExpr* e = p.as_prim_expr();
    const auto* var = e != nullptr ? ir::As<ir::TirVarNode>(*e) : nullptr;
    if (var == nullptr) {
      Attr(p, out);
    } else if (config_.fragment) {
      *out += SanitizeName(var->name());
    } else {
      *out += Define(TirKey(*var), var->name(), frame.get());
    }
  }
  *out += ": ";
  // TVM prints the body of an index map as a tuple.
  if (const ir::AttrList* list = body.as_list()) {
    Tuple(list->size(), out, [&](size_t i) { Attr((*list)[i], out); });
  } else {
    Attr(body, out);
  }
}

void Printer::Attr(const ir::AttrValue& value, std::string* out) {
  Nest nest(this);
  if (nest.too_deep()) {
    *out += "...";
    return;
  }
  const ir::AttrValue::Variant& v = value.value();
  if (value.is_none()) {
    *out += "None";
  } else if (const bool* b = std::get_if<bool>(&v)) {
    *out += *b ? "True" : "False";
  } else if (const int64_t* i = std::get_if<int64_t>(&v)) {
    AppendInt(*i, out);
  } else if (const double* d = std::get_if<double>(&v)) {
    *out += FloatLiteral(*d);
  } else if (const std::string* s = std::get_if<std::string>(&v)) {
    *out += QuoteString(*s);
  } else if (const ir::PrimExpr* e = value.as_prim_expr()) {
    *out += PrimStr(*e);
  } else if (const ir::Expr* e = value.as_expr()) {
    Expr(*e, out);
  } else if (const ir::AttrList* list = value.as_list()) {
    *out += '[';
    for (size_t i = 0; i < list->size(); ++i) {
      if (i > 0) *out += ", ";
      Attr((*list)[i], out);
    }
    *out += ']';
  } else if (const ir::AttrMap* map = value.as_map()) {
    AttrDict(*map, out);
  } else if (const ir::AttrCall* call = value.as_call()) {
    if (call->callee == "lambda" && call->args.size() == 2 && call->args[0].as_list()) {
      return Lambda(*call->args[0].as_list(), call->args[1], out);
    }
    std::string_view callee = call->callee;
    if (callee.substr(0, 2) == "I.") usage_ |= kUseIr;
    if (callee.substr(0, 2) == "T.") usage_ |= kUseTir;
    if (callee.substr(0, 2) == "R.") usage_ |= kUseRelax;
    *out += call->callee;
    *out += '(';
    bool first = true;
    for (const ir::AttrValue& a : call->args) {
      if (!first) *out += ", ";
      first = false;
      Attr(a, out);
    }
    for (const auto& [key, a] : call->kwargs) {
      // TVM prints an index map as its lambda (and inverse) only: the index dtype is the
      // dtype of the lambda's variables.
      if (call->callee == "T.index_map" && key == "index_dtype") continue;
      if (!first) *out += ", ";
      first = false;
      *out += key;
      *out += '=';
      Attr(a, out);
    }
    *out += ')';
  } else {
    *out += "None";
  }
}

}  // namespace pipesplit::script::printer
