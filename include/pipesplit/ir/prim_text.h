// The one text form of symbolic expressions (PrimExprs), in TVMScript's Python syntax with
// TVM's precedence levels. The script printer spells PrimExprs through it (Relax context); the
// ir layer's diagnostics through ToString. Options select what differs between contexts.
#ifndef PIPESPLIT_IR_PRIM_TEXT_H_
#define PIPESPLIT_IR_PRIM_TEXT_H_

#include <functional>
#include <optional>
#include <string>

#include "pipesplit/ir/prim_expr.h"
#include "pipesplit/support/dtype.h"

namespace pipesplit::ir {

// Maps a var to its printed name.
using TirVarNamer = std::function<std::string(const TirVarNode&)>;

// Maps a buffer to its printed name.
using BufferNamer = std::function<std::string(const BufferNode&)>;

struct PrimTextOptions {
  // A var's printed name; null: its name().
  TirVarNamer var_name;
  // A buffer's printed name (in A[i, j]); null: its name().
  BufferNamer buffer_name;
  // Integer immediates. Unset: every integer immediate prints bare ("5") and bools as "True" /
  // "False", as Relax prints shape values. Set: integers of this dtype print bare, others typed
  // ("T.int32(5)", "T.bool(True)").
  std::optional<DataType> bare_int_dtype;
  // Where TVM's operator constructor (tvm::add, tvm::floordiv, ...) would have folded the
  // constant operands or matched their dtypes, TVM's printer shows the call form T.Add(a, b)
  // (and T.Not(c) for a constant c); true prints that way, false prints the operator the node
  // holds.
  bool fold_call_form = true;
  // Float immediates: false: FloatLiteral digits ("T.float16(7.0)"); true: as TVM prints them
  // inside a TIR function, 17 significant digits without a forced decimal ("T.float16(7)",
  // "T.float32(9.9999999999999995e-07)").
  bool tir_float_digits = false;
  // With tir_float_digits: a float with an integral value prints in fixed notation with one
  // decimal ("T.float32(0.0)"), as TVM prints TIR since 2026.
  bool tir_float_point = false;

  // The script printer's spelling inside Relax (byte-exact with TVM).
  static PrimTextOptions Relax(TirVarNamer var_name = nullptr);
  // Diagnostics: int64 bare, other immediates typed, operators as the node holds them.
  static PrimTextOptions Diagnostic(TirVarNamer var_name = nullptr);
  // Inside a TIR function (@T.prim_func): int32 bare, other immediates typed, operators as
  // the node holds them, TIR float digits, buffer loads as A[i, j].
  static PrimTextOptions Tir(TirVarNamer var_name = nullptr);
};

// Python precedence levels as TVM's PythonDocPrinter ranks them (higher binds tighter).
enum PrimPrec : int {
  kPrimPrecOr = 3,
  kPrimPrecAnd = 4,
  kPrimPrecNot = 5,
  kPrimPrecCmp = 6,
  kPrimPrecAdd = 11,
  kPrimPrecMul = 12,
  kPrimPrecAtom = 15,
};

struct PrimTextResult {
  std::string text;
  int prec = kPrimPrecAtom;  // precedence of the outermost operator (for parenthesization)
  bool uses_tir = false;     // the text refers to the T. namespace (var names not counted)
};

// `e` as text. Operators print infix with TVM's precedence (a right operand of equal
// precedence is parenthesized), T.min, T.max, T.truncmod, T.Div for integer division,
// T.Cast("int64", x), T.Select(c, a, b), T.<intrinsic>(...), floats as T.float32(1.5).
// Var names are asked for left to right, each occurrence once.
PrimTextResult FormatPrimExpr(const PrimExpr& e, const PrimTextOptions& options);

// The diagnostic spelling (PrimTextOptions::Diagnostic), as inference errors and reports show
// a PrimExpr: "n * 2 + 1", "T.Cast(\"int64\", T.int32(5))".
std::string ToString(const PrimExpr& e, const TirVarNamer& var_name = nullptr);

}  // namespace pipesplit::ir

#endif  // PIPESPLIT_IR_PRIM_TEXT_H_
