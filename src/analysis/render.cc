// Short renderings of IR fragments for diagnostics and difference reports. Struct info and
// simple expressions go through the TVMScript printer's fragment mode; functions, blocks and ifs
// (which the printer prints as whole statements) and IR the printer cannot take (missing pieces)
// are summarized by a local renderer that spells things the same way.
#include "src/analysis/render.h"

#include <exception>
#include <string_view>

#include "pipesplit/ir/op.h"
#include "pipesplit/ir/prim_text.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/text.h"

namespace pipesplit::analysis {
namespace {

using namespace ir;  // NOLINT: IR node names throughout

// Nesting below this depth renders as "...", so rendering never recurses deeply.
constexpr int kMaxRenderDepth = 12;

std::string VarName(const std::string& hint) { return hint.empty() ? "v" : hint; }

std::string OpName(const OpNode& op) {
  std::string_view name = op.name();
  if (name.substr(0, 6) == "relax.") name.remove_prefix(6);
  return "R." + std::string(name);
}

// Appends renderings to one bounded buffer; stops adding once the buffer is long enough.
class Renderer {
 public:
  std::string Finish() {
    if (out_.size() > kMaxRenderLength) {
      out_.resize(kMaxRenderLength);
      out_ += "...";
    }
    return std::move(out_);
  }

  bool Full() const { return out_.size() > kMaxRenderLength; }

  void Text(std::string_view text) {
    if (!Full()) out_ += text;
  }

  void Prim(const PrimExpr& e) {
    if (!e) return Text("<null>");
    if (!Full()) Text(ToString(e));
  }

  template <typename T, typename F>
  void List(const std::vector<T>& items, F&& each) {
    for (size_t i = 0; i < items.size() && !Full(); ++i) {
      if (i > 0) Text(", ");
      each(items[i]);
    }
  }

  void SInfo(const StructInfo& s, int depth = 0) {
    if (!s) return Text("<none>");
    if (depth > kMaxRenderDepth) return Text("...");
    switch (s->kind()) {
      case NodeKind::kObjectSInfo:
        return Text("R.Object");
      case NodeKind::kPrimSInfo: {
        const auto& n = static_cast<const PrimSInfoNode&>(*s);
        if (!n.value()) return Text("R.Prim(\"" + n.dtype().ToString() + "\")");
        Text("R.Prim(value=");
        Prim(n.value());
        return Text(")");
      }
      case NodeKind::kShapeSInfo: {
        const auto& n = static_cast<const ShapeSInfoNode&>(*s);
        if (n.values()) {
          Text("R.Shape([");
          List(*n.values(), [&](const PrimExpr& e) { Prim(e); });
          return Text("])");
        }
        if (n.ndim() < 0) return Text("R.Shape");
        return Text("R.Shape(ndim=" + std::to_string(n.ndim()) + ")");
      }
      case NodeKind::kTensorSInfo: {
        const auto& n = static_cast<const TensorSInfoNode&>(*s);
        bool any = false;
        Text("R.Tensor");
        auto sep = [&] {
          Text(any ? ", " : "(");
          any = true;
        };
        if (n.shape()) {
          sep();
          Text("(");
          List(*n.shape(), [&](const PrimExpr& e) { Prim(e); });
          Text(n.shape()->size() == 1 ? ",)" : ")");
        }
        if (!n.dtype().is_void()) {
          sep();
          Text("dtype=\"" + n.dtype().ToString() + "\"");
        }
        if (!n.shape() && n.ndim() >= 0) {
          sep();
          Text("ndim=" + std::to_string(n.ndim()));
        }
        if (!n.vdevice().empty()) {
          sep();
          Text("vdevice=" + QuoteString(n.vdevice()));
        }
        if (any) Text(")");
        return;
      }
      case NodeKind::kTupleSInfo: {
        const auto& n = static_cast<const TupleSInfoNode&>(*s);
        if (n.fields().empty()) return Text("R.Tuple");
        Text("R.Tuple(");
        List(n.fields(), [&](const StructInfo& f) { SInfo(f, depth + 1); });
        return Text(")");
      }
      case NodeKind::kFuncSInfo: {
        const auto& n = static_cast<const FuncSInfoNode&>(*s);
        Text("R.Callable(");
        if (n.params()) {
          Text("(");
          List(*n.params(), [&](const StructInfo& p) { SInfo(p, depth + 1); });
          Text(n.params()->size() == 1 ? ",), " : "), ");
        }
        SInfo(n.ret(), depth + 1);
        return Text(n.is_pure() ? ", True)" : ", False)");
      }
      default:
        return Text("<?>");
    }
  }

  void Attr(const AttrValue& v, int depth = 0) {
    if (depth > kMaxRenderDepth) return Text("...");
    if (v.is_none()) return Text("None");
    if (const bool* b = v.as_bool()) return Text(*b ? "True" : "False");
    if (const int64_t* i = v.as_int()) return Text(std::to_string(*i));
    if (const double* d = v.as_float()) return Text(FormatFloat(*d));
    if (const std::string* s = v.as_string()) return Text(QuoteString(*s));
    if (const PrimExpr* e = v.as_prim_expr()) return Prim(*e);
    if (const Expr* e = v.as_expr()) return ExprText(*e, depth + 1);
    if (const AttrList* list = v.as_list()) {
      Text("[");
      List(*list, [&](const AttrValue& item) { Attr(item, depth + 1); });
      return Text("]");
    }
    if (const AttrMap* map = v.as_map()) {
      Text("{");
      List(*map, [&](const std::pair<std::string, AttrValue>& kv) {
        Text(QuoteString(kv.first) + ": ");
        Attr(kv.second, depth + 1);
      });
      return Text("}");
    }
    if (const AttrCall* call = v.as_call()) {
      Text(call->callee + "(");
      List(call->args, [&](const AttrValue& item) { Attr(item, depth + 1); });
      for (size_t i = 0; i < call->kwargs.size() && !Full(); ++i) {
        if (i > 0 || !call->args.empty()) Text(", ");
        Text(call->kwargs[i].first + "=");
        Attr(call->kwargs[i].second, depth + 1);
      }
      return Text(")");
    }
    Text("<?>");
  }

  void Callee(const Expr& op, int depth) {
    if (const auto* o = As<OpNode>(op)) return Text(OpName(*o));
    if (const auto* ext = As<ExternFuncNode>(op)) {
      return Text("R.call_packed(" + QuoteString(ext->global_symbol()) + ")");
    }
    ExprText(op, depth);
  }

  void CallText(const CallNode& n, int depth) {
    const auto* ext = As<ExternFuncNode>(n.op());
    bool first = true;
    auto sep = [&] {
      if (!first) Text(", ");
      first = false;
    };
    if (ext != nullptr) {
      Text("R.call_packed(");
      sep();
      Text(QuoteString(ext->global_symbol()));
    } else {
      Callee(n.op(), depth + 1);
      Text("(");
    }
    for (size_t i = 0; i < n.args().size() && !Full(); ++i) {
      sep();
      const auto* arg_ext = As<ExternFuncNode>(n.args()[i]);
      if (i == 0 && arg_ext != nullptr && n.op_node() != nullptr) {
        Text(QuoteString(arg_ext->global_symbol()));
      } else {
        ExprText(n.args()[i], depth + 1);
      }
    }
    for (const auto& [key, value] : n.attrs()) {
      if (Full()) break;
      sep();
      Text(key + "=");
      Attr(value, depth + 1);
    }
    if (!n.sinfo_args().empty()) {
      sep();
      Text("sinfo_args=(");
      List(n.sinfo_args(), [&](const StructInfo& s) { SInfo(s, depth + 1); });
      Text(n.sinfo_args().size() == 1 ? ",)" : ")");
    }
    Text(")");
  }

  void ExprText(const Expr& e, int depth = 0) {
    if (!e) return Text("<null>");
    if (depth > kMaxRenderDepth) return Text("...");
    switch (e->kind()) {
      case NodeKind::kVar:
      case NodeKind::kDataflowVar:
        return Text(VarName(static_cast<const VarNode&>(*e).name_hint()));
      case NodeKind::kGlobalVar:
        return Text("cls." + static_cast<const GlobalVarNode&>(*e).name_hint());
      case NodeKind::kConstant: {
        const auto& n = static_cast<const ConstantNode&>(*e);
        if (n.is_metadata()) {
          return Text("metadata[\"relax.expr.Constant\"][" + std::to_string(n.metadata_index()) +
                      "]");
        }
        std::string value;
        if (const auto* i = std::get_if<int64_t>(&n.scalar())) value = std::to_string(*i);
        if (const auto* d = std::get_if<double>(&n.scalar())) value = FormatFloat(*d);
        if (const auto* b = std::get_if<bool>(&n.scalar())) value = *b ? "True" : "False";
        return Text("R.const(" + value + ", \"" + n.dtype().ToString() + "\")");
      }
      case NodeKind::kTuple: {
        const auto& n = static_cast<const TupleNode&>(*e);
        if (n.fields().empty()) return Text("R.tuple()");
        Text("(");
        List(n.fields(), [&](const Expr& f) { ExprText(f, depth + 1); });
        return Text(n.fields().size() == 1 ? ",)" : ")");
      }
      case NodeKind::kTupleGetItem: {
        const auto& n = static_cast<const TupleGetItemNode&>(*e);
        ExprText(n.tuple(), depth + 1);
        return Text("[" + std::to_string(n.index()) + "]");
      }
      case NodeKind::kShapeExpr: {
        Text("R.shape([");
        List(static_cast<const ShapeExprNode&>(*e).values(), [&](const PrimExpr& v) { Prim(v); });
        return Text("])");
      }
      case NodeKind::kPrimValue:
        Text("R.prim_value(");
        Prim(static_cast<const PrimValueNode&>(*e).value());
        return Text(")");
      case NodeKind::kStringImm:
        return Text("R.str(" + QuoteString(static_cast<const StringImmNode&>(*e).value()) + ")");
      case NodeKind::kDataTypeImm:
        return Text("R.dtype(\"" + static_cast<const DataTypeImmNode&>(*e).value().ToString() +
                    "\")");
      case NodeKind::kOp:
        return Text(OpName(static_cast<const OpNode&>(*e)));
      case NodeKind::kExternFunc:
        return Text("R.ExternFunc(" +
                    QuoteString(static_cast<const ExternFuncNode&>(*e).global_symbol()) + ")");
      case NodeKind::kCall:
        return CallText(static_cast<const CallNode&>(*e), depth);
      case NodeKind::kIf: {
        const auto& n = static_cast<const IfNode&>(*e);
        Text("if ");
        ExprText(n.cond(), depth + 1);
        Text(": ");
        ExprText(n.true_branch(), depth + 1);
        Text(" else: ");
        return ExprText(n.false_branch(), depth + 1);
      }
      case NodeKind::kSeqExpr: {
        const auto& n = static_cast<const SeqExprNode&>(*e);
        size_t bindings = 0;
        for (const BindingBlock& b : n.blocks()) bindings += b ? b->bindings().size() : 0;
        Text("{" + std::to_string(bindings) + (bindings == 1 ? " binding" : " bindings") +
             "; return ");
        ExprText(n.body(), depth + 1);
        return Text("}");
      }
      case NodeKind::kFunction: {
        const auto& n = static_cast<const FunctionNode&>(*e);
        Text(n.is_pure() ? "R.function(" : "R.function[impure](");
        List(n.params(), [&](const Var& p) {
          Text(p ? VarName(p->name_hint()) : "<null>");
          Text(": ");
          SInfo(p ? p->struct_info() : nullptr, depth + 1);
        });
        Text(") -> ");
        return SInfo(n.ret_struct_info(), depth + 1);
      }
      case NodeKind::kPrimFunc:
        return Text("T.prim_func " + static_cast<const PrimFuncNode&>(*e).name());
      default:
        return Text("<?>");
    }
  }

  void BindingText(const Binding& b) {
    if (!b) return Text("<null>");
    const Var& var = b->var();
    Text(var ? VarName(var->name_hint()) : "<null>");
    Text(": ");
    SInfo(var ? var->struct_info() : nullptr);
    Text(" = ");
    if (const auto* mc = As<MatchCastNode>(b)) {
      Text("R.match_cast(");
      ExprText(b->value(), 1);
      Text(", ");
      SInfo(mc->struct_info(), 1);
      return Text(")");
    }
    ExprText(b->value());
  }

 private:
  std::string out_;
};

// Whether the printer can render `s`: no missing parts (checked to a bounded depth).
bool PrintableSInfo(const StructInfo& s, int depth = 0) {
  if (s == nullptr || depth > kMaxRenderDepth) return false;
  switch (s->kind()) {
    case NodeKind::kPrimSInfo:
      return true;
    case NodeKind::kShapeSInfo:
      if (const auto& v = static_cast<const ShapeSInfoNode&>(*s).values()) {
        for (const PrimExpr& e : *v) {
          if (e == nullptr) return false;
        }
      }
      return true;
    case NodeKind::kTensorSInfo:
      if (const auto& v = static_cast<const TensorSInfoNode&>(*s).shape()) {
        for (const PrimExpr& e : *v) {
          if (e == nullptr) return false;
        }
      }
      return true;
    case NodeKind::kTupleSInfo:
      for (const StructInfo& f : static_cast<const TupleSInfoNode&>(*s).fields()) {
        if (!PrintableSInfo(f, depth + 1)) return false;
      }
      return true;
    case NodeKind::kFuncSInfo: {
      const auto& f = static_cast<const FuncSInfoNode&>(*s);
      if (f.params()) {
        for (const StructInfo& p : *f.params()) {
          if (!PrintableSInfo(p, depth + 1)) return false;
        }
      }
      return PrintableSInfo(f.ret(), depth + 1);
    }
    default:
      return true;
  }
}

// Whether the printer renders `e` as a one-line expression: no functions, blocks or ifs inside,
// no missing parts (checked to a bounded depth).
bool PrintableExpr(const Expr& e, int depth = 0) {
  if (e == nullptr || depth > kMaxRenderDepth) return false;
  switch (e->kind()) {
    case NodeKind::kFunction:
    case NodeKind::kSeqExpr:
    case NodeKind::kIf:
    case NodeKind::kPrimFunc:
      return false;
    case NodeKind::kTuple:
      for (const Expr& f : static_cast<const TupleNode&>(*e).fields()) {
        if (!PrintableExpr(f, depth + 1)) return false;
      }
      return true;
    case NodeKind::kTupleGetItem:
      return PrintableExpr(static_cast<const TupleGetItemNode&>(*e).tuple(), depth + 1);
    case NodeKind::kCall: {
      const auto& call = static_cast<const CallNode&>(*e);
      if (!PrintableExpr(call.op(), depth + 1)) return false;
      for (const Expr& a : call.args()) {
        if (!PrintableExpr(a, depth + 1)) return false;
      }
      for (const StructInfo& s : call.sinfo_args()) {
        if (!PrintableSInfo(s, depth + 1)) return false;
      }
      return true;
    }
    case NodeKind::kShapeExpr:
      for (const PrimExpr& v : static_cast<const ShapeExprNode&>(*e).values()) {
        if (v == nullptr) return false;
      }
      return true;
    case NodeKind::kPrimValue:
      return static_cast<const PrimValueNode&>(*e).value() != nullptr;
    default:
      return true;
  }
}

// The printer's text cut to one short line; empty when the printer rejects the input.
template <typename T, typename F>
std::string Printed(const T& node, F&& print) {
  std::string text;
  try {
    text = print(node);
  } catch (const std::exception&) {
    return {};
  }
  size_t newline = text.find('\n');
  if (newline != std::string::npos) text.resize(newline);
  if (text.size() > kMaxRenderLength) {
    text.resize(kMaxRenderLength);
    text += "...";
  }
  return text;
}

}  // namespace

std::string RenderExpr(const ir::Expr& expr) {
  // A GlobalVar or an op alone reads as in a call (`cls.f`, `R.add`).
  if (expr && expr->kind() != NodeKind::kGlobalVar && expr->kind() != NodeKind::kOp &&
      PrintableExpr(expr)) {
    std::string text = Printed(expr, [](const ir::Expr& e) { return script::PrintExpr(e); });
    if (!text.empty()) return text;
  }
  Renderer r;
  r.ExprText(expr);
  return r.Finish();
}

std::string RenderStructInfo(const ir::StructInfo& sinfo) {
  if (PrintableSInfo(sinfo)) {
    std::string text =
        Printed(sinfo, [](const ir::StructInfo& s) { return script::PrintStructInfo(s); });
    if (!text.empty()) return text;
  }
  Renderer r;
  r.SInfo(sinfo);
  return r.Finish();
}

std::string RenderPrimExpr(const ir::PrimExpr& expr) {
  Renderer r;
  r.Prim(expr);
  return r.Finish();
}

std::string RenderAttrValue(const ir::AttrValue& value) {
  Renderer r;
  r.Attr(value);
  return r.Finish();
}

std::string RenderBinding(const ir::Binding& binding) {
  Renderer r;
  r.BindingText(binding);
  return r.Finish();
}

std::string RenderBlock(const ir::BindingBlock& block) {
  if (!block) return "<null>";
  size_t n = block->bindings().size();
  std::string count = std::to_string(n) + (n == 1 ? " binding" : " bindings");
  return block->is_dataflow() ? "with R.dataflow(): " + count : count;
}

std::string RenderCallee(const ir::Expr& callee) {
  Renderer r;
  r.Callee(callee, 0);
  return r.Finish();
}

}  // namespace pipesplit::analysis
