// Printer: calls. Ops print as R.<name>(args..., attrs..., sinfo_args=(...)); calls of an
// ExternFunc as R.call_packed("sym", ...); the call_tir family with out_sinfo= (current
// syntax: out_ty=, tir_vars merged into the argument tuple); R.print / R.assert_op with their
// format argument by keyword, as TVM does.
#include "pipesplit/ir/op.h"
#include "src/script/printer/printer_internal.h"

namespace pipesplit::script::printer {
namespace {

// The position among Call::args of the argument TVM prints by keyword `name`: the op table's
// position for it (OpParam::arg_index, else its place among the Relax arguments), TVM's fixed
// position when the table does not say; none when the table stores it as an attribute.
std::optional<size_t> KeywordArgIndex(const ir::CallNode& call, std::string_view name,
                                      size_t fallback) {
  const ir::OpInfo* info = call.op_node()->info();
  std::optional<size_t> index = fallback;
  const ir::OpParam* param = info != nullptr ? ir::FindParam(*info, name) : nullptr;
  if (param != nullptr && param->kind == ir::OpParam::Kind::kAttr) return std::nullopt;
  if (param != nullptr && param->kind == ir::OpParam::Kind::kArg) {
    if (param->arg_index >= 0) {
      index = static_cast<size_t>(param->arg_index);
    } else {
      size_t position = 0;
      for (const ir::OpParam& p : info->params) {
        if (&p == param) {
          index = position;
          break;
        }
        if (p.kind == ir::OpParam::Kind::kVariadic) break;  // unknown: keep TVM's position
        if (p.kind == ir::OpParam::Kind::kArg) ++position;
      }
    }
  }
  if (*index >= call.args().size()) return std::nullopt;
  return index;
}

}  // namespace

bool Printer::CallTirFamily(const ir::CallNode& call, std::string* out) {
  const ir::OpNode* op = call.op_node();
  if (op == nullptr) return false;
  // string_view comparisons: the lengths first (most calls are other ops).
  std::string_view name = op->name();
  bool is_tir = name == std::string_view("relax.call_tir");
  bool is_inplace = name == std::string_view("relax.call_tir_inplace");
  bool is_grad = name == std::string_view("relax.call_tir_with_grad");
  bool is_dps = name == std::string_view("relax.call_dps_packed");
  bool is_local_view = name == std::string_view("relax.dist.call_tir_local_view");
  if (!is_tir && !is_inplace && !is_grad && !is_dps && !is_local_view) return false;
  const auto& args = call.args();
  if ((args.size() != 2 && args.size() != 3) || call.sinfo_args().size() != 1) {
    return false;  // not TVM's form; printed as a plain call
  }
  usage_ |= kUseRelax;
  // callee(pos..., kwargs...), appended in the order TVM evaluates them.
  if (is_grad) {
    *out += "R.call_tir_with_grad(";
  } else if (is_dps) {
    *out += "R.call_dps_packed(";
  } else if (is_local_view) {
    *out += "R.dist.call_tir_local_view(";
  } else if (is_inplace) {
    *out += "R.call_tir_inplace(";
  } else {
    *out += "R.call_tir(";
  }
  Callee(args[0], out);
  *out += ", ";
  // Current syntax: the symbolic values of tir_vars join the argument tuple.
  bool merged = false;
  if (current() && args.size() == 3 && ir::Is<ir::TupleNode>(args[1]) &&
      ir::Is<ir::ShapeExprNode>(args[2])) {
    const std::vector<ir::Expr>& fields = ir::As<ir::TupleNode>(args[1])->fields();
    const std::vector<ir::PrimExpr>& values = ir::As<ir::ShapeExprNode>(args[2])->values();
    if (fields.empty() && values.empty()) {
      *out += "R.tuple()";
    } else {
      Tuple(fields.size() + values.size(), out, [&](size_t i) {
        if (i < fields.size()) {
          Expr(fields[i], out);
        } else {
          *out += PrimStr(values[i - fields.size()]);
        }
      });
    }
    merged = true;
  } else {
    Expr(args[1], out);
  }
  *out += current() ? ", out_ty=" : ", out_sinfo=";
  const ir::StructInfo& out_sinfo = call.sinfo_args()[0];
  if (const auto* tuple = ir::As<ir::TupleSInfoNode>(out_sinfo)) {
    *out += '[';
    for (size_t i = 0; i < tuple->fields().size(); ++i) {
      if (i > 0) *out += ", ";
      SInfo(tuple->fields()[i], out);
    }
    *out += ']';
  } else {
    SInfo(out_sinfo, out);
  }
  if (is_inplace) {
    *out += ", inplace_indices=";
    if (const ir::AttrValue* v = ir::FindAttr(call.attrs(), "inplace_indices")) {
      bool is_list = v->as_list() != nullptr;
      if (!is_list) *out += '[';
      Attr(*v, out);
      if (!is_list) *out += ']';
    } else {
      *out += "[]";
    }
  }
  if (is_grad) {
    if (const ir::AttrValue* v = ir::FindAttr(call.attrs(), "te_grad_name")) {
      *out += ", te_grad_name=";
      Attr(*v, out);
    }
    const ir::AttrValue* kw = ir::FindAttr(call.attrs(), "te_grad_kwargs");
    if (kw != nullptr && kw->as_map() != nullptr && !kw->as_map()->empty()) {
      *out += ", te_grad_kwargs=";
      Attr(*kw, out);
    }
  }
  if (args.size() == 3 && !merged && !is_grad && !is_dps) {
    *out += ", tir_vars=";
    Expr(args[2], out);
  }
  *out += ')';
  return true;
}

void Printer::Call(const ir::CallNode& call, std::string* out) {
  if (CallTirFamily(call, out)) return;
  const ir::OpNode* op = call.op_node();
  // R.print(vals..., format=f) and R.assert_op(cond, vals..., format=f): the format string is
  // a Relax argument that TVM prints by keyword.
  std::optional<size_t> format_index;
  if (op != nullptr && op->name() == "relax.print") {
    format_index = KeywordArgIndex(call, "format", 0);
  } else if (op != nullptr && op->name() == "relax.assert_op") {
    format_index = KeywordArgIndex(call, "format", 1);
  }
  bool first = true;
  auto next_part = [&] {
    if (!first) *out += ", ";
    first = false;
  };
  if (const auto* ext = ir::As<ir::ExternFuncNode>(call.op())) {
    usage_ |= kUseRelax;
    *out += "R.call_packed(";
    next_part();
    AppendQuoted(ext->global_symbol(), out);
  } else if (op != nullptr) {
    *out += op->script_name();
    if (op->script_name() != op->name()) usage_ |= kUseRelax;  // spelled through R.
    *out += '(';
  } else {
    Expr(call.op(), out);
    *out += '(';
  }
  std::string format_text;
  for (size_t i = 0; i < call.args().size(); ++i) {
    if (format_index && *format_index == i) {
      // Printed last, by keyword, but evaluated in its place.
      if (i == 0) {
        Callee(call.args()[i], &format_text);
      } else {
        Expr(call.args()[i], &format_text);
      }
      continue;
    }
    next_part();
    if (i == 0) {
      Callee(call.args()[i], out);
    } else {
      Expr(call.args()[i], out);
    }
  }
  if (format_index) {
    next_part();
    *out += "format=";
    *out += format_text;
  }
  // Attributes in TVM's declaration order when the op table knows the op.
  const ir::AttrMap& attrs = call.attrs();
  auto attr = [&](const std::string& key, const ir::AttrValue& value) {
    next_part();
    *out += key;
    *out += '=';
    if (current() && op != nullptr && op->info() != nullptr) {
      // An unset optional dtype (TVM's Optional<DLDataType>) prints as None.
      const ir::OpParam* p = ir::FindParam(*op->info(), key);
      const std::string* s = value.as_string();
      if (p != nullptr && p->optional_dtype && s != nullptr && (*s == "void" || s->empty())) {
        *out += "None";
        return;
      }
    }
    Attr(value, out);
  };
  if (op != nullptr && op->info() != nullptr && config_.complete_attrs) {
    for (const auto& [key, value] : ir::CompleteAttrs(*op->info(), attrs, call.args())) {
      attr(key, value);
    }
  } else if (op != nullptr && op->info() != nullptr && attrs.size() > 1) {
    for (const auto& [key, value] : ir::OrderAttrs(*op->info(), attrs)) attr(key, value);
  } else {
    for (const auto& [key, value] : attrs) attr(key, value);
  }
  if (!call.sinfo_args().empty()) {
    next_part();
    *out += current() ? "ty_args=" : "sinfo_args=";
    const std::vector<ir::StructInfo>& sinfos = call.sinfo_args();
    Tuple(sinfos.size(), out, [&](size_t i) { SInfo(sinfos[i], out); });
  }
  *out += ')';
}

}  // namespace pipesplit::script::printer
