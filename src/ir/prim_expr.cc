// Symbolic scalar expressions: node construction and traversals.
#include "pipesplit/ir/prim_expr.h"

#include <unordered_set>

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

std::optional<BinaryOp> BinaryOpFromName(std::string_view name) {
  for (int i = static_cast<int>(BinaryOp::kAdd); i <= static_cast<int>(BinaryOp::kOr); ++i) {
    if (name == BinaryOpName(static_cast<BinaryOp>(i))) return static_cast<BinaryOp>(i);
  }
  return std::nullopt;
}

bool IsComparison(BinaryOp op) { return op >= BinaryOp::kEQ && op <= BinaryOp::kGE; }

PrimExpr IntImm(int64_t value, DataType dtype) { return Make<IntImmNode>(dtype, value); }
PrimExpr FloatImm(double value, DataType dtype) { return Make<FloatImmNode>(dtype, value); }
PrimExpr BoolImm(bool value) { return Make<IntImmNode>(DataType::Bool(), value ? 1 : 0); }
TirVar MakeTirVar(std::string name, DataType dtype) {
  return Make<TirVarNode>(std::move(name), dtype);
}

PrimExpr MakeBinary(BinaryOp op, PrimExpr a, PrimExpr b, Span span) {
  DataType dtype = (IsComparison(op) || op == BinaryOp::kAnd || op == BinaryOp::kOr)
                       ? DataType::Bool()
                       : a->dtype();
  return Make<BinaryNode>(op, std::move(a), std::move(b), dtype, span);
}

std::optional<int64_t> AsConstInt(const PrimExpr& e) {
  if (const auto* imm = As<IntImmNode>(e)) return imm->value();
  return std::nullopt;
}

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
    case NodeKind::kTirStringImm:
      return;
    case NodeKind::kLet:
    case NodeKind::kBinary:
    case NodeKind::kNot:
    case NodeKind::kCast:
    case NodeKind::kSelect:
    case NodeKind::kBufferLoad:
    case NodeKind::kPrimCall:
    PIPESPLIT_KINDS_OUTSIDE_PRIM_EXPR:
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
  // Vars bound by a T.Let inside `e` are not free (each let binds a var of its own).
  std::vector<PrimExpr> stack{e};
  while (!stack.empty()) {
    PrimExpr node = std::move(stack.back());
    stack.pop_back();
    if (node == nullptr) continue;
    if (const auto* let = As<LetNode>(node)) seen.insert(let->var().get());
    ForEachChild(node, [&](const PrimExpr& c) { stack.push_back(c); });
  }
  VisitTirVars(e, [&](const TirVar& v) {
    if (seen.insert(v.get()).second) out.push_back(v);
  });
  return out;
}

}  // namespace pipesplit::ir
