// Lowering: Python operators on evaluated values — constant folding of literals with
// Python's semantics (floor division, overflow reported), TIR arithmetic on symbolic
// expressions, and Relax operators on Relax values (x + y is R.add(x, y), as TVM's ExprWithOp
// defines it).
#include <cmath>
#include <limits>

#include "pipesplit/ir/arith.h"
#include "pipesplit/support/diagnostic.h"
#include "src/script/relax/parser_lower.h"

namespace pipesplit::script {
namespace {

const char* RelaxOpFor(PyOp op) {
  switch (op) {
    case PyOp::kAdd:
      return "relax.add";
    case PyOp::kSub:
      return "relax.subtract";
    case PyOp::kMul:
      return "relax.multiply";
    case PyOp::kDiv:
      return "relax.divide";
    case PyOp::kFloorDiv:
      return "relax.floor_divide";
    case PyOp::kMod:
      return "relax.mod";
    case PyOp::kPow:
      return "relax.power";
    case PyOp::kLt:
      return "relax.less";
    case PyOp::kGt:
      return "relax.greater";
    case PyOp::kLtE:
      return "relax.less_equal";
    case PyOp::kGtE:
      return "relax.greater_equal";
    default:
      return nullptr;
  }
}

}  // namespace

Value Lowerer::RelaxOperator(const char* op_name, std::vector<ir::Expr> args, const PyExpr* node) {
  for (ir::Expr& arg : args) arg = NormalizeArg(arg);
  Value v;
  v.kind = Value::Kind::kExpr;
  v.expr = ir::Make<ir::CallNode>(ir::GetOp(op_name), std::move(args), ir::AttrMap{},
                                  std::vector<ir::StructInfo>{}, nullptr, SpanOf(node));
  v.node = node;
  return v;
}

Value Lowerer::ApplyBinary(PyOp op, const Value& a, const Value& b, const PyExpr* node) {
  const std::string spelling = PyOpSpelling(op);
  // Python constant folding.
  if (IsNumber(a) && IsNumber(b)) {
    bool ints = a.kind != Value::Kind::kFloat && b.kind != Value::Kind::kFloat;
    if (ints) {
      int64_t x = AsInt(a), y = AsInt(b), r = 0;
      bool overflow = false;
      switch (op) {
        case PyOp::kAdd:
          overflow = __builtin_add_overflow(x, y, &r);
          break;
        case PyOp::kSub:
          overflow = __builtin_sub_overflow(x, y, &r);
          break;
        case PyOp::kMul:
          overflow = __builtin_mul_overflow(x, y, &r);
          break;
        case PyOp::kFloorDiv:
        case PyOp::kMod:
          if (y == 0) Error(node, "division by zero");
          if (x == std::numeric_limits<int64_t>::min() && y == -1) {
            overflow = op == PyOp::kFloorDiv;
            r = 0;
            break;
          }
          // Python's // and % on ints are floor division and modulo, as in TIR.
          r = *ir::FoldIntBinary(
              op == PyOp::kFloorDiv ? ir::BinaryOp::kFloorDiv : ir::BinaryOp::kFloorMod, x, y);
          break;
        case PyOp::kDiv:
          if (y == 0) Error(node, "division by zero");
          return MakeFloat(static_cast<double>(x) / static_cast<double>(y), node);
        case PyOp::kPow: {
          if (y < 0)
            return MakeFloat(std::pow(static_cast<double>(x), static_cast<double>(y)), node);
          r = 1;
          for (int64_t k = 0; k < y && !overflow; ++k) {
            overflow = __builtin_mul_overflow(r, x, &r);
            if (r == 0 || r == 1) break;
          }
          if (!overflow && r == 1 && x == -1 && y % 2 == 1) r = -1;
          break;
        }
        case PyOp::kBitAnd:
          r = x & y;
          break;
        case PyOp::kBitOr:
          r = x | y;
          break;
        case PyOp::kBitXor:
          r = x ^ y;
          break;
        case PyOp::kLShift:
          if (y < 0 || y >= 63 ||
              (x != 0 && (x > (std::numeric_limits<int64_t>::max() >> y) ||
                          x < (std::numeric_limits<int64_t>::min() >> y)))) {
            overflow = y >= 0;
            if (y < 0) Error(node, "negative shift count");
          }
          if (!overflow) r = static_cast<int64_t>(static_cast<uint64_t>(x) << y);
          break;
        case PyOp::kRShift:
          if (y < 0) Error(node, "negative shift count");
          r = y >= 63 ? (x < 0 ? -1 : 0) : x >> y;
          break;
        default:
          Error(node, "unsupported operator '" + spelling + "' on integers");
      }
      if (overflow) Error(node, "integer overflow in constant expression");
      return MakeInt(r, node);
    }
    double x = AsDouble(a), y = AsDouble(b);
    switch (op) {
      case PyOp::kAdd:
        return MakeFloat(x + y, node);
      case PyOp::kSub:
        return MakeFloat(x - y, node);
      case PyOp::kMul:
        return MakeFloat(x * y, node);
      case PyOp::kDiv:
        if (y == 0) Error(node, "division by zero");
        return MakeFloat(x / y, node);
      case PyOp::kFloorDiv:
        if (y == 0) Error(node, "division by zero");
        return MakeFloat(std::floor(x / y), node);
      case PyOp::kMod:
        if (y == 0) Error(node, "division by zero");
        return MakeFloat(x - std::floor(x / y) * y, node);
      case PyOp::kPow:
        return MakeFloat(std::pow(x, y), node);
      default:
        Error(node, "unsupported operator '" + spelling + "' on floats");
    }
  }
  // Python tuple / list concatenation.
  if (op == PyOp::kAdd && a.kind == b.kind &&
      (a.kind == Value::Kind::kTuple || a.kind == Value::Kind::kList)) {
    Value r = a;
    r.items.insert(r.items.end(), b.items.begin(), b.items.end());
    r.node = node;
    return r;
  }
  if (op == PyOp::kAdd && a.kind == Value::Kind::kStr && b.kind == Value::Kind::kStr) {
    Value r = a;
    r.s += b.s;
    r.node = node;
    return r;
  }
  // Current syntax: a Relax var of prim type is its symbolic value in arithmetic.
  auto prim_operand = [&](const Value& v) {
    return IsNumber(v) || v.kind == Value::Kind::kPrim || PrimOfVar(v) != nullptr;
  };
  bool prim_vars = current_syntax_ && prim_operand(a) && prim_operand(b) &&
                   (PrimOfVar(a) != nullptr || PrimOfVar(b) != nullptr);
  // Relax operators.
  if (!prim_vars && (a.kind == Value::Kind::kExpr || b.kind == Value::Kind::kExpr)) {
    const Value& other = a.kind == Value::Kind::kExpr ? b : a;
    if (other.kind != Value::Kind::kExpr) {
      if (IsNumber(other)) {
        Error(node, "operand of '" + spelling +
                        "' is a python number; write it as R.const(...) to use it with a relax "
                        "expression");
      }
      Error(node, std::string("cannot apply '") + spelling + "' to a relax expression and " +
                      ValueKindName(other.kind));
    }
    const char* op_name = RelaxOpFor(op);
    if (op_name == nullptr) {
      Error(node, "operator '" + spelling + "' is not supported on relax expressions");
    }
    return RelaxOperator(op_name, {a.expr, b.expr}, node);
  }
  // TIR arithmetic on symbolic expressions.
  bool a_prim = a.kind == Value::Kind::kPrim || IsNumber(a) || prim_vars;
  bool b_prim = b.kind == Value::Kind::kPrim || IsNumber(b) || prim_vars;
  if (!a_prim || !b_prim) {
    Error(node, std::string("unsupported operand types for '") + spelling +
                    "': " + ValueKindName(a.kind) + " and " + ValueKindName(b.kind));
  }
  ir::PrimExpr x = ToPrim(a, a.node ? a.node : node);
  ir::PrimExpr y = ToPrim(b, b.node ? b.node : node);
  MatchDTypes(&x, &y, IsNumber(a), IsNumber(b), node);
  ir::BinaryOp bop;
  switch (op) {
    case PyOp::kAdd:
      bop = ir::BinaryOp::kAdd;
      break;
    case PyOp::kSub:
      bop = ir::BinaryOp::kSub;
      break;
    case PyOp::kMul:
      bop = ir::BinaryOp::kMul;
      break;
    case PyOp::kDiv:
      if (x->dtype().is_integer() && y->dtype().is_integer()) {
        Error(node, "'/' on integer symbolic expressions is ambiguous; use '//' or T.truncdiv");
      }
      bop = ir::BinaryOp::kDiv;
      break;
    case PyOp::kFloorDiv:
      bop = ir::BinaryOp::kFloorDiv;
      break;
    case PyOp::kMod:
      bop = ir::BinaryOp::kFloorMod;
      break;
    case PyOp::kEq:
      bop = ir::BinaryOp::kEQ;
      break;
    case PyOp::kNotEq:
      bop = ir::BinaryOp::kNE;
      break;
    case PyOp::kLt:
      bop = ir::BinaryOp::kLT;
      break;
    case PyOp::kLtE:
      bop = ir::BinaryOp::kLE;
      break;
    case PyOp::kGt:
      bop = ir::BinaryOp::kGT;
      break;
    case PyOp::kGtE:
      bop = ir::BinaryOp::kGE;
      break;
    case PyOp::kAnd:
      bop = ir::BinaryOp::kAnd;
      break;
    case PyOp::kOr:
      bop = ir::BinaryOp::kOr;
      break;
    default:
      Error(node, "operator '" + spelling + "' is not supported on symbolic expressions");
  }
  Value r;
  r.kind = Value::Kind::kPrim;
  r.prim = ir::MakeBinary(bop, x, y, SpanOf(node));
  r.node = node;
  return r;
}

Value Lowerer::EvalUnaryOp(const PyExpr* e) {
  Value a = Eval(e->items[0]);
  switch (e->op) {
    case PyOp::kUSub:
      if (a.kind == Value::Kind::kInt || a.kind == Value::Kind::kBool) {
        int64_t x = AsInt(a);
        if (x == std::numeric_limits<int64_t>::min())
          Error(e, "integer overflow in constant expression");
        return MakeInt(-x, e);
      }
      if (a.kind == Value::Kind::kFloat) return MakeFloat(-a.f, e);
      if (a.kind == Value::Kind::kPrim) {
        if (const auto* i = ir::As<ir::IntImmNode>(a.prim)) {
          if (i->value() == std::numeric_limits<int64_t>::min()) {
            Error(e, "integer overflow in constant expression");
          }
          Value r = a;
          r.prim = MakeIntImm(-i->value(), i->dtype(), e);
          r.node = e;
          return r;
        }
        if (const auto* f = ir::As<ir::FloatImmNode>(a.prim)) {
          Value r = a;
          r.prim = ir::Make<ir::FloatImmNode>(f->dtype(), -f->value(), SpanOf(e));
          r.node = e;
          return r;
        }
        // TVM: -x is x * -1 in x's dtype.
        return ApplyBinary(PyOp::kMul, a, MakeInt(-1, e), e);
      }
      if (a.kind == Value::Kind::kExpr && current_syntax_ && PrimOfVar(a) != nullptr) {
        return ApplyBinary(PyOp::kMul, a, MakeInt(-1, e), e);
      }
      if (a.kind == Value::Kind::kExpr) return RelaxOperator("relax.negative", {a.expr}, e);
      break;
    case PyOp::kUAdd:
      if (IsNumber(a) || a.kind == Value::Kind::kPrim) return a;
      break;
    case PyOp::kNot:
      if (IsNumber(a)) return MakeBool(AsDouble(a) == 0, e);
      if (a.kind == Value::Kind::kPrim) {
        Value r;
        r.kind = Value::Kind::kPrim;
        r.prim = ir::Make<ir::NotNode>(a.prim, SpanOf(e));
        r.node = e;
        return r;
      }
      break;
    case PyOp::kInvert:
      if (a.kind == Value::Kind::kInt || a.kind == Value::Kind::kBool) return MakeInt(~AsInt(a), e);
      break;
    default:
      break;
  }
  Error(e, std::string("unsupported operand for unary '") + PyOpSpelling(e->op) +
               "': " + ValueKindName(a.kind));
}

Value Lowerer::EvalCompare(const PyExpr* e) {
  Value a = Eval(e->items[0]);
  Value b = Eval(e->items[1]);
  PyOp op = e->op;
  if (IsNumber(a) && IsNumber(b)) {
    double x = AsDouble(a), y = AsDouble(b);
    bool ints = a.kind != Value::Kind::kFloat && b.kind != Value::Kind::kFloat;
    int64_t xi = ints ? AsInt(a) : 0, yi = ints ? AsInt(b) : 0;
    switch (op) {
      case PyOp::kEq:
        return MakeBool(ints ? xi == yi : x == y, e);
      case PyOp::kNotEq:
        return MakeBool(ints ? xi != yi : x != y, e);
      case PyOp::kLt:
        return MakeBool(ints ? xi < yi : x < y, e);
      case PyOp::kLtE:
        return MakeBool(ints ? xi <= yi : x <= y, e);
      case PyOp::kGt:
        return MakeBool(ints ? xi > yi : x > y, e);
      case PyOp::kGtE:
        return MakeBool(ints ? xi >= yi : x >= y, e);
      default:
        break;
    }
  }
  if (op == PyOp::kIs || op == PyOp::kIsNot || op == PyOp::kIn || op == PyOp::kNotIn) {
    Error(e, std::string("operator '") + PyOpSpelling(op) + "' is not supported");
  }
  if (a.kind == Value::Kind::kExpr && b.kind == Value::Kind::kExpr &&
      (op == PyOp::kEq || op == PyOp::kNotEq)) {
    Error(e, std::string("'") + PyOpSpelling(op) + "' is not defined on relax expressions; use " +
                 (op == PyOp::kEq ? "R.equal" : "R.not_equal"));
  }
  if (a.kind == Value::Kind::kStr && b.kind == Value::Kind::kStr &&
      (op == PyOp::kEq || op == PyOp::kNotEq)) {
    return MakeBool((a.s == b.s) == (op == PyOp::kEq), e);
  }
  return ApplyBinary(op, a, b, e);
}

Value Lowerer::EvalBoolOp(const PyExpr* e) {
  std::vector<Value> operands;
  bool all_literal = true;
  for (const PyExpr* item : e->items) {
    operands.push_back(Eval(item));
    all_literal &= IsNumber(operands.back()) || operands.back().kind == Value::Kind::kNone ||
                   operands.back().kind == Value::Kind::kStr;
  }
  if (all_literal) {
    // Python: `and` returns the first falsy operand (else the last), `or` the first truthy.
    for (size_t i = 0; i + 1 < operands.size(); ++i) {
      const Value& v = operands[i];
      bool truthy = v.kind == Value::Kind::kStr    ? !v.s.empty()
                    : v.kind == Value::Kind::kNone ? false
                                                   : AsDouble(v) != 0;
      if (truthy == (e->op == PyOp::kOr)) return v;
    }
    return operands.back();
  }
  Value acc = operands[0];
  for (size_t i = 1; i < operands.size(); ++i) {
    if (acc.kind == Value::Kind::kExpr || operands[i].kind == Value::Kind::kExpr) {
      Error(e, std::string("'") + PyOpSpelling(e->op) + "' is not supported on relax expressions");
    }
    acc = ApplyBinary(e->op, acc, operands[i], e);
  }
  return acc;
}

}  // namespace pipesplit::script
