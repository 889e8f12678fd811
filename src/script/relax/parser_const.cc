// Lowering of `R.const(value, dtype)`: a number, a bool, or a (nested) list of them, converted as
// TVM's `relax.const` converts them through numpy.
#include <string>
#include <vector>

#include "src/script/relax/parser_lower.h"

namespace pipesplit::script {

DataType Lowerer::DefaultConstDType(Value::Kind kind) {
  // numpy's dtype for a Python value, then relax.const's narrowing (int64 -> int32, float64 ->
  // float32).
  if (kind == Value::Kind::kFloat) return DataType::Float(32);
  if (kind == Value::Kind::kBool) return DataType::Bool();
  return DataType::Int(32);
}

ir::ConstantNode::Scalar Lowerer::ConstElement(const Value& value, DataType dtype,
                                               const PyExpr* node) {
  const PyExpr* at = value.node != nullptr ? value.node : node;
  switch (value.kind) {
    case Value::Kind::kInt:
      if (dtype.is_float()) return static_cast<double>(value.i);
      if (dtype.is_bool()) return value.i != 0;
      MakeIntImm(value.i, dtype, at);  // range check
      return value.i;
    case Value::Kind::kFloat:
      if (dtype.is_float()) return value.f;
      if (dtype.is_bool()) return value.f != 0;
      return static_cast<int64_t>(value.f);
    case Value::Kind::kBool:
      if (dtype.is_float()) return value.b ? 1.0 : 0.0;
      if (dtype.is_bool()) return value.b;
      return static_cast<int64_t>(value.b);
    default:
      Error(at, std::string("an element of R.const must be a number or a bool, not ") +
                    ValueKindName(value.kind));
  }
}

ir::Expr Lowerer::ConstTensor(const Value& value, const PyExpr* node, const DataType* dtype,
                              Span span) {
  // 1. The shape: the lengths along the first elements; every list of a level must match it.
  std::vector<int64_t> shape;
  for (const Value* level = &value;
       level->kind == Value::Kind::kList || level->kind == Value::Kind::kTuple;
       level = &level->items.front()) {
    shape.push_back(static_cast<int64_t>(level->items.size()));
    if (level->items.empty()) break;
  }
  // 2. The leaves in row-major order, checking that the nesting is rectangular.
  std::vector<const Value*> leaves;
  bool any_float = false;
  bool all_bool = true;
  auto walk = [&](auto&& self, const Value& v, size_t depth) -> void {
    const bool is_list = v.kind == Value::Kind::kList || v.kind == Value::Kind::kTuple;
    if (depth == shape.size()) {
      if (is_list) Error(v.node != nullptr ? v.node : node, "R.const of a ragged nested list");
      any_float |= v.kind == Value::Kind::kFloat;
      all_bool &= v.kind == Value::Kind::kBool;
      leaves.push_back(&v);
      return;
    }
    if (!is_list || static_cast<int64_t>(v.items.size()) != shape[depth]) {
      Error(v.node != nullptr ? v.node : node, "R.const of a ragged nested list: expected " +
                                                   std::to_string(shape[depth]) +
                                                   " elements at depth " + std::to_string(depth));
    }
    for (const Value& item : v.items) self(self, item, depth + 1);
  };
  walk(walk, value, 0);
  // 3. The dtype: as given, else numpy's for the leaves (an empty list is float64).
  DataType type;
  if (dtype != nullptr) {
    type = *dtype;
  } else if (any_float || leaves.empty()) {
    type = DataType::Float(32);
  } else {
    type = all_bool ? DataType::Bool() : DataType::Int(32);
  }
  std::vector<ir::ConstantNode::Scalar> elements;
  elements.reserve(leaves.size());
  for (const Value* leaf : leaves) elements.push_back(ConstElement(*leaf, type, node));
  return ir::Make<ir::ConstantNode>(std::move(elements), std::move(shape), type, span);
}

}  // namespace pipesplit::script
