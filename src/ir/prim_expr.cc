#include "pipesplit/ir/prim_expr.h"

#include <unordered_set>

#include "pipesplit/support/check.h"
#include "pipesplit/support/text.h"
#include "src/ir/op/op_families.h"

namespace pipesplit::ir {

const char* BinaryOpName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return "Add";
    case BinaryOp::kSub:
      return "Sub";
    case BinaryOp::kMul:
      return "Mul";
    case BinaryOp::kDiv:
      return "Div";
    case BinaryOp::kMod:
      return "Mod";
    case BinaryOp::kFloorDiv:
      return "FloorDiv";
    case BinaryOp::kFloorMod:
      return "FloorMod";
    case BinaryOp::kMin:
      return "Min";
    case BinaryOp::kMax:
      return "Max";
    case BinaryOp::kEQ:
      return "EQ";
    case BinaryOp::kNE:
      return "NE";
    case BinaryOp::kLT:
      return "LT";
    case BinaryOp::kLE:
      return "LE";
    case BinaryOp::kGT:
      return "GT";
    case BinaryOp::kGE:
      return "GE";
    case BinaryOp::kAnd:
      return "And";
    case BinaryOp::kOr:
      return "Or";
  }
  return "?";
}

bool IsComparison(BinaryOp op) { return op >= BinaryOp::kEQ && op <= BinaryOp::kGE; }

PrimExpr IntImm(int64_t value, DataType dtype) {
  return std::make_shared<const IntImmNode>(dtype, value);
}
PrimExpr FloatImm(double value, DataType dtype) {
  return std::make_shared<const FloatImmNode>(dtype, value);
}
PrimExpr BoolImm(bool value) {
  return std::make_shared<const IntImmNode>(DataType::Bool(), value ? 1 : 0);
}
TirVar MakeTirVar(std::string name, DataType dtype) {
  return std::make_shared<const TirVarNode>(std::move(name), dtype);
}

PrimExpr MakeBinary(BinaryOp op, PrimExpr a, PrimExpr b, Span span) {
  DataType dtype = (IsComparison(op) || op == BinaryOp::kAnd || op == BinaryOp::kOr)
                       ? DataType::Bool()
                       : a->dtype();
  return std::make_shared<const BinaryNode>(op, std::move(a), std::move(b), dtype, span);
}

std::optional<int64_t> AsConstInt(const PrimExpr& e) {
  if (const auto* imm = As<IntImmNode>(e)) return imm->value();
  return std::nullopt;
}

namespace {

// Rebuilds `e` with new children when any differs (same node otherwise).
template <typename F>
PrimExpr MapChildren(const PrimExpr& e, F&& f) {
  switch (e->kind()) {
    case NodeKind::kBinary: {
      const auto* n = static_cast<const BinaryNode*>(e.get());
      PrimExpr a = f(n->a()), b = f(n->b());
      if (a == n->a() && b == n->b()) return e;
      return std::make_shared<const BinaryNode>(n->op(), a, b, n->dtype(), n->span());
    }
    case NodeKind::kNot: {
      const auto* n = static_cast<const NotNode*>(e.get());
      PrimExpr a = f(n->a());
      if (a == n->a()) return e;
      return std::make_shared<const NotNode>(a, n->span());
    }
    case NodeKind::kCast: {
      const auto* n = static_cast<const CastNode*>(e.get());
      PrimExpr v = f(n->value());
      if (v == n->value()) return e;
      return std::make_shared<const CastNode>(n->dtype(), v, n->span());
    }
    case NodeKind::kSelect: {
      const auto* n = static_cast<const SelectNode*>(e.get());
      PrimExpr c = f(n->cond()), t = f(n->true_value()), fv = f(n->false_value());
      if (c == n->cond() && t == n->true_value() && fv == n->false_value()) return e;
      return std::make_shared<const SelectNode>(c, t, fv, n->span());
    }
    case NodeKind::kPrimCall: {
      const auto* n = static_cast<const PrimCallNode*>(e.get());
      std::vector<PrimExpr> args;
      args.reserve(n->args().size());
      bool changed = false;
      for (const PrimExpr& a : n->args()) {
        args.push_back(f(a));
        changed |= args.back() != a;
      }
      if (!changed) return e;
      return std::make_shared<const PrimCallNode>(n->name(), std::move(args), n->dtype(),
                                                  n->span());
    }
    default:
      return e;
  }
}

template <typename F>
void ForEachChild(const PrimExpr& e, F&& f) {
  switch (e->kind()) {
    case NodeKind::kBinary: {
      const auto* n = static_cast<const BinaryNode*>(e.get());
      f(n->a());
      f(n->b());
      break;
    }
    case NodeKind::kNot:
      f(static_cast<const NotNode*>(e.get())->a());
      break;
    case NodeKind::kCast:
      f(static_cast<const CastNode*>(e.get())->value());
      break;
    case NodeKind::kSelect: {
      const auto* n = static_cast<const SelectNode*>(e.get());
      f(n->cond());
      f(n->true_value());
      f(n->false_value());
      break;
    }
    case NodeKind::kPrimCall:
      for (const PrimExpr& a : static_cast<const PrimCallNode*>(e.get())->args()) f(a);
      break;
    default:
      break;
  }
}

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t FloorModInt(int64_t a, int64_t b) { return a - FloorDivInt(a, b) * b; }

// Wrapping arithmetic on int64 (no UB on overflow).
int64_t Wrap(uint64_t v) { return static_cast<int64_t>(v); }

std::optional<int64_t> FoldInt(BinaryOp op, int64_t a, int64_t b) {
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
      if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
      return a % b;
    case BinaryOp::kFloorDiv:
      if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
      return FloorDivInt(a, b);
    case BinaryOp::kFloorMod:
      if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
      return FloorModInt(a, b);
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

PrimExpr SimplifyNode(const PrimExpr& e) {
  PrimExpr s = MapChildren(e, [](const PrimExpr& c) { return SimplifyNode(c); });
  if (const auto* bin = As<BinaryNode>(s)) {
    auto ca = AsConstInt(bin->a());
    auto cb = AsConstInt(bin->b());
    if (ca && cb) {
      if (auto v = FoldInt(bin->op(), *ca, *cb)) return IntImm(*v, s->dtype());
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

// Structural equality of simplified expressions; vars by identity.
bool SameStructure(const PrimExpr& a, const PrimExpr& b) {
  if (a == b) return true;
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
      return x->op() == y->op() && SameStructure(x->a(), y->a()) && SameStructure(x->b(), y->b());
    }
    case NodeKind::kPrimCall: {
      const auto* x = static_cast<const PrimCallNode*>(a.get());
      const auto* y = static_cast<const PrimCallNode*>(b.get());
      if (x->name() != y->name() || x->args().size() != y->args().size()) return false;
      for (size_t i = 0; i < x->args().size(); ++i) {
        if (!SameStructure(x->args()[i], y->args()[i])) return false;
      }
      return true;
    }
    default: {
      std::vector<PrimExpr> ca, cb;
      ForEachChild(a, [&](const PrimExpr& c) { ca.push_back(c); });
      ForEachChild(b, [&](const PrimExpr& c) { cb.push_back(c); });
      if (ca.size() != cb.size()) return false;
      for (size_t i = 0; i < ca.size(); ++i) {
        if (!SameStructure(ca[i], cb[i])) return false;
      }
      return true;
    }
  }
}

// Python precedence levels (higher binds tighter).
enum Prec : int { kOr = 1, kAnd = 2, kNot = 3, kCmp = 4, kAdd = 5, kMul = 6, kAtom = 10 };

struct InfixInfo {
  const char* token;
  int prec;
};

std::optional<InfixInfo> Infix(const BinaryNode& n) {
  switch (n.op()) {
    case BinaryOp::kAdd:
      return InfixInfo{"+", kAdd};
    case BinaryOp::kSub:
      return InfixInfo{"-", kAdd};
    case BinaryOp::kMul:
      return InfixInfo{"*", kMul};
    case BinaryOp::kDiv:
      if (n.dtype().is_float()) return InfixInfo{"/", kMul};
      return std::nullopt;
    case BinaryOp::kFloorDiv:
      return InfixInfo{"//", kMul};
    case BinaryOp::kFloorMod:
      return InfixInfo{"%", kMul};
    case BinaryOp::kEQ:
      return InfixInfo{"==", kCmp};
    case BinaryOp::kNE:
      return InfixInfo{"!=", kCmp};
    case BinaryOp::kLT:
      return InfixInfo{"<", kCmp};
    case BinaryOp::kLE:
      return InfixInfo{"<=", kCmp};
    case BinaryOp::kGT:
      return InfixInfo{">", kCmp};
    case BinaryOp::kGE:
      return InfixInfo{">=", kCmp};
    case BinaryOp::kAnd:
      return InfixInfo{"and", kAnd};
    case BinaryOp::kOr:
      return InfixInfo{"or", kOr};
    default:
      return std::nullopt;
  }
}

const char* CallName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kMin:
      return "T.min";
    case BinaryOp::kMax:
      return "T.max";
    case BinaryOp::kMod:
      return "T.truncmod";
    case BinaryOp::kDiv:
      return "T.Div";
    default:
      return "T.?";
  }
}

class PrimPrinter {
 public:
  explicit PrimPrinter(const TirVarNamer& namer) : namer_(namer) {}

  // Prints `e`; sets *prec to the precedence of the printed form.
  std::string Print(const PrimExpr& e, int* prec) {
    *prec = kAtom;
    switch (e->kind()) {
      case NodeKind::kIntImm: {
        const auto* n = static_cast<const IntImmNode*>(e.get());
        DataType t = n->dtype();
        if (t.is_bool()) return n->value() ? "T.bool(True)" : "T.bool(False)";
        std::string v = std::to_string(n->value());
        if (t == DataType::Int(64)) return v;
        return "T." + t.ToString() + "(" + v + ")";
      }
      case NodeKind::kFloatImm: {
        const auto* n = static_cast<const FloatImmNode*>(e.get());
        std::string v = FormatFloat(n->value());
        if (v == "inf" || v == "-inf" || v == "nan") v = "\"" + v + "\"";
        return "T." + n->dtype().ToString() + "(" + v + ")";
      }
      case NodeKind::kTirVar: {
        const auto* n = static_cast<const TirVarNode*>(e.get());
        return namer_ ? namer_(*n) : n->name();
      }
      case NodeKind::kBinary: {
        const auto* n = static_cast<const BinaryNode*>(e.get());
        auto infix = Infix(*n);
        if (!infix) return std::string(CallName(n->op())) + "(" + Args({n->a(), n->b()}) + ")";
        int pa, pb;
        std::string a = Print(n->a(), &pa);
        std::string b = Print(n->b(), &pb);
        // Comparisons chain in Python, so both operands of a comparison at the same level
        // need parentheses; otherwise only the right operand does.
        bool wrap_a = pa < infix->prec || (infix->prec == kCmp && pa == kCmp);
        bool wrap_b = pb <= infix->prec;
        *prec = infix->prec;
        return (wrap_a ? "(" + a + ")" : a) + " " + infix->token + " " +
               (wrap_b ? "(" + b + ")" : b);
      }
      case NodeKind::kNot: {
        const auto* n = static_cast<const NotNode*>(e.get());
        int pa;
        std::string a = Print(n->a(), &pa);
        *prec = kNot;
        return "not " + (pa < kNot ? "(" + a + ")" : a);
      }
      case NodeKind::kCast: {
        const auto* n = static_cast<const CastNode*>(e.get());
        return "T.Cast(\"" + n->dtype().ToString() + "\", " + Args({n->value()}) + ")";
      }
      case NodeKind::kSelect: {
        const auto* n = static_cast<const SelectNode*>(e.get());
        return "T.Select(" + Args({n->cond(), n->true_value(), n->false_value()}) + ")";
      }
      case NodeKind::kPrimCall: {
        const auto* n = static_cast<const PrimCallNode*>(e.get());
        return "T." + n->name() + "(" + Args(n->args()) + ")";
      }
      default:
        PS_UNREACHABLE();
    }
    return {};
  }

 private:
  std::string Args(const std::vector<PrimExpr>& args) {
    std::string out;
    for (size_t i = 0; i < args.size(); ++i) {
      if (i) out += ", ";
      int p;
      out += Print(args[i], &p);
    }
    return out;
  }

  const TirVarNamer& namer_;
};

}  // namespace

PrimExpr Substitute(const PrimExpr& e, const TirVarMap& map) {
  if (map.empty()) return e;
  if (const auto* v = As<TirVarNode>(e)) {
    auto it = map.find(v);
    return it == map.end() ? e : it->second;
  }
  return MapChildren(e, [&](const PrimExpr& c) { return Substitute(c, map); });
}

namespace {

// Recursion for the usual shallow shapes (no allocation); past kMaxRecursion an explicit stack
// takes over, so long operator chains cannot exhaust the call stack.
constexpr int kMaxRecursion = 64;

void VisitTirVarsDeep(const PrimExpr& e, const std::function<void(const TirVar&)>& fn) {
  std::vector<PrimExpr> stack{e};
  std::vector<PrimExpr> children;
  while (!stack.empty()) {
    PrimExpr node = std::move(stack.back());
    stack.pop_back();
    if (node == nullptr) continue;
    if (node->kind() == NodeKind::kTirVar) {
      fn(std::static_pointer_cast<const TirVarNode>(node));
      continue;
    }
    children.clear();
    ForEachChild(node, [&](const PrimExpr& c) { children.push_back(c); });
    stack.insert(stack.end(), children.rbegin(), children.rend());
  }
}

void VisitTirVarsAt(const PrimExpr& e, const std::function<void(const TirVar&)>& fn, int depth) {
  if (e == nullptr) return;
  switch (e->kind()) {
    case NodeKind::kTirVar:
      fn(std::static_pointer_cast<const TirVarNode>(e));
      return;
    case NodeKind::kIntImm:
    case NodeKind::kFloatImm:
      return;
    default:
      break;
  }
  if (depth >= kMaxRecursion) {
    VisitTirVarsDeep(e, fn);
    return;
  }
  ForEachChild(e, [&](const PrimExpr& c) { VisitTirVarsAt(c, fn, depth + 1); });
}

}  // namespace

void VisitTirVars(const PrimExpr& e, const std::function<void(const TirVar&)>& fn) {
  VisitTirVarsAt(e, fn, 0);
}

std::vector<TirVar> FreeTirVars(const PrimExpr& e) {
  std::vector<TirVar> out;
  std::unordered_set<const TirVarNode*> seen;
  VisitTirVars(e, [&](const TirVar& v) {
    if (seen.insert(v.get()).second) out.push_back(v);
  });
  return out;
}

PrimExpr Simplify(const PrimExpr& e) { return SimplifyNode(e); }

bool ProvablyEqual(const PrimExpr& a, const PrimExpr& b) {
  if (a == b) return true;
  if (SameStructure(Simplify(a), Simplify(b))) return true;
  return ConstDifference(a, b) == 0;
}

PrimExpr CanonicalSimplify(const PrimExpr& e) { return NormalizeArith(e); }

std::string ToString(const PrimExpr& e, const TirVarNamer& var_name) {
  PrimPrinter printer(var_name);
  int prec;
  return printer.Print(e, &prec);
}

}  // namespace pipesplit::ir
