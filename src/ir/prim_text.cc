// PrimExpr text: TVM's operator spellings, precedence levels and the prediction of when TVM's
// printer shows an operator in its function form.
#include "pipesplit/ir/prim_text.h"

#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "pipesplit/ir/tir.h"
#include "pipesplit/support/text.h"

namespace pipesplit::ir {
namespace {

struct Infix {
  const char* token;  // Python operator
  const char* name;   // T.<name>(a, b) in the function form
  int prec;
};

std::optional<Infix> InfixOf(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return Infix{"+", "Add", kPrimPrecAdd};
    case BinaryOp::kSub:
      return Infix{"-", "Sub", kPrimPrecAdd};
    case BinaryOp::kMul:
      return Infix{"*", "Mul", kPrimPrecMul};
    case BinaryOp::kFloorDiv:
      return Infix{"//", "FloorDiv", kPrimPrecMul};
    case BinaryOp::kFloorMod:
      return Infix{"%", "FloorMod", kPrimPrecMul};
    case BinaryOp::kLT:
      return Infix{"<", "LT", kPrimPrecCmp};
    case BinaryOp::kLE:
      return Infix{"<=", "LE", kPrimPrecCmp};
    case BinaryOp::kEQ:
      return Infix{"==", "EQ", kPrimPrecCmp};
    case BinaryOp::kNE:
      return Infix{"!=", "NE", kPrimPrecCmp};
    case BinaryOp::kGT:
      return Infix{">", "GT", kPrimPrecCmp};
    case BinaryOp::kGE:
      return Infix{">=", "GE", kPrimPrecCmp};
    case BinaryOp::kAnd:
      return Infix{"and", "And", kPrimPrecAnd};
    case BinaryOp::kOr:
      return Infix{"or", "Or", kPrimPrecOr};
    case BinaryOp::kDiv:
      return Infix{"/", "Div", kPrimPrecMul};
    case BinaryOp::kMod:
    case BinaryOp::kMin:
    case BinaryOp::kMax:
      return std::nullopt;
  }
  return std::nullopt;
}

// The function-form name of the operators without an infix spelling.
const char* CallNameOf(BinaryOp op) {
  switch (op) {
    case BinaryOp::kMin:
      return "min";
    case BinaryOp::kMax:
      return "max";
    default:
      return "truncmod";
  }
}

std::optional<int64_t> IntOf(const PrimExpr& e) {
  if (const auto* n = As<IntImmNode>(e)) return n->value();
  return std::nullopt;
}
std::optional<double> FloatOf(const PrimExpr& e) {
  if (const auto* n = As<FloatImmNode>(e)) return n->value();
  return std::nullopt;
}

// Whether TVM's operator constructor (tvm::add, tvm::floordiv, ...) would return something
// other than a fresh node over the same operands: operand dtypes that need matching, or a
// constant fold (arith::TryConstFold). TVM then prints the function form T.Add(a, b).
bool WouldFold(const BinaryNode& n) {
  const PrimExpr& a = n.a();
  const PrimExpr& b = n.b();
  auto pa = IntOf(a), pb = IntOf(b);
  auto fa = FloatOf(a), fb = FloatOf(b);
  int bits = a->dtype().bits();
  bool float_fold = fa && fb && (bits == 32 || bits == 64);
  switch (n.op()) {
    case BinaryOp::kAnd:
    case BinaryOp::kOr:
      return pa || pb;
    default:
      break;
  }
  if (!(a->dtype() == b->dtype())) return true;
  switch (n.op()) {
    case BinaryOp::kAdd:
      return (pa && pb) || (pa && *pa == 0) || (pb && *pb == 0) || float_fold || (fa && *fa == 0) ||
             (fb && *fb == 0);
    case BinaryOp::kSub:
      return (pa && pb) || (pb && *pb == 0) || float_fold || (fb && *fb == 0);
    case BinaryOp::kMul:
      return (pa && pb) || (pa && (*pa == 0 || *pa == 1)) || (pb && (*pb == 0 || *pb == 1)) ||
             float_fold || (fa && (*fa == 0 || *fa == 1)) || (fb && (*fb == 0 || *fb == 1));
    case BinaryOp::kDiv:
      return (pa && pb) || (pa && *pa == 0) || (pb && *pb == 1) || float_fold || (fa && *fa == 0) ||
             (fb && *fb == 1);
    case BinaryOp::kFloorDiv:
      return (pa && pb) || (pa && *pa == 0) || (pb && *pb == 1) || (float_fold && *fb != 0) ||
             (fa && *fa == 0) || (fb && *fb == 1);
    case BinaryOp::kFloorMod:
      return (pa && pb) || (pa && *pa == 0) || (pb && *pb == 1);
    case BinaryOp::kLT:
    case BinaryOp::kLE:
    case BinaryOp::kEQ:
    case BinaryOp::kNE:
    case BinaryOp::kGT:
    case BinaryOp::kGE:
      return (pa && pb) || (fa && fb);
    default:
      return false;
  }
}

// A float immediate's digits inside TIR: %.17g ("7", "0.0001"), non-finite values quoted.
std::string TirFloatDigits(double value, bool integral_point) {
  if (!std::isfinite(value)) return FloatLiteral(value);
  if (integral_point && std::nearbyint(value) == value) {
    // Fixed notation with one decimal, however large: T.float32(-340282346638528859...0.0).
    char big[400];  // a double's integral digits (at most 309) and ".0"
    std::snprintf(big, sizeof(big), "%.1f", value);
    return big;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", value);
  return buf;
}

std::string Parenthesize(std::string text, bool wrap) { return wrap ? "(" + text + ")" : text; }

class PrimTextWriter {
 public:
  explicit PrimTextWriter(const PrimTextOptions& options) : options_(options) {}

  bool uses_tir() const { return uses_tir_; }

  // Operands are printed left to right (var names are requested in that order).
  PrimTextResult Write(const PrimExpr& e) {
    switch (e->kind()) {
      case NodeKind::kIntImm:
        return {IntText(static_cast<const IntImmNode&>(*e)), kPrimPrecAtom};
      case NodeKind::kFloatImm: {
        const auto& n = static_cast<const FloatImmNode&>(*e);
        std::string digits = options_.tir_float_digits
                                 ? TirFloatDigits(n.value(), options_.tir_float_point)
                                 : FloatLiteral(n.value());
        return Tir(n.dtype().ToString() + "(" + digits + ")");
      }
      case NodeKind::kBufferLoad: {
        const auto& n = static_cast<const BufferLoadNode&>(*e);
        std::string out =
            options_.buffer_name ? options_.buffer_name(*n.buffer()) : n.buffer()->name();
        if (n.buffer()->layout().scalar) return {std::move(out), kPrimPrecAtom};  // `x`
        out += '[';
        for (size_t i = 0; i < n.indices().size(); ++i) {
          if (i > 0) out += ", ";
          out += Write(n.indices()[i]).text;
        }
        out += n.indices().empty() ? "()]" : "]";
        return {std::move(out), kPrimPrecAtom};
      }
      case NodeKind::kTirVar: {
        const auto& n = static_cast<const TirVarNode&>(*e);
        return {options_.var_name ? options_.var_name(n) : n.name(), kPrimPrecAtom};
      }
      case NodeKind::kBinary:
        return WriteBinary(static_cast<const BinaryNode&>(*e));
      case NodeKind::kNot: {
        const auto& n = static_cast<const NotNode&>(*e);
        PrimTextResult a = Write(n.a());
        if (options_.fold_call_form && n.a()->kind() == NodeKind::kIntImm) {
          return Tir("Not(" + a.text + ")");
        }
        return {"not " + Parenthesize(std::move(a.text), a.prec < kPrimPrecNot), kPrimPrecNot};
      }
      case NodeKind::kCast: {
        const auto& n = static_cast<const CastNode&>(*e);
        std::string dtype = QuoteString(n.dtype().ToString());
        return Tir("Cast(" + dtype + ", " + Write(n.value()).text + ")");
      }
      case NodeKind::kSelect: {
        const auto& n = static_cast<const SelectNode&>(*e);
        std::string c = Write(n.cond()).text;
        std::string t = Write(n.true_value()).text;
        std::string f = Write(n.false_value()).text;
        return Tir("Select(" + c + ", " + t + ", " + f + ")");
      }
      case NodeKind::kTirStringImm:
        return {QuoteString(static_cast<const TirStringImmNode&>(*e).value()), kPrimPrecAtom};
      case NodeKind::kLet: {
        // T.Let(body, where={var: value}); TVM prints the where entry first.
        const auto& n = static_cast<const LetNode&>(*e);
        std::string var = Write(n.var()).text;
        std::string value = Write(n.value()).text;
        std::string body = Write(n.body()).text;
        return Tir("Let(" + body + ", where={" + var + ": " + value + "})");
      }
      case NodeKind::kPrimCall: {
        const auto& n = static_cast<const PrimCallNode&>(*e);
        if (n.name() == "type_annotation" && n.args().empty()) {
          // The dtype is printed as the first argument.
          return Tir("type_annotation(" + QuoteString(n.dtype().ToString()) + ")");
        }
        std::string out = n.name() + "(";
        for (size_t i = 0; i < n.args().size(); ++i) {
          if (i > 0) out += ", ";
          out += Write(n.args()[i]).text;
        }
        out += ')';
        return Tir(std::move(out));
      }
      PIPESPLIT_KINDS_OUTSIDE_PRIM_EXPR:
        return {"<?>", kPrimPrecAtom};
    }
    PS_UNREACHABLE();
  }

 private:
  // "T." + text, an atom.
  PrimTextResult Tir(std::string text) {
    uses_tir_ = true;
    return {"T." + text, kPrimPrecAtom};
  }

  std::string IntText(const IntImmNode& n) {
    DataType t = n.dtype();
    if (!options_.bare_int_dtype) {
      if (t.is_bool()) return n.value() ? "True" : "False";
      return std::to_string(n.value());
    }
    if (t.is_bool()) return Tir(n.value() ? "bool(True)" : "bool(False)").text;
    if (t == *options_.bare_int_dtype) return std::to_string(n.value());
    return Tir(t.ToString() + "(" + std::to_string(n.value()) + ")").text;
  }

  PrimTextResult WriteBinary(const BinaryNode& n) {
    PrimTextResult a = Write(n.a());
    PrimTextResult b = Write(n.b());
    std::optional<Infix> infix = InfixOf(n.op());
    bool call_form = !infix || (options_.fold_call_form && WouldFold(n));
    if (infix && n.op() == BinaryOp::kDiv) {
      // `a / b` for floats only: integer division has no Python operator here.
      call_form |= !n.a()->dtype().is_float() || !n.b()->dtype().is_float();
    }
    if (call_form) {
      const char* name = infix ? infix->name : CallNameOf(n.op());
      return Tir(std::string(name) + "(" + a.text + ", " + b.text + ")");
    }
    std::string out = Parenthesize(std::move(a.text), a.prec < infix->prec);
    out += ' ';
    out += infix->token;
    out += ' ';
    out += Parenthesize(std::move(b.text), b.prec <= infix->prec);
    return {std::move(out), infix->prec};
  }

  const PrimTextOptions& options_;
  bool uses_tir_ = false;
};

}  // namespace

PrimTextOptions PrimTextOptions::Relax(TirVarNamer var_name) {
  PrimTextOptions options;
  options.var_name = std::move(var_name);
  return options;
}

PrimTextOptions PrimTextOptions::Diagnostic(TirVarNamer var_name) {
  PrimTextOptions options;
  options.var_name = std::move(var_name);
  options.bare_int_dtype = DataType::Int(64);
  options.fold_call_form = false;
  return options;
}

PrimTextOptions PrimTextOptions::Tir(TirVarNamer var_name) {
  PrimTextOptions options;
  options.var_name = std::move(var_name);
  options.bare_int_dtype = DataType::Int(32);
  options.fold_call_form = false;
  options.tir_float_digits = true;
  return options;
}

PrimTextResult FormatPrimExpr(const PrimExpr& e, const PrimTextOptions& options) {
  PrimTextWriter writer(options);
  PrimTextResult result = writer.Write(e);
  result.uses_tir = writer.uses_tir();
  return result;
}

std::string ToString(const PrimExpr& e, const TirVarNamer& var_name) {
  return FormatPrimExpr(e, PrimTextOptions::Diagnostic(var_name)).text;
}

}  // namespace pipesplit::ir
