// Constant folding, simplification and provable equality of symbolic expressions, and the
// constant-folded constructors of shape arithmetic.
#include "pipesplit/ir/arith.h"

#include <algorithm>

namespace pipesplit::ir {
namespace {

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
// The remainder taking the divisor's sign; never overflows (b != 0, b != -1).
int64_t FloorModInt(int64_t a, int64_t b) {
  int64_t r = a % b;
  return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}

// Wrapping arithmetic on int64 (no UB on overflow).
int64_t Wrap(uint64_t v) { return static_cast<int64_t>(v); }

}  // namespace

std::optional<int64_t> FoldIntBinary(BinaryOp op, int64_t a, int64_t b) {
  auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (op) {
    case BinaryOp::kAdd:
      return Wrap(ua + ub);
    case BinaryOp::kSub:
      return Wrap(ua - ub);
    case BinaryOp::kMul:
      return Wrap(ua * ub);
    case BinaryOp::kDiv:
      if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
      return a / b;
    case BinaryOp::kMod:
      if (b == 0) return std::nullopt;
      return b == -1 ? 0 : a % b;
    case BinaryOp::kFloorDiv:
      if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
      return FloorDivInt(a, b);
    case BinaryOp::kFloorMod:
      if (b == 0) return std::nullopt;
      return b == -1 ? 0 : FloorModInt(a, b);
    case BinaryOp::kMin:
      return std::min(a, b);
    case BinaryOp::kMax:
      return std::max(a, b);
    case BinaryOp::kEQ:
      return a == b;
    case BinaryOp::kNE:
      return a != b;
    case BinaryOp::kLT:
      return a < b;
    case BinaryOp::kLE:
      return a <= b;
    case BinaryOp::kGT:
      return a > b;
    case BinaryOp::kGE:
      return a >= b;
    case BinaryOp::kAnd:
      return (a != 0) && (b != 0);
    case BinaryOp::kOr:
      return (a != 0) || (b != 0);
  }
  return std::nullopt;
}

namespace {

PrimExpr SimplifyNode(const PrimExpr& e) {
  PrimExpr s = MapChildren(e, [](const PrimExpr& c) { return SimplifyNode(c); });
  if (const auto* bin = As<BinaryNode>(s)) {
    auto ca = AsConstInt(bin->a());
    auto cb = AsConstInt(bin->b());
    if (ca && cb) {
      if (auto v = FoldIntBinary(bin->op(), *ca, *cb)) return IntImm(*v, s->dtype());
      return s;
    }
    const PrimExpr& a = bin->a();
    const PrimExpr& b = bin->b();
    switch (bin->op()) {
      case BinaryOp::kAdd:
        if (cb == 0) return a;
        if (ca == 0) return b;
        break;
      case BinaryOp::kSub:
        if (cb == 0) return a;
        if (a == b) return IntImm(0, s->dtype());
        break;
      case BinaryOp::kMul:
        if (cb == 1) return a;
        if (ca == 1) return b;
        if (cb == 0 || ca == 0) return IntImm(0, s->dtype());
        break;
      case BinaryOp::kFloorDiv:
      case BinaryOp::kDiv:
        if (cb == 1) return a;
        break;
      case BinaryOp::kFloorMod:
      case BinaryOp::kMod:
        if (cb == 1) return IntImm(0, s->dtype());
        break;
      case BinaryOp::kMin:
      case BinaryOp::kMax:
        if (a == b) return a;
        break;
      default:
        break;
    }
    return s;
  }
  if (const auto* cast = As<CastNode>(s)) {
    if (auto c = AsConstInt(cast->value()); c && cast->dtype().is_integer()) {
      return IntImm(*c, cast->dtype());
    }
  }
  return s;
}

}  // namespace

PrimExpr Simplify(const PrimExpr& e) { return SimplifyNode(e); }

bool ExprDeepEqual(const PrimExpr& a, const PrimExpr& b) {
  if (a == b) return true;
  if (a == nullptr || b == nullptr) return false;
  if (a->kind() != b->kind() || a->dtype() != b->dtype()) return false;
  switch (a->kind()) {
    case NodeKind::kIntImm:
      return static_cast<const IntImmNode*>(a.get())->value() ==
             static_cast<const IntImmNode*>(b.get())->value();
    case NodeKind::kFloatImm:
      return static_cast<const FloatImmNode*>(a.get())->value() ==
             static_cast<const FloatImmNode*>(b.get())->value();
    case NodeKind::kTirVar:
      return false;  // different nodes
    case NodeKind::kBinary: {
      const auto* x = static_cast<const BinaryNode*>(a.get());
      const auto* y = static_cast<const BinaryNode*>(b.get());
      return x->op() == y->op() && ExprDeepEqual(x->a(), y->a()) && ExprDeepEqual(x->b(), y->b());
    }
    case NodeKind::kPrimCall: {
      const auto* x = static_cast<const PrimCallNode*>(a.get());
      const auto* y = static_cast<const PrimCallNode*>(b.get());
      if (x->name() != y->name() || x->args().size() != y->args().size()) return false;
      for (size_t i = 0; i < x->args().size(); ++i) {
        if (!ExprDeepEqual(x->args()[i], y->args()[i])) return false;
      }
      return true;
    }
    case NodeKind::kTirStringImm:
      return static_cast<const TirStringImmNode*>(a.get())->value() ==
             static_cast<const TirStringImmNode*>(b.get())->value();
    case NodeKind::kLet:
      // Equal only when binding the same var (vars compare by identity).
      if (static_cast<const LetNode*>(a.get())->var() !=
          static_cast<const LetNode*>(b.get())->var()) {
        return false;
      }
      [[fallthrough]];
    case NodeKind::kBufferLoad:
      if (a->kind() == NodeKind::kBufferLoad &&
          static_cast<const BufferLoadNode*>(a.get())->buffer() !=
              static_cast<const BufferLoadNode*>(b.get())->buffer()) {
        return false;
      }
      [[fallthrough]];
    case NodeKind::kNot:
    case NodeKind::kCast:
    case NodeKind::kSelect: {
      std::vector<PrimExpr> ca, cb;
      ForEachChild(a, [&](const PrimExpr& c) { ca.push_back(c); });
      ForEachChild(b, [&](const PrimExpr& c) { cb.push_back(c); });
      if (ca.size() != cb.size()) return false;
      for (size_t i = 0; i < ca.size(); ++i) {
        if (!ExprDeepEqual(ca[i], cb[i])) return false;
      }
      return true;
    }
    PIPESPLIT_KINDS_OUTSIDE_PRIM_EXPR:
      break;
  }
  PS_UNREACHABLE();
}

bool ProvablyEqual(const PrimExpr& a, const PrimExpr& b) {
  if (a == b) return true;
  if (ExprDeepEqual(Simplify(a), Simplify(b))) return true;
  return ConstDifference(a, b) == 0;
}

PrimExpr Int64(int64_t value) { return IntImm(value); }

PrimExpr CastTo(const PrimExpr& e, DataType to) {
  if (e->dtype() == to) return e;
  if (const auto* i = As<IntImmNode>(e); i != nullptr && !e->dtype().is_bool()) {
    if (to.is_float()) return Make<FloatImmNode>(to, static_cast<double>(i->value()), e->span());
    if (to.is_int() || to.is_uint()) return Make<IntImmNode>(to, i->value(), e->span());
  }
  if (const auto* f = As<FloatImmNode>(e); f != nullptr && to.is_float()) {
    return Make<FloatImmNode>(to, f->value(), e->span());
  }
  return Make<CastNode>(to, e, e->span());
}

void MatchOperandDTypes(PrimExpr* a, PrimExpr* b) {
  const DataType ta = (*a)->dtype(), tb = (*b)->dtype();
  if (ta == tb || ta.lanes() != tb.lanes()) return;
  auto numeric = [](DataType t) { return t.is_int() || t.is_uint() || t.is_float(); };
  if (!numeric(ta) || !numeric(tb) || ta.is_bool() || tb.is_bool()) return;
  if (ta.is_float() != tb.is_float()) {
    if (ta.is_float()) {
      *b = CastTo(*b, ta);
    } else {
      *a = CastTo(*a, tb);
    }
  } else if (ta.is_int() != tb.is_int() && !ta.is_float()) {
    const DataType to(DataType::Code::kInt, static_cast<uint16_t>(std::max(ta.bits(), tb.bits())),
                      static_cast<uint16_t>(ta.lanes()));
    *a = CastTo(*a, to);
    *b = CastTo(*b, to);
  } else if (ta.bits() > tb.bits()) {
    *b = CastTo(*b, ta);
  } else if (tb.bits() > ta.bits()) {
    *a = CastTo(*a, tb);
  }
}

PrimExpr Add(const PrimExpr& a, const PrimExpr& b) {
  return Simplify(MakeBinary(BinaryOp::kAdd, a, b));
}
PrimExpr Sub(const PrimExpr& a, const PrimExpr& b) {
  return Simplify(MakeBinary(BinaryOp::kSub, a, b));
}
PrimExpr Mul(const PrimExpr& a, const PrimExpr& b) {
  return Simplify(MakeBinary(BinaryOp::kMul, a, b));
}
PrimExpr FloorDiv(const PrimExpr& a, const PrimExpr& b) {
  return Simplify(MakeBinary(BinaryOp::kFloorDiv, a, b));
}
PrimExpr Min(const PrimExpr& a, const PrimExpr& b) {
  return Simplify(MakeBinary(BinaryOp::kMin, a, b));
}
PrimExpr Max(const PrimExpr& a, const PrimExpr& b) {
  return Simplify(MakeBinary(BinaryOp::kMax, a, b));
}

PrimExpr CeilDiv(const PrimExpr& a, int64_t b) {
  if (b == 1) return a;
  return FloorDiv(Add(a, Int64(b - 1)), Int64(b));
}

PrimExpr ShapeProduct(const std::vector<PrimExpr>& shape) {
  PrimExpr out = Int64(1);
  for (const PrimExpr& d : shape) out = Mul(out, d);
  return out;
}

}  // namespace pipesplit::ir
