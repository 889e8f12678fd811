// TVMScript (Relax) printer: canonical text exactly as TVM's `mod.script()` prints it, in the
// classic or the current syntax.
#ifndef PIPESPLIT_SCRIPT_PRINTER_H_
#define PIPESPLIT_SCRIPT_PRINTER_H_

#include <cstddef>
#include <optional>
#include <string>

#include "pipesplit/ir/module.h"

namespace pipesplit::script {

struct PrintOptions {
  // Syntax to print; default: the one the module was read in (IRModule::syntax()).
  std::optional<ir::Syntax> syntax;
  // Header spelling `tir as T` (dumps before 2026); default: IRModule::script_style().
  std::optional<bool> legacy_tir_header;
  // Current syntax: `def f[n](...)` (true) or module-level `n = TypeVar("n")` (false);
  // default: IRModule::script_style().
  std::optional<bool> pep695;
  // TIR block spelling (T.block or T.sblock); default: IRModule::script_style().
  std::optional<ir::TirSyntax> tir_syntax;
  // Print every attribute of a registered op as TVM stores it, defaults included
  // (ir::CompleteAttrs), instead of the attributes the IR holds (those written in the source).
  bool complete_attrs = false;
  // Text TVM's own parser reads back (TVM 5d4dc87 refuses a kernel that declares a var under
  // the name of a module-level TypeVar, "Variable m already defined in current scope"): the
  // vars a kernel declares itself are renamed away from the module's TypeVars (m -> m_1). Off,
  // the names are TVM's, byte for byte.
  bool for_tvm_parser = false;
};

// The whole module, header comments included, ending with one newline.
std::string PrintModule(const ir::IRModule& mod, const PrintOptions& options = {});

// ---- Fragments ----
//
// Any piece of IR as the printer spells it inside a module, classic syntax unless told
// otherwise; symbolic vars and local vars by name, nothing declared, dims never quoted.
// Partially built IR prints too: a missing piece reads "<null>" (a missing struct info
// "R.Object", on one line "<none>"), and nesting past a fixed depth reads "...".

struct FragmentOptions {
  ir::Syntax syntax = ir::Syntax::kClassic;
  // One line, for messages: what the printer prints as statements is summarized (a function
  // by its decorator and def line, a body as "{2 bindings; return x}", a binding block as
  // "with R.dataflow(): 2 bindings", an if as "if c: ... else: ..."), every binding is
  // annotated, an op alone reads "R.add", a module function "cls.f", a prim function
  // "T.prim_func f", a symbolic attribute value with its dtype ("T.int32(2)"), a shape of
  // unknown ndim "R.Shape" (the default left out, as for R.Tensor).
  bool one_line = false;
  // When nonzero, longer text is cut to this many characters and "..." appended.
  size_t max_length = 0;
};

// Length PrintShort cuts at.
inline constexpr size_t kShortTextLength = 160;

std::string PrintStructInfo(const ir::StructInfo& sinfo, ir::Syntax syntax = ir::Syntax::kClassic);
std::string PrintStructInfo(const ir::StructInfo& sinfo, const FragmentOptions& options);
// An expression; a function prints as TVM prints it alone (named by its global symbol, else
// "main"), a body or an if as the statements the printer writes for them.
std::string PrintExpr(const ir::Expr& expr, ir::Syntax syntax = ir::Syntax::kClassic);
std::string PrintExpr(const ir::Expr& expr, const FragmentOptions& options);
// A symbolic expression standing alone, with its dtype unless int64 (`n + 1`, `T.int32(1)`).
std::string PrintPrimExpr(const ir::PrimExpr& expr, const FragmentOptions& options = {});
std::string PrintAttrValue(const ir::AttrValue& value, const FragmentOptions& options = {});
// A binding as its statement(s) (`y: R.Tensor((4,), dtype="float32") = R.add(x, x)`).
std::string PrintBinding(const ir::Binding& binding, const FragmentOptions& options = {});
// A binding block as its statements (`with R.dataflow():` and its body when dataflow).
std::string PrintBindingBlock(const ir::BindingBlock& block, const FragmentOptions& options = {});
// How a call names its callee: `R.add`, `R.call_packed("symbol")`, `cls.f`, `f`.
std::string PrintCallee(const ir::Expr& callee, const FragmentOptions& options = {});

// One line of at most max_length characters (then "..."), for diagnostics and difference
// reports: the functions above with {classic, one_line, max_length}.
std::string PrintShort(const ir::Expr& expr, size_t max_length = kShortTextLength);
std::string PrintShort(const ir::StructInfo& sinfo, size_t max_length = kShortTextLength);
std::string PrintShort(const ir::PrimExpr& expr, size_t max_length = kShortTextLength);
std::string PrintShort(const ir::AttrValue& value, size_t max_length = kShortTextLength);
std::string PrintShort(const ir::Binding& binding, size_t max_length = kShortTextLength);
std::string PrintShort(const ir::BindingBlock& block, size_t max_length = kShortTextLength);
std::string PrintShortCallee(const ir::Expr& callee, size_t max_length = kShortTextLength);

}  // namespace pipesplit::script

#endif  // PIPESPLIT_SCRIPT_PRINTER_H_
