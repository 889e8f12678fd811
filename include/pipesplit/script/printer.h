// TVMScript (Relax) printer: canonical text exactly as TVM's `mod.script()` prints it, in the
// classic or the current syntax.
#ifndef PIPESPLIT_SCRIPT_PRINTER_H_
#define PIPESPLIT_SCRIPT_PRINTER_H_

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
  // Print every attribute of a registered op as TVM stores it, defaults included
  // (ir::CompleteAttrs), instead of the attributes the IR holds (those written in the source).
  bool complete_attrs = false;
};

// The whole module, header comments included, ending with one newline.
std::string PrintModule(const ir::IRModule& mod, const PrintOptions& options = {});

// Fragments for messages and tests (classic syntax unless told otherwise; symbolic vars by
// name, no quoting).
std::string PrintStructInfo(const ir::StructInfo& sinfo, ir::Syntax syntax = ir::Syntax::kClassic);
std::string PrintExpr(const ir::Expr& expr, ir::Syntax syntax = ir::Syntax::kClassic);

}  // namespace pipesplit::script

#endif  // PIPESPLIT_SCRIPT_PRINTER_H_
