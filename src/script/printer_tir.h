// Printer: TIR functions (@T.prim_func) as TVM prints them in the classic syntax.
#ifndef PIPESPLIT_SRC_SCRIPT_PRINTER_TIR_H_
#define PIPESPLIT_SRC_SCRIPT_PRINTER_TIR_H_

#include <string>

#include "pipesplit/ir/expr.h"

namespace pipesplit::script::printer {

// The decorator, the def line and the body (4-space indents relative to the def line), without
// a final newline.
std::string PrintTirFunction(const ir::PrimFuncNode& func);

// A PrimExpr as TVM prints it inside TIR (ir::PrimTextOptions::Tir): int32 literals plain,
// other immediates as T.int64(4) / T.float16(7) / T.bool(True), buffer loads A[i, j].
std::string TirExprText(const ir::PrimExpr& e);

}  // namespace pipesplit::script::printer

#endif  // PIPESPLIT_SRC_SCRIPT_PRINTER_TIR_H_
