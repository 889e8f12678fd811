// Printer: calls. Ops print as R.<name>(args..., attrs..., sinfo_args=(...)); calls of an
// ExternFunc as R.call_packed("sym", ...); the call_tir family with out_sinfo= (current
// syntax: out_ty=, tir_vars merged into the argument tuple); R.print / R.assert_op with their
// format argument by keyword, as TVM does.
#include "pipesplit/ir/op.h"
#include "src/script/printer_internal.h"

namespace pipesplit::script::printer {
namespace {

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += ", ";
    out += parts[i];
  }
  return out;
}

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

std::optional<std::string> Printer::CallTirFamily(const ir::CallNode& call) {
  const ir::OpNode* op = call.op_node();
  if (op == nullptr) return std::nullopt;
  const std::string& name = op->name();
  bool is_tir = name == "relax.call_tir";
  bool is_inplace = name == "relax.call_tir_inplace";
  bool is_grad = name == "relax.call_tir_with_grad";
  bool is_dps = name == "relax.call_dps_packed";
  bool is_local_view = name == "relax.dist.call_tir_local_view";
  if (!is_tir && !is_inplace && !is_grad && !is_dps && !is_local_view) return std::nullopt;
  const auto& args = call.args();
  if ((args.size() != 2 && args.size() != 3) || call.sinfo_args().size() != 1) {
    return std::nullopt;  // not TVM's form; printed as a plain call
  }
  std::vector<std::string> pos;
  std::vector<std::string> kwargs;
  pos.push_back(Callee(args[0]));
  // Current syntax: the symbolic values of tir_vars join the argument tuple.
  bool merged = false;
  if (current() && args.size() == 3 && ir::Is<ir::TupleNode>(args[1]) &&
      ir::Is<ir::ShapeExprNode>(args[2])) {
    std::vector<std::string> fields;
    for (const ir::Expr& f : ir::As<ir::TupleNode>(args[1])->fields()) fields.push_back(Expr(f));
    for (const ir::PrimExpr& v : ir::As<ir::ShapeExprNode>(args[2])->values()) {
      fields.push_back(PrimStr(v));
    }
    usage_ |= kUseRelax;
    pos.push_back(fields.empty() ? "R.tuple()" : Tuple(fields));
    merged = true;
  } else {
    pos.push_back(Expr(args[1]));
  }
  const ir::StructInfo& out = call.sinfo_args()[0];
  std::string out_text;
  if (const auto* tuple = ir::As<ir::TupleSInfoNode>(out)) {
    std::vector<std::string> fields;
    for (const ir::StructInfo& f : tuple->fields()) fields.push_back(SInfo(f));
    out_text = "[" + Join(fields) + "]";
  } else {
    out_text = SInfo(out);
  }
  kwargs.push_back((current() ? "out_ty=" : "out_sinfo=") + out_text);
  if (is_inplace) {
    std::string indices;
    if (const ir::AttrValue* v = ir::FindAttr(call.attrs(), "inplace_indices")) {
      indices = v->as_list() != nullptr ? Attr(*v) : "[" + Attr(*v) + "]";
    } else {
      indices = "[]";
    }
    kwargs.push_back("inplace_indices=" + indices);
  }
  if (is_grad) {
    if (const ir::AttrValue* v = ir::FindAttr(call.attrs(), "te_grad_name")) {
      kwargs.push_back("te_grad_name=" + Attr(*v));
    }
    const ir::AttrValue* kw = ir::FindAttr(call.attrs(), "te_grad_kwargs");
    if (kw != nullptr && kw->as_map() != nullptr && !kw->as_map()->empty()) {
      kwargs.push_back("te_grad_kwargs=" + Attr(*kw));
    }
  }
  usage_ |= kUseRelax;
  auto result = [&](const char* callee) {  // callee(pos..., kwargs...), built in place
    size_t size = std::char_traits<char>::length(callee) + 2;
    for (const std::vector<std::string>* list : {&pos, &kwargs}) {
      for (const std::string& part : *list) size += part.size() + 2;
    }
    std::string out;
    out.reserve(size);
    out += callee;
    out += '(';
    bool first = true;
    for (const std::vector<std::string>* list : {&pos, &kwargs}) {
      for (const std::string& part : *list) {
        if (!first) out += ", ";
        out += part;
        first = false;
      }
    }
    out += ')';
    return out;
  };
  if (is_grad) return result("R.call_tir_with_grad");
  if (is_dps) return result("R.call_dps_packed");
  if (args.size() == 3 && !merged) kwargs.push_back("tir_vars=" + Expr(args[2]));
  if (is_local_view) return result("R.dist.call_tir_local_view");
  if (is_inplace) return result("R.call_tir_inplace");
  return result("R.call_tir");
}

std::string Printer::Call(const ir::CallNode& call) {
  if (std::optional<std::string> text = CallTirFamily(call)) return *text;
  std::string prefix;
  std::vector<std::string> parts;
  const ir::OpNode* op = call.op_node();
  // R.print(vals..., format=f) and R.assert_op(cond, vals..., format=f): the format string is
  // a Relax argument that TVM prints by keyword.
  std::optional<size_t> format_index;
  if (op != nullptr && op->name() == "relax.print") {
    format_index = KeywordArgIndex(call, "format", 0);
  } else if (op != nullptr && op->name() == "relax.assert_op") {
    format_index = KeywordArgIndex(call, "format", 1);
  }
  if (const auto* ext = ir::As<ir::ExternFuncNode>(call.op())) {
    usage_ |= kUseRelax;
    prefix = "R.call_packed";
    parts.push_back(QuoteString(ext->global_symbol()));
  } else if (op != nullptr) {
    prefix = op->script_name();
    if (prefix != op->name()) usage_ |= kUseRelax;  // spelled through R.
  } else {
    prefix = Expr(call.op());
  }
  std::string format_text;
  for (size_t i = 0; i < call.args().size(); ++i) {
    std::string arg = i == 0 ? Callee(call.args()[i]) : Expr(call.args()[i]);
    if (format_index && *format_index == i) {
      format_text = std::move(arg);
    } else {
      parts.push_back(std::move(arg));
    }
  }
  if (format_index) parts.push_back("format=" + format_text);
  // Attributes in TVM's declaration order when the op table knows the op.
  const ir::AttrMap& attrs = call.attrs();
  if (op != nullptr && op->info() != nullptr && config_.complete_attrs) {
    for (const auto& [key, value] : ir::CompleteAttrs(*op->info(), attrs, call.args())) {
      parts.push_back(key + "=" + Attr(value));
    }
  } else if (op != nullptr && op->info() != nullptr && attrs.size() > 1) {
    for (const auto& [key, value] : ir::OrderAttrs(*op->info(), attrs)) {
      parts.push_back(key + "=" + Attr(value));
    }
  } else {
    for (const auto& [key, value] : attrs) parts.push_back(key + "=" + Attr(value));
  }
  if (!call.sinfo_args().empty()) {
    std::vector<std::string> sinfos;
    for (const ir::StructInfo& s : call.sinfo_args()) sinfos.push_back(SInfo(s));
    parts.push_back((current() ? "ty_args=" : "sinfo_args=") + Tuple(sinfos));
  }
  return prefix + "(" + Join(parts) + ")";
}

}  // namespace pipesplit::script::printer
