// Symbolic scalar expressions: the subset of TIR PrimExpr that appears in Relax shapes and
// prim values (immediates, symbolic vars, arithmetic, comparisons, logic, casts, selects and
// named intrinsic calls such as T.if_then_else).
#ifndef PIPESPLIT_IR_PRIM_EXPR_H_
#define PIPESPLIT_IR_PRIM_EXPR_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "pipesplit/ir/node.h"
#include "pipesplit/support/dtype.h"

namespace pipesplit::ir {

class PrimExprNode : public Node {
 public:
  static bool ClassOf(NodeKind k) { return k >= NodeKind::kIntImm && k <= NodeKind::kPrimCall; }
  DataType dtype() const { return dtype_; }

 protected:
  PrimExprNode(NodeKind kind, DataType dtype, Span span) : Node(kind, span), dtype_(dtype) {}

 private:
  DataType dtype_;
};
using PrimExpr = Ptr<PrimExprNode>;

// An integer or boolean immediate (bool: dtype bool, value 0 or 1).
class IntImmNode : public PrimExprNode {
 public:
  PIPESPLIT_NODE_KIND(kIntImm)
  IntImmNode(DataType dtype, int64_t value, Span span = {})
      : PrimExprNode(NodeKind::kIntImm, dtype, span), value_(value) {}
  int64_t value() const { return value_; }

 private:
  int64_t value_;
};

class FloatImmNode : public PrimExprNode {
 public:
  PIPESPLIT_NODE_KIND(kFloatImm)
  FloatImmNode(DataType dtype, double value, Span span = {})
      : PrimExprNode(NodeKind::kFloatImm, dtype, span), value_(value) {}
  double value() const { return value_; }

 private:
  double value_;
};

// A symbolic variable (tir.Var, or tir.SizeVar when is_size_var). Compared by identity.
class TirVarNode : public PrimExprNode {
 public:
  PIPESPLIT_NODE_KIND(kTirVar)
  TirVarNode(std::string name, DataType dtype, bool is_size_var = false, Span span = {})
      : PrimExprNode(NodeKind::kTirVar, dtype, span),
        name_(std::move(name)),
        is_size_var_(is_size_var) {}
  const std::string& name() const { return name_; }
  bool is_size_var() const { return is_size_var_; }

 private:
  std::string name_;
  bool is_size_var_;
};
using TirVar = Ptr<TirVarNode>;

enum class BinaryOp : uint8_t {
  kAdd,
  kSub,
  kMul,
  kDiv,       // tir.Div: truncating for integers, true division for floats
  kMod,       // tir.Mod: truncating remainder (T.truncmod)
  kFloorDiv,  // `//`
  kFloorMod,  // `%`
  kMin,
  kMax,
  kEQ,
  kNE,
  kLT,
  kLE,
  kGT,
  kGE,
  kAnd,
  kOr,
};

// Name used in diagnostics and in T.<Name>(a, b) spelling ("Add", "FloorDiv", ...).
const char* BinaryOpName(BinaryOp op);
bool IsComparison(BinaryOp op);

class BinaryNode : public PrimExprNode {
 public:
  PIPESPLIT_NODE_KIND(kBinary)
  BinaryNode(BinaryOp op, PrimExpr a, PrimExpr b, DataType dtype, Span span = {})
      : PrimExprNode(NodeKind::kBinary, dtype, span), op_(op), a_(std::move(a)), b_(std::move(b)) {}
  BinaryOp op() const { return op_; }
  const PrimExpr& a() const { return a_; }
  const PrimExpr& b() const { return b_; }

 private:
  BinaryOp op_;
  PrimExpr a_;
  PrimExpr b_;
};

class NotNode : public PrimExprNode {
 public:
  PIPESPLIT_NODE_KIND(kNot)
  explicit NotNode(PrimExpr a, Span span = {})
      : PrimExprNode(NodeKind::kNot, DataType::Bool(), span), a_(std::move(a)) {}
  const PrimExpr& a() const { return a_; }

 private:
  PrimExpr a_;
};

class CastNode : public PrimExprNode {
 public:
  PIPESPLIT_NODE_KIND(kCast)
  CastNode(DataType dtype, PrimExpr value, Span span = {})
      : PrimExprNode(NodeKind::kCast, dtype, span), value_(std::move(value)) {}
  const PrimExpr& value() const { return value_; }

 private:
  PrimExpr value_;
};

class SelectNode : public PrimExprNode {
 public:
  PIPESPLIT_NODE_KIND(kSelect)
  SelectNode(PrimExpr cond, PrimExpr true_value, PrimExpr false_value, Span span = {})
      : PrimExprNode(NodeKind::kSelect, true_value->dtype(), span),
        cond_(std::move(cond)),
        true_value_(std::move(true_value)),
        false_value_(std::move(false_value)) {}
  const PrimExpr& cond() const { return cond_; }
  const PrimExpr& true_value() const { return true_value_; }
  const PrimExpr& false_value() const { return false_value_; }

 private:
  PrimExpr cond_;
  PrimExpr true_value_;
  PrimExpr false_value_;
};

// A call of a named TIR intrinsic, printed T.<name>(args...): "if_then_else", "truncdiv",
// "shift_left", ... The name is stored without the "T." prefix.
class PrimCallNode : public PrimExprNode {
 public:
  PIPESPLIT_NODE_KIND(kPrimCall)
  PrimCallNode(std::string name, std::vector<PrimExpr> args, DataType dtype, Span span = {})
      : PrimExprNode(NodeKind::kPrimCall, dtype, span),
        name_(std::move(name)),
        args_(std::move(args)) {}
  const std::string& name() const { return name_; }
  const std::vector<PrimExpr>& args() const { return args_; }

 private:
  std::string name_;
  std::vector<PrimExpr> args_;
};

// ---- Construction helpers (no folding; see Simplify for that). ----
PrimExpr IntImm(int64_t value, DataType dtype = DataType::Int(64));
PrimExpr FloatImm(double value, DataType dtype = DataType::Float(32));
PrimExpr BoolImm(bool value);
TirVar MakeTirVar(std::string name, DataType dtype = DataType::Int(64));
// Builds a binary node; the result dtype is bool for comparisons and logic, else a's dtype.
PrimExpr MakeBinary(BinaryOp op, PrimExpr a, PrimExpr b, Span span = {});

// ---- Queries and transformations. ----

// The constant value of an integer immediate, if `e` is one.
std::optional<int64_t> AsConstInt(const PrimExpr& e);

// Substitutes variables (by identity). Returns the same node when nothing changed.
using TirVarMap = std::unordered_map<const TirVarNode*, PrimExpr>;
PrimExpr Substitute(const PrimExpr& e, const TirVarMap& map);

// Calls `fn` on every TirVar in `e`, in pre-order (duplicates included).
void VisitTirVars(const PrimExpr& e, const std::function<void(const TirVar&)>& fn);
// The distinct free vars of `e`, in order of first appearance.
std::vector<TirVar> FreeTirVars(const PrimExpr& e);

// Constant folding and light canonicalization: folds operations on immediates (with int64
// wrap-around semantics and floor division by non-zero divisors), and the identities
// x+0, x*1, x*0, x-0, x//1, x%1, min/max of equal operands. Returns the same node when nothing
// changed. Never divides by zero (leaves such expressions alone).
PrimExpr Simplify(const PrimExpr& e);

// Shape arithmetic in TVM's canonical form: integer expressions rebuilt as a normal-form sum
// of products (terms by first atom in order of appearance, constant last: `n * 4 + 1`);
// divisions that are not exact, min, max, ... stay opaque atoms. Constant-folded.
PrimExpr CanonicalSimplify(const PrimExpr& e);

// True when a and b are provably equal: their difference normalizes to the constant 0 (vars
// by identity).
bool ProvablyEqual(const PrimExpr& a, const PrimExpr& b);

// Python-syntax rendering as TVMScript prints a PrimExpr in Relax context: int64 integers
// plain, other immediates as T.int32(5) / T.float32(1.5) / T.bool(True), operators with
// Python precedence (a right operand of equal precedence is parenthesized), T.min, T.max,
// T.truncmod, T.Div, T.Cast("int64", x), T.Select(c, a, b), T.<intrinsic>(...).
// `var_name` maps a var to its printed name (default: its name()).
using TirVarNamer = std::function<std::string(const TirVarNode&)>;
std::string ToString(const PrimExpr& e, const TirVarNamer& var_name = nullptr);

}  // namespace pipesplit::ir

#endif  // PIPESPLIT_IR_PRIM_EXPR_H_
