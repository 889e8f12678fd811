// Printer: TIR functions (@T.prim_func) as TVM prints them in the classic syntax.
#ifndef PIPESPLIT_SRC_SCRIPT_PRINTER_PRINTER_TIR_H_
#define PIPESPLIT_SRC_SCRIPT_PRINTER_PRINTER_TIR_H_

#include <string>
#include <unordered_set>
#include <vector>

#include "pipesplit/ir/expr.h"

namespace pipesplit::script::printer {

struct TirPrintOptions {
  // Blocks as `T.sblock` (TVM since 2026) instead of `T.block`, and `s_tir=True` in the
  // decorator of a function read with it.
  bool sblock = false;
  // With `sblock`: also mark s_tir=True on a function that has blocks (a module converted
  // from the T.block spelling, whose functions did not say it).
  bool s_tir_for_blocks = false;
  // TVM's signatures since its 2026 StructInfo -> Type change (the current Relax syntax):
  // every buffer param inline, a dim that introduces a var quoted (`T.Buffer(("n", n))`, the
  // var declared first in the body), int64 shape vars that are no param module-level TypeVars
  // (bare); else the classic ones (T.handle params matched in the body).
  bool quoted_signature = false;
  // With quoted_signature: TypeVars as PEP 695 type parameters (`def f[n](...)`).
  bool pep695 = false;
  // Names the function's own vars must not take (the module-level TypeVars, for
  // PrintOptions::for_tvm_parser); the function's signature TypeVars keep theirs.
  const std::unordered_set<std::string>* reserved_names = nullptr;
};

// The decorator, the def line and the body (4-space indents relative to the def line), without
// a final newline. `type_vars` (when given) receives the names of the module-level TypeVars the
// signature uses, sorted.
std::string PrintTirFunction(const ir::PrimFuncNode& func, const TirPrintOptions& options = {},
                             std::vector<std::string>* type_vars = nullptr);

// A PrimExpr as TVM prints it inside TIR (ir::PrimTextOptions::Tir): int32 literals plain,
// other immediates as T.int64(4) / T.float16(7) / T.bool(True), buffer loads A[i, j].
std::string TirExprText(const ir::PrimExpr& e);

}  // namespace pipesplit::script::printer

#endif  // PIPESPLIT_SRC_SCRIPT_PRINTER_PRINTER_TIR_H_
