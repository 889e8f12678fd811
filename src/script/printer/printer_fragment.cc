// Printer: fragments for messages and reports — attribute values, bindings, binding blocks,
// callees, symbolic expressions — in full or on one line, cut to a maximum length. One-line
// text summarizes what the printer prints as statements (a function by its signature, a body by
// its binding count and result, a block by its binding count), annotates every binding, and
// reads missing pieces of partially built IR as "<null>" (struct info: "<none>").
#include "pipesplit/ir/attr_names.h"
#include "pipesplit/ir/prim_text.h"
#include "pipesplit/script/printer.h"
#include "src/script/printer/printer_internal.h"

namespace pipesplit::script {
namespace printer {
namespace {

// Nesting (Expr / SInfo / Attr levels) below which a fragment prints "...".
constexpr int kMaxFragmentDepth = 32;

std::string BindingCount(size_t n) {
  return std::to_string(n) + (n == 1 ? " binding" : " bindings");
}

// Whether the full printer can print `binding` as a statement (no missing pieces at the top).
bool Printable(const ir::Binding& binding) { return binding && binding->var() && binding->value(); }

}  // namespace

std::string Printer::Summary(const ir::Expr& expr) {
  if (const auto* seq = ir::As<ir::SeqExprNode>(expr)) {
    size_t bindings = 0;
    for (const ir::BindingBlock& block : seq->blocks()) {
      bindings += block ? block->bindings().size() : 0;
    }
    return "{" + BindingCount(bindings) + "; return " + Expr(seq->body()) + "}";
  }
  if (const auto* node = ir::As<ir::IfNode>(expr)) {
    return "if " + Expr(node->cond()) + ": " + Expr(node->true_branch()) +
           " else: " + Expr(node->false_branch());
  }
  if (const auto* func = ir::As<ir::FunctionNode>(expr)) {
    // The decorator and def line the printer gives the function alone (PrintExpr).
    usage_ |= kUseRelax;
    const ir::AttrValue* symbol = func->GetAttr(ir::attr::kGlobalSymbol);
    std::string name = symbol != nullptr && symbol->as_string() ? *symbol->as_string() : "main";
    std::string decorator = "@R.function";
    if (!func->is_pure() && symbol == nullptr) {
      decorator += "(pure=False, private=True)";
    } else if (!func->is_pure()) {
      decorator += "(pure=False)";
    } else if (symbol == nullptr) {
      decorator += "(private=True)";
    }
    std::string params;
    for (size_t i = 0; i < func->params().size(); ++i) {
      const ir::Var& p = func->params()[i];
      if (i > 0) params += ", ";
      params += p ? SanitizeName(p->name_hint()) : "<null>";
      params += ": " + SInfo(p ? p->struct_info() : nullptr);
    }
    return decorator + " def " + name + "(" + params + ") -> " + SInfo(func->ret_struct_info()) +
           ": ...";
  }
  if (const auto* prim = ir::As<ir::PrimFuncNode>(expr)) return "T.prim_func " + prim->name();
  return "<unprintable>";
}

std::string Printer::BindingLine(const ir::BindingNode& binding) {
  const ir::Var& var = binding.var();
  std::string lhs = var ? SanitizeName(var->name_hint()) : "<null>";
  std::string ann = SInfo(var ? var->struct_info() : nullptr);
  std::string rhs;
  if (const auto* mc = ir::As<ir::MatchCastNode>(&binding)) {
    usage_ |= kUseRelax;
    rhs = "R.match_cast(" + Expr(binding.value()) + ", " + SInfo(mc->struct_info()) + ")";
  } else {
    rhs = binding.value() ? RhsText(binding.value()) : "<null>";
  }
  return lhs + ": " + ann + " = " + rhs;
}

std::string Printer::FragmentLine(const ir::Expr& expr) {
  FrameScope frame(this);
  // Alone, an op or a module function reads as it does when called (`R.add`, `cls.f`), and a
  // prim function by its name.
  if (ir::Is<ir::OpNode>(expr) || ir::Is<ir::GlobalVarNode>(expr)) return FragmentCallee(expr);
  if (ir::Is<ir::PrimFuncNode>(expr)) return Summary(expr);
  return Expr(expr);
}

std::string Printer::FragmentAttr(const ir::AttrValue& value) {
  FrameScope frame(this);
  // A symbolic value alone shows its dtype (`T.int32(2)`), as ir::ToString spells it, so that
  // values differing only in dtype read differently.
  if (const ir::PrimExpr* e = value.as_prim_expr(); e != nullptr && config_.one_line) {
    return *e ? ir::ToString(*e) : "<null>";
  }
  return Attr(value);
}

std::string Printer::FragmentBinding(const ir::Binding& binding) {
  if (!binding) return "<null>";
  FrameScope frame(this);
  if (config_.one_line || !Printable(binding)) return BindingLine(*binding);
  std::vector<StmtDoc> stmts;
  Binding(*binding, &stmts);
  // A bound function comes with the header comments of a lone function: not in a fragment.
  size_t header = 0;
  while (header < stmts.size() && stmts[header].kind == StmtDoc::Kind::kComment) ++header;
  stmts.erase(stmts.begin(), stmts.begin() + static_cast<std::ptrdiff_t>(header));
  std::string out;
  RenderStmts(stmts, &out);
  return out;
}

std::string Printer::FragmentBlock(const ir::BindingBlock& block) {
  if (!block) return "<null>";
  bool printable = true;
  for (const ir::Binding& b : block->bindings()) printable = printable && Printable(b);
  if (config_.one_line || !printable) {
    std::string count = BindingCount(block->bindings().size());
    return block->is_dataflow() ? "with R.dataflow(): " + count : count;
  }
  FrameScope frame(this);
  std::vector<StmtDoc> stmts;
  BindingBlock(*block, &stmts);
  std::string out;
  RenderStmts(stmts, &out);
  return out;
}

std::string Printer::FragmentCallee(const ir::Expr& callee) {
  FrameScope frame(this);
  if (ir::Is<ir::OpNode>(callee) || ir::Is<ir::ExternFuncNode>(callee)) {
    // As a call spells it: `R.add` (the call's text before its parentheses), an extern
    // function `R.call_packed("symbol")`.
    std::string text;
    Call(ir::CallNode(callee, {}), &text);
    if (ir::Is<ir::OpNode>(callee) && text.ends_with("()")) text.resize(text.size() - 2);
    return text;
  }
  if (const auto* gvar = ir::As<ir::GlobalVarNode>(callee)) return "cls." + gvar->name_hint();
  return Expr(callee);
}

}  // namespace printer

namespace {

printer::Printer::Config ConfigOf(const FragmentOptions& options) {
  printer::Printer::Config config;
  config.syntax = options.syntax;
  config.fragment = true;
  config.one_line = options.one_line;
  config.max_depth = printer::kMaxFragmentDepth;
  return config;
}

// One line (when asked) of at most max_length characters, then "...".
std::string Cut(std::string text, const FragmentOptions& options) {
  if (options.one_line) {
    size_t newline = text.find('\n');
    if (newline != std::string::npos) text.resize(newline);
  }
  if (options.max_length > 0 && text.size() > options.max_length) {
    text.resize(options.max_length);
    text += "...";
  }
  return text;
}

FragmentOptions Short(size_t max_length) {
  FragmentOptions options;
  options.one_line = true;
  options.max_length = max_length;
  return options;
}

}  // namespace

std::string PrintStructInfo(const ir::StructInfo& sinfo, const FragmentOptions& options) {
  return Cut(printer::Printer(ConfigOf(options), nullptr).Fragment(sinfo), options);
}

std::string PrintExpr(const ir::Expr& expr, const FragmentOptions& options) {
  printer::Printer p(ConfigOf(options), nullptr);
  return Cut(options.one_line ? p.FragmentLine(expr) : p.Fragment(expr), options);
}

std::string PrintPrimExpr(const ir::PrimExpr& expr, const FragmentOptions& options) {
  return Cut(expr ? ir::ToString(expr) : "<null>", options);
}

std::string PrintAttrValue(const ir::AttrValue& value, const FragmentOptions& options) {
  return Cut(printer::Printer(ConfigOf(options), nullptr).FragmentAttr(value), options);
}

std::string PrintBinding(const ir::Binding& binding, const FragmentOptions& options) {
  return Cut(printer::Printer(ConfigOf(options), nullptr).FragmentBinding(binding), options);
}

std::string PrintBindingBlock(const ir::BindingBlock& block, const FragmentOptions& options) {
  return Cut(printer::Printer(ConfigOf(options), nullptr).FragmentBlock(block), options);
}

std::string PrintCallee(const ir::Expr& callee, const FragmentOptions& options) {
  return Cut(printer::Printer(ConfigOf(options), nullptr).FragmentCallee(callee), options);
}

std::string PrintShort(const ir::Expr& expr, size_t max_length) {
  return PrintExpr(expr, Short(max_length));
}
std::string PrintShort(const ir::StructInfo& sinfo, size_t max_length) {
  return PrintStructInfo(sinfo, Short(max_length));
}
std::string PrintShort(const ir::PrimExpr& expr, size_t max_length) {
  return PrintPrimExpr(expr, Short(max_length));
}
std::string PrintShort(const ir::AttrValue& value, size_t max_length) {
  return PrintAttrValue(value, Short(max_length));
}
std::string PrintShort(const ir::Binding& binding, size_t max_length) {
  return PrintBinding(binding, Short(max_length));
}
std::string PrintShort(const ir::BindingBlock& block, size_t max_length) {
  return PrintBindingBlock(block, Short(max_length));
}
std::string PrintShortCallee(const ir::Expr& callee, size_t max_length) {
  return PrintCallee(callee, Short(max_length));
}

}  // namespace pipesplit::script
