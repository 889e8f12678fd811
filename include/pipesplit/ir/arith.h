// Arithmetic on symbolic scalar expressions: the one home of constant folding, simplification,
// the canonical (sum-of-products) form, provable equality, and the constant-folding
// constructors that op inference builds shapes with.
//
// Integer semantics, shared by the compile-time folder and the runtime evaluator: +, - and *
// wrap around on int64 overflow; division and modulo by zero, and INT64_MIN / -1 (whose
// quotient does not fit), are not foldable (nullopt here, a run-time error in the runtime).
#ifndef PIPESPLIT_IR_ARITH_H_
#define PIPESPLIT_IR_ARITH_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "pipesplit/ir/prim_expr.h"

namespace pipesplit::ir {

// ---- Constant folding ----

// `a op b` on int64 constants: + - * wrap around; // and % floor, Div and Mod truncate;
// comparisons and logic give 0 or 1. nullopt when the operation is not foldable: a zero divisor,
// or INT64_MIN / -1 (truncating or floor). The remainder of INT64_MIN by -1 is 0.
std::optional<int64_t> FoldIntBinary(BinaryOp op, int64_t a, int64_t b);

// Constant folding and light canonicalization: folds operations on immediates (with the
// semantics of FoldIntBinary), and the identities x+0, x*1, x*0, x-0, x//1, x%1, min/max of
// equal operands. Returns the same node when nothing changed. Leaves what FoldIntBinary cannot
// fold (division by zero, ...) alone.
PrimExpr Simplify(const PrimExpr& e);

// Shape arithmetic in TVM's canonical form: integer expressions rebuilt as a normal-form sum
// of products (terms by first atom in order of appearance, constant last: `n * 4 + 1`);
// divisions that are not exact, min, max, ... stay opaque atoms. Constant-folded.
PrimExpr CanonicalSimplify(const PrimExpr& e);

// True when a and b are provably equal: structurally equal after Simplify, or their difference
// normalizes to the constant 0 (vars by identity).
bool ProvablyEqual(const PrimExpr& a, const PrimExpr& b);

// Whether a and b are the same expression tree (no simplification): same kinds, dtypes, values
// and operators, the same vars and buffers by identity. Null equals only null.
bool ExprDeepEqual(const PrimExpr& a, const PrimExpr& b);

// ---- Constant-folded construction (what inference rules build shapes with) ----

PrimExpr Int64(int64_t value);
PrimExpr Add(const PrimExpr& a, const PrimExpr& b);  // built and constant-folded
PrimExpr Sub(const PrimExpr& a, const PrimExpr& b);
PrimExpr Mul(const PrimExpr& a, const PrimExpr& b);
PrimExpr FloorDiv(const PrimExpr& a, const PrimExpr& b);
PrimExpr Min(const PrimExpr& a, const PrimExpr& b);
PrimExpr Max(const PrimExpr& a, const PrimExpr& b);
// ceil(a / b) for a positive constant b, as (a + b - 1) // b.
PrimExpr CeilDiv(const PrimExpr& a, int64_t b);
// The product of the dims (1 for none).
PrimExpr ShapeProduct(const std::vector<PrimExpr>& shape);

// ---- Polynomial normal form ----

// a - b when it is a constant, after normalizing both sides as polynomials over their vars
// (sums of products; other subexpressions are opaque terms compared structurally).
std::optional<int64_t> ConstDifference(const PrimExpr& a, const PrimExpr& b);
inline bool ProvablyEq(const PrimExpr& a, const PrimExpr& b) { return ConstDifference(a, b) == 0; }
inline bool ProvablyNe(const PrimExpr& a, const PrimExpr& b) {
  auto d = ConstDifference(a, b);
  return d && *d != 0;
}
// True when every symbolic var of `e` appears with non-negative coefficients only (so e >= 0
// under the usual assumption that shape vars are non-negative) — a cheap sufficient check.
bool KnownNonNegative(const PrimExpr& e);
// `e` simplified for shape arithmetic, close to TVM's analyzer: integer expressions are
// rebuilt as a normal-form sum of products (terms by first atom in order of appearance,
// constant last: n * 4 + 1), where atoms are vars and the subexpressions the normal form does
// not look into (divisions that are not exact, min, max, ...), constant-folded.
// CanonicalSimplify is the same function.
PrimExpr NormalizeArith(const PrimExpr& e);

// `e` as dtype `to`, as TVM's cast builds it: an immediate becomes an immediate of `to` (an
// integer to a float is that float), anything else a Cast node; `e` itself when it has `to`.
PrimExpr CastTo(const PrimExpr& e, DataType to);

// Brings the operands of a binary operator to one dtype as TVM's operators do
// (BinaryOpMatchTypes): a float beats an integer, the wider of two ints (or two uints, or two
// floats) wins, an int beside a uint makes both the int of the larger width. Operands of
// other pairs (bool, handles, differing lanes) are left as they are: the caller reports them.
void MatchOperandDTypes(PrimExpr* a, PrimExpr* b);

}  // namespace pipesplit::ir

#endif  // PIPESPLIT_IR_ARITH_H_
