// TIR lowering, part 1: expressions (buffer regions, declarations and attributes are in
// parser_tir_buffer.cc).
#include <algorithm>
#include <cmath>
#include <limits>

#include "pipesplit/ir/arith.h"
#include "pipesplit/support/diagnostic.h"
#include "src/script/syntax/lexer.h"
#include "src/script/syntax/parser_syntax.h"
#include "src/script/tir/parser_tir.h"

namespace pipesplit::script {
namespace {

using ir::BinaryOp;
using ir::PrimExpr;

std::optional<BinaryOp> BinaryOpOf(PyOp op) {
  switch (op) {
    case PyOp::kAdd:
      return BinaryOp::kAdd;
    case PyOp::kSub:
      return BinaryOp::kSub;
    case PyOp::kMul:
      return BinaryOp::kMul;
    case PyOp::kDiv:
      return BinaryOp::kDiv;
    case PyOp::kFloorDiv:
      return BinaryOp::kFloorDiv;
    case PyOp::kMod:
      return BinaryOp::kFloorMod;
    case PyOp::kEq:
      return BinaryOp::kEQ;
    case PyOp::kNotEq:
      return BinaryOp::kNE;
    case PyOp::kLt:
      return BinaryOp::kLT;
    case PyOp::kLtE:
      return BinaryOp::kLE;
    case PyOp::kGt:
      return BinaryOp::kGT;
    case PyOp::kGtE:
      return BinaryOp::kGE;
    case PyOp::kAnd:
      return BinaryOp::kAnd;
    case PyOp::kOr:
      return BinaryOp::kOr;
    default:
      return std::nullopt;
  }
}

// Intrinsics spelled as Python operators.
const char* IntrinsicOf(PyOp op) {
  switch (op) {
    case PyOp::kBitAnd:
      return "bitwise_and";
    case PyOp::kBitOr:
      return "bitwise_or";
    case PyOp::kBitXor:
      return "bitwise_xor";
    case PyOp::kLShift:
      return "shift_left";
    case PyOp::kRShift:
      return "shift_right";
    default:
      return nullptr;
  }
}

// A bare numeric literal (possibly negated), whose dtype the other operand decides.
bool IsBareLiteral(const PyExpr* e) {
  if (e->kind == PyExprKind::kUnaryOp && e->op == PyOp::kUSub) return IsBareLiteral(e->items[0]);
  return e->kind == PyExprKind::kInt || e->kind == PyExprKind::kFloat;
}

// Named TIR functions mapped to binary operators.
std::optional<BinaryOp> NamedBinary(std::string_view name) {
  if (name == "min") return BinaryOp::kMin;
  if (name == "max") return BinaryOp::kMax;
  if (name == "truncmod") return BinaryOp::kMod;
  if (name == "truncdiv") return BinaryOp::kDiv;
  if (name == "floordiv") return BinaryOp::kFloorDiv;
  if (name == "floormod") return BinaryOp::kFloorMod;
  return std::nullopt;
}

bool IsKnownIntrinsic(std::string_view name) {
  static const char* const kNames[] = {
      "exp",          "exp2",        "exp10",       "log",        "log2",        "log10",
      "log1p",        "sqrt",        "rsqrt",       "tanh",       "sigmoid",     "erf",
      "fabs",         "abs",         "round",       "nearbyint",  "floor",       "ceil",
      "trunc",        "pow",         "sin",         "cos",        "tan",         "atan",
      "shift_left",   "shift_right", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
      "if_then_else", "isnan",       "isinf",       "isfinite",   "popcount",    "likely",
      "fmod",         "nextafter",   "hypot",       "copysign",   "clz",         "q_multiply_shift",
      "atan2",        "asin",        "acos",        "sinh",       "cosh",        "asinh",
      "acosh",        "atanh",       "assume"};
  for (const char* n : kNames) {
    if (name == n) return true;
  }
  return false;
}

bool IsPredicate(std::string_view name) {
  return name == "isnan" || name == "isinf" || name == "isfinite" || name == "assume";
}

}  // namespace

// Structural equality of two parsed expressions (vars and buffers by identity).
bool SameExpr(const PrimExpr& a, const PrimExpr& b) {
  if (a == b) return true;
  if (a->kind() != b->kind() || a->dtype() != b->dtype()) return false;
  auto all = [](const std::vector<PrimExpr>& x, const std::vector<PrimExpr>& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!SameExpr(x[i], y[i])) return false;
    }
    return true;
  };
  switch (a->kind()) {
    case ir::NodeKind::kIntImm:
      return ir::As<ir::IntImmNode>(a)->value() == ir::As<ir::IntImmNode>(b)->value();
    case ir::NodeKind::kFloatImm:
      return ir::As<ir::FloatImmNode>(a)->value() == ir::As<ir::FloatImmNode>(b)->value();
    case ir::NodeKind::kBinary: {
      const auto* x = ir::As<ir::BinaryNode>(a);
      const auto* y = ir::As<ir::BinaryNode>(b);
      return x->op() == y->op() && SameExpr(x->a(), y->a()) && SameExpr(x->b(), y->b());
    }
    case ir::NodeKind::kNot:
      return SameExpr(ir::As<ir::NotNode>(a)->a(), ir::As<ir::NotNode>(b)->a());
    case ir::NodeKind::kCast:
      return SameExpr(ir::As<ir::CastNode>(a)->value(), ir::As<ir::CastNode>(b)->value());
    case ir::NodeKind::kSelect: {
      const auto* x = ir::As<ir::SelectNode>(a);
      const auto* y = ir::As<ir::SelectNode>(b);
      return SameExpr(x->cond(), y->cond()) && SameExpr(x->true_value(), y->true_value()) &&
             SameExpr(x->false_value(), y->false_value());
    }
    case ir::NodeKind::kBufferLoad: {
      const auto* x = ir::As<ir::BufferLoadNode>(a);
      const auto* y = ir::As<ir::BufferLoadNode>(b);
      return x->buffer() == y->buffer() && all(x->indices(), y->indices());
    }
    case ir::NodeKind::kPrimCall: {
      const auto* x = ir::As<ir::PrimCallNode>(a);
      const auto* y = ir::As<ir::PrimCallNode>(b);
      return x->name() == y->name() && all(x->args(), y->args());
    }
    default:
      return false;
  }
}

void TirLowerer::Error(const PyExpr* e, std::string message) const {
  ThrowError(SpanOf(e), std::move(message));
}

void TirLowerer::Error(uint32_t begin, uint32_t end, std::string message) const {
  ThrowError(SpanOf(begin, end), std::move(message));
}

const TirLowerer::Symbol* TirLowerer::Find(std::string_view name) const {
  std::string key(name);
  for (size_t i = scopes_.size(); i-- > 0;) {
    auto it = scopes_[i].find(key);
    if (it != scopes_[i].end()) return &it->second;
  }
  return nullptr;
}

PrimExpr TirLowerer::ExtentOf(const PrimExpr& begin, const PrimExpr& end) {
  if (const auto* add = ir::As<ir::BinaryNode>(end)) {
    if (add->op() == BinaryOp::kAdd && SameExpr(add->a(), begin)) return add->b();
  }
  auto b = ir::AsConstInt(begin), e = ir::AsConstInt(end);
  if (b && e) return ir::IntImm(*e - *b, end->dtype());
  if (b && *b == 0) return end;
  return ir::Make<ir::BinaryNode>(BinaryOp::kSub, end, begin, end->dtype());
}

DataType TirLowerer::DTypeArg(const PyExpr* e) {
  if (e->kind != PyExprKind::kString) Error(e, "expected a dtype string");
  std::optional<DataType> dtype = DataType::Parse(e->str);
  if (!dtype) Error(e, "unknown dtype \"" + std::string(e->str) + "\"");
  return *dtype;
}

const std::vector<PrimExpr>* TirLowerer::Sequence(const PyExpr* e) {
  if (e->kind == PyExprKind::kAttribute && (e->text == "shape" || e->text == "strides") &&
      e->items[0]->kind == PyExprKind::kName) {  // A.shape, A.strides
    const Symbol* sym = Find(e->items[0]->text);
    if (sym != nullptr && sym->buffer != nullptr) {
      return e->text == "shape" ? &sym->buffer->shape() : &sym->buffer->strides();
    }
  }
  if (e->kind == PyExprKind::kName) {  // the name of `for iters in T.grid(m, n)`
    const Symbol* sym = Find(e->text);
    if (sym != nullptr && !sym->vars.empty()) return &sym->vars;
  }
  return nullptr;
}

std::vector<PrimExpr> TirLowerer::Exprs(const PyExpr* e) {
  std::vector<PrimExpr> out;
  auto add = [&](const PyExpr* item) {
    if (item->kind != PyExprKind::kStarred) {
      out.push_back(Expr(item));
      return;
    }
    const std::vector<PrimExpr>* seq = Sequence(item->items[0]);
    if (seq == nullptr)
      Error(item, "only a buffer's shape or a tuple of loop vars can be unpacked");
    out.insert(out.end(), seq->begin(), seq->end());
  };
  if (e->kind == PyExprKind::kTuple || e->kind == PyExprKind::kList) {
    for (const PyExpr* item : e->items) add(item);
  } else if (const std::vector<PrimExpr>* seq = Sequence(e)) {
    out = *seq;
  } else {
    add(e);
  }
  return out;
}

PrimExpr TirLowerer::Expr(const PyExpr* e, std::optional<DataType> hint) {
  Span span = SpanOf(e);
  switch (e->kind) {
    case PyExprKind::kInt: {
      int64_t value = 0;
      if (DecodeIntLiteral(e->text, &value) != IntLiteralStatus::kOk) {
        Error(e, "invalid integer literal");
      }
      DataType dtype = hint.value_or(value == static_cast<int32_t>(value) ? DataType::Int(32)
                                                                          : DataType::Int(64));
      if (dtype.is_float()) return ir::Make<ir::FloatImmNode>(dtype, value, span);
      if (dtype.is_bool()) dtype = DataType::Int(32);
      return ir::Make<ir::IntImmNode>(dtype, value, span);
    }
    case PyExprKind::kFloat: {
      std::optional<double> value = DecodeFloatLiteral(e->text);
      if (!value) Error(e, "invalid float literal");
      DataType dtype = hint && hint->is_float() ? *hint : DataType::Float(32);
      return ir::Make<ir::FloatImmNode>(dtype, *value, span);
    }
    case PyExprKind::kBool:
      return ir::Make<ir::IntImmNode>(DataType::Bool(), e->bool_value ? 1 : 0, span);
    case PyExprKind::kString:
      return ir::Make<ir::TirStringImmNode>(std::string(e->str), span);
    case PyExprKind::kName: {
      const Symbol* sym = Find(e->text);
      if (sym == nullptr && options_.type_vars != nullptr &&
          options_.type_vars->count(std::string(e->text))) {
        if (!in_signature_) {
          Error(e,
                "TypeVar '" + std::string(e->text) + "' can only be used in a function signature");
        }
        // The function's own int64 var for the module-level TypeVar, defined for the body too.
        auto var = ir::Make<ir::TirVarNode>(std::string(e->text), DataType::Int(64), false, span);
        scopes_.front()[std::string(e->text)] = {var, nullptr};
        return var;
      }
      if (sym == nullptr) Error(e, "undefined name '" + std::string(e->text) + "'");
      if (sym->buffer != nullptr && sym->buffer->layout().scalar) {  // a scalar buffer: x[0]
        return ir::Make<ir::BufferLoadNode>(
            sym->buffer, std::vector<PrimExpr>{ir::IntImm(0, DataType::Int(32))}, span);
      }
      if (sym->var == nullptr) {
        Error(e, "buffer '" + std::string(e->text) + "' cannot be used as a value");
      }
      return sym->var;
    }
    case PyExprKind::kSubscript: {
      if (const std::vector<PrimExpr>* seq = Sequence(e->items[0])) {  // A.shape[1], iters[0]
        std::optional<int64_t> index;
        if (e->items[1]->kind == PyExprKind::kInt) index = ir::AsConstInt(Expr(e->items[1]));
        if (!index || *index < -static_cast<int64_t>(seq->size()) ||
            *index >= static_cast<int64_t>(seq->size())) {
          Error(e->items[1], "expected an index below " + std::to_string(seq->size()));
        }
        return (*seq)[*index < 0 ? *index + static_cast<int64_t>(seq->size()) : *index];
      }
      ir::Buffer buffer = LookupBuffer(e->items[0], "a buffer");
      std::vector<PrimExpr> indices;
      const PyExpr* index = e->items[1];
      if (index->kind == PyExprKind::kTuple && !index->parenthesized) {
        for (const PyExpr* d : index->items) indices.push_back(Expr(d));
      } else if (!(index->kind == PyExprKind::kTuple && index->items.empty())) {
        indices.push_back(Expr(index));
      }
      for (size_t i = 0; i < indices.size(); ++i) {
        if (!indices[i]->dtype().is_integer()) Error(e, "buffer indices must be integers");
      }
      if (indices.size() != buffer->shape().size()) {
        Error(e, "buffer '" + buffer->name() + "' has " + std::to_string(buffer->shape().size()) +
                     " dimensions, not " + std::to_string(indices.size()));
      }
      return ir::Make<ir::BufferLoadNode>(buffer, std::move(indices), span);
    }
    case PyExprKind::kUnaryOp: {
      const PyExpr* operand = e->items[0];
      if (e->op == PyOp::kUSub && IsBareLiteral(operand)) {
        PrimExpr v = Expr(operand, hint);
        if (const auto* i = ir::As<ir::IntImmNode>(v)) {
          return ir::Make<ir::IntImmNode>(v->dtype(), -i->value(), span);
        }
        const auto* f = ir::As<ir::FloatImmNode>(v);
        return ir::Make<ir::FloatImmNode>(v->dtype(), -f->value(), span);
      }
      PrimExpr v = Expr(operand, hint);
      if (e->op == PyOp::kNot) return ir::Make<ir::NotNode>(v, span);
      if (e->op == PyOp::kUSub) {
        PrimExpr zero = v->dtype().is_float() ? ir::Make<ir::FloatImmNode>(v->dtype(), 0.0)
                                              : ir::IntImm(0, v->dtype());
        return ir::Make<ir::BinaryNode>(BinaryOp::kSub, zero, v, v->dtype(), span);
      }
      if (e->op == PyOp::kUAdd) return v;
      Error(e, std::string("unsupported operator '") + PyOpSpelling(e->op) + "' in TIR");
    }
    case PyExprKind::kBinOp:
    case PyExprKind::kCompare:
    case PyExprKind::kBoolOp: {
      // Left to right; a bare literal takes the dtype of the other operand.
      auto combine = [&](const PrimExpr& a, const PrimExpr& b) -> PrimExpr {
        if (const char* intrinsic = IntrinsicOf(e->op)) {
          return ir::Make<ir::PrimCallNode>(intrinsic, std::vector<PrimExpr>{a, b}, a->dtype(),
                                            span);
        }
        std::optional<BinaryOp> op = BinaryOpOf(e->op);
        if (!op) Error(e, std::string("unsupported operator '") + PyOpSpelling(e->op) + "'");
        PrimExpr x = a, y = b;
        ir::MatchOperandDTypes(&x, &y);
        return ir::MakeBinary(*op, x, y, span);
      };
      if (e->items.size() == 2 && IsBareLiteral(e->items[0])) {
        PrimExpr rhs = Expr(e->items[1]);
        return combine(Expr(e->items[0], rhs->dtype()), rhs);
      }
      PrimExpr acc = Expr(e->items[0], hint);
      for (size_t i = 1; i < e->items.size(); ++i) {
        acc = combine(acc, Expr(e->items[i], acc->dtype()));
      }
      return acc;
    }
    case PyExprKind::kCall:
      break;
    case PyExprKind::kAttribute:
      // A.data: the buffer's data pointer (an opaque access to it); A.elem_offset.
      if ((e->text == "data" || e->text == "elem_offset") &&
          e->items[0]->kind == PyExprKind::kName) {
        const Symbol* sym = Find(e->items[0]->text);
        if (sym != nullptr && sym->buffer != nullptr) {
          if (e->text == "data") return sym->buffer->data();
          if (sym->buffer->elem_offset() != nullptr) return sym->buffer->elem_offset();
          return ir::IntImm(0, DataType::Int(32));
        }
      }
      Error(e, "unsupported expression in TIR");
    default:
      Error(e, "unsupported expression in TIR");
  }
  // Calls.
  std::string callee = DottedName(e->items[0]);
  std::vector<const PyExpr*> args(e->items.begin() + 1, e->items.end());
  auto expect_args = [&](size_t n) {
    if (args.size() != n || !e->keywords.empty()) {
      Error(e, callee + " expects " + std::to_string(n) + " argument" + (n == 1 ? "" : "s"));
    }
  };
  if (callee.rfind("T.", 0) != 0) Error(e->items[0], "unknown function '" + callee + "' in TIR");
  std::string name = callee.substr(2);
  if (std::optional<DataType> dtype = DataType::Parse(name)) {
    // T.int64(5), T.float16(7), T.bool(True); T.int64(x) of an expression casts.
    expect_args(1);
    if (args[0]->kind == PyExprKind::kString) {
      // T.float32("inf"), T.float32("-inf"), T.float32("nan"): how non-finite values print.
      std::string_view text = args[0]->str;
      if (!dtype->is_float() || (text != "inf" && text != "-inf" && text != "nan")) {
        Error(args[0], callee +
                           " of a string takes \"inf\", \"-inf\" or \"nan\" and a float "
                           "dtype");
      }
      double value = text == "nan"
                         ? std::numeric_limits<double>::quiet_NaN()
                         : (text == "inf" ? 1 : -1) * std::numeric_limits<double>::infinity();
      return ir::Make<ir::FloatImmNode>(*dtype, value, span);
    }
    if (IsBareLiteral(args[0]) || args[0]->kind == PyExprKind::kBool) {
      PrimExpr v = Expr(args[0], *dtype);
      if (const auto* i = ir::As<ir::IntImmNode>(v)) {
        if (dtype->is_float()) return ir::Make<ir::FloatImmNode>(*dtype, i->value(), span);
        return ir::Make<ir::IntImmNode>(*dtype, i->value(), span);
      }
      const auto* f = ir::As<ir::FloatImmNode>(v);
      if (!dtype->is_float()) Error(args[0], "a float literal cannot be a " + name);
      return ir::Make<ir::FloatImmNode>(*dtype, f->value(), span);
    }
    return ir::Make<ir::CastNode>(*dtype, Expr(args[0]), span);
  }
  if (name == "min_value" || name == "max_value") {
    // The smallest / largest finite value of a dtype, as the immediate TVM folds it to.
    expect_args(1);
    const DataType dtype = DTypeArg(args[0]);
    const bool max = name == "max_value";
    if (dtype.is_float() && dtype.bits() == 64) {
      const double v = std::numeric_limits<double>::max();
      return ir::Make<ir::FloatImmNode>(dtype, max ? v : -v, span);
    }
    if (dtype == DataType::Float(32) || dtype == DataType::Float(16) ||
        dtype == DataType::BFloat16()) {
      const double v = dtype == DataType::Float(16) ? 65504.0
                       : dtype == DataType::Float(32)
                           ? static_cast<double>(std::numeric_limits<float>::max())
                           : 3.3895313892515355e38;
      return ir::Make<ir::FloatImmNode>(dtype, max ? v : -v, span);
    }
    if (dtype.is_int() && dtype.bits() <= 64) {
      const int bits = dtype.bits();
      const int64_t hi =
          bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (bits - 1)) - 1;
      return ir::Make<ir::IntImmNode>(dtype, max ? hi : -hi - 1, span);
    }
    if (dtype.is_uint() && dtype.bits() < 64) {
      return ir::Make<ir::IntImmNode>(dtype, max ? (int64_t{1} << dtype.bits()) - 1 : 0, span);
    }
    if (dtype.is_bool()) return ir::Make<ir::IntImmNode>(dtype, max ? 1 : 0, span);
    Error(args[0], callee + " of " + dtype.ToString() + " is not supported");
  }
  if (name == "Let") return LetExpr(e);
  if (PrimExpr builtin = Builtin(e, name)) return builtin;
  if (name == "Cast") {
    expect_args(2);
    return ir::Make<ir::CastNode>(DTypeArg(args[0]), Expr(args[1]), span);
  }
  if (name == "Select") {
    expect_args(3);
    PrimExpr cond = Expr(args[0]);
    PrimExpr t = Expr(args[1]);
    return ir::Make<ir::SelectNode>(cond, t, Expr(args[2], t->dtype()), span);
  }
  if (std::optional<BinaryOp> op = NamedBinary(name)) {
    // Operator functions (T.floordiv, T.min, ...) match their operands' dtypes as TVM's do.
    expect_args(2);
    PrimExpr a = Expr(args[0]);
    PrimExpr b = Expr(args[1], a->dtype());
    ir::MatchOperandDTypes(&a, &b);
    return ir::MakeBinary(*op, a, b, span);
  }
  if (std::optional<BinaryOp> op = ir::BinaryOpFromName(name)) {
    // TVM's node constructors (T.Add, T.FloorDiv, ...) take operands of one dtype; a bare
    // literal takes the other operand's.
    expect_args(2);
    PrimExpr a, b;
    if (IsBareLiteral(args[0]) && !IsBareLiteral(args[1])) {
      b = Expr(args[1]);
      a = Expr(args[0], b->dtype());
    } else {
      a = Expr(args[0]);
      b = Expr(args[1], a->dtype());
    }
    if (!(a->dtype() == b->dtype())) {
      Error(e, callee + " needs operands of one dtype, not " + a->dtype().ToString() + " and " +
                   b->dtype().ToString());
    }
    return ir::MakeBinary(*op, a, b, span);
  }
  if (IsKnownIntrinsic(name)) {
    // T.exp(x, dtype="float32"): the result dtype, which TVM checks against the operand's.
    std::optional<DataType> result_dtype;
    for (const PyKeyword& kw : e->keywords) {
      if (kw.name != "dtype") Error(e, callee + " takes no keyword arguments but dtype");
      result_dtype = DTypeArg(kw.value);
    }
    if (args.empty()) Error(e, callee + " expects arguments");
    std::vector<PrimExpr> values;
    size_t dtype_arg = name == "if_then_else" ? 1 : 0;
    for (size_t i = 0; i < args.size(); ++i) {
      std::optional<DataType> arg_hint;
      if (i > 0 && !values.empty()) arg_hint = values.back()->dtype();
      values.push_back(Expr(args[i], i == 0 ? std::nullopt : arg_hint));
    }
    if (dtype_arg >= values.size()) Error(e, callee + " expects more arguments");
    DataType dtype = IsPredicate(name) ? DataType::Bool() : values[dtype_arg]->dtype();
    if (result_dtype && !(*result_dtype == dtype)) {
      Error(e, callee + " of a " + dtype.ToString() + " operand cannot have dtype " +
                   result_dtype->ToString());
    }
    return ir::Make<ir::PrimCallNode>(name, std::move(values), dtype, span);
  }
  Error(e->items[0], "unknown TIR function '" + callee + "'");
}

}  // namespace pipesplit::script
