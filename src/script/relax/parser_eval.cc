// Lowering: expression evaluation — names (scopes, the module, TypeVars, symbolic vars created
// in signatures), literals, attributes, subscripts (tuple indexing, metadata constants),
// tuples/lists/dicts and lambdas. Operators are in parser_operators.cc.
#include <limits>

#include "pipesplit/support/diagnostic.h"
#include "src/script/relax/parser_lower.h"
#include "src/script/syntax/parser_syntax.h"

namespace pipesplit::script {
namespace {

// A copy of `v` located at `node` (one named return: the copy is built in place).
Value WithNode(const Value& v, const PyExpr* node) {
  Value copy = v;
  copy.node = node;
  return copy;
}

}  // namespace

Value Lowerer::Eval(const PyExpr* e) {
  switch (e->kind) {
    case PyExprKind::kName:
      return EvalName(e);
    case PyExprKind::kInt:
    case PyExprKind::kFloat:
    case PyExprKind::kString:
    case PyExprKind::kBool:
    case PyExprKind::kNone:
      return EvalLiteral(e);
    case PyExprKind::kAttribute:
      return EvalAttribute(e);
    case PyExprKind::kCall:
      return EvalCall(e);
    case PyExprKind::kSubscript:
      return EvalSubscript(e);
    case PyExprKind::kTuple:
    case PyExprKind::kList:
    case PyExprKind::kDict: {
      Value v;
      v.kind = e->kind == PyExprKind::kTuple  ? Value::Kind::kTuple
               : e->kind == PyExprKind::kList ? Value::Kind::kList
                                              : Value::Kind::kDict;
      v.node = e;
      v.items.reserve(e->items.size());
      for (const PyExpr* item : e->items) {
        if (item->kind == PyExprKind::kStarred)
          Error(item, "starred expressions are not supported");
        v.items.push_back(Eval(item));
      }
      return v;
    }
    case PyExprKind::kBinOp:
      return EvalBinOp(e);
    case PyExprKind::kUnaryOp:
      return EvalUnaryOp(e);
    case PyExprKind::kCompare:
      return EvalCompare(e);
    case PyExprKind::kBoolOp:
      return EvalBoolOp(e);
    case PyExprKind::kLambda:
      return EvalLambda(e, DataType::Int(64));
    case PyExprKind::kIfExp: {
      Value cond = Eval(e->items[0]);
      if (!IsNumber(cond)) {
        Error(e->items[0], "the condition of a conditional expression must be a constant");
      }
      return Eval(AsDouble(cond) != 0 ? e->items[1] : e->items[2]);
    }
    case PyExprKind::kSlice:
      Error(e, "slices are not supported here");
    case PyExprKind::kStarred:
      Error(e, "starred expressions are not supported");
    case PyExprKind::kEllipsis:
      Error(e, "'...' is not supported here");
  }
  Error(e, "unsupported expression");
}

Value Lowerer::EvalLiteral(const PyExpr* e) {
  Value v;
  v.node = e;
  switch (e->kind) {
    case PyExprKind::kInt: {
      int64_t value = 0;
      IntLiteralStatus status = DecodeIntLiteral(e->text, &value);
      if (status == IntLiteralStatus::kOverflow) {
        Error(e, "integer literal " + std::string(e->text.substr(0, 40)) +
                     (e->text.size() > 40 ? "..." : "") + " is out of the int64 range");
      }
      if (status == IntLiteralStatus::kInvalid) {
        Error(e, "invalid integer literal '" + std::string(e->text) + "'");
      }
      return MakeInt(value, e);
    }
    case PyExprKind::kFloat: {
      std::optional<double> value = DecodeFloatLiteral(e->text);
      if (!value) Error(e, "invalid float literal '" + std::string(e->text) + "'");
      return MakeFloat(*value, e);
    }
    case PyExprKind::kString:
      v.kind = Value::Kind::kStr;
      v.s = std::string(e->str);
      return v;
    case PyExprKind::kBool:
      return MakeBool(e->bool_value, e);
    default:
      v.kind = Value::Kind::kNone;
      return v;
  }
}

Value Lowerer::EvalName(const PyExpr* e) {
  if (const Value* found = symbols_.Lookup(e->text)) {
    if (found->kind == Value::Kind::kTypeVar) {
      if (!signature_mode_ || fn_ == nullptr) {
        Error(e, "TypeVar '" + std::string(e->text) + "' can only be used in a function signature");
      }
      // Each function gets its own symbolic var for a module-level TypeVar it mentions.
      Value v;
      v.kind = Value::Kind::kPrim;
      v.prim = ir::Make<ir::TirVarNode>(std::string(e->text), DataType::Int(64), false, SpanOf(e));
      symbols_.Define(e->text, v);
      v.node = e;
      return v;
    }
    return WithNode(*found, e);
  }
  if (create_symbols_ && fn_ != nullptr) {
    DataType dtype = DataType::Int(64);
    bool size_var = false;
    auto it = fn_->prelude_decls.find(std::string(e->text));
    if (it != fn_->prelude_decls.end() && it->second.kind == Value::Kind::kPrim) {
      Value constant = it->second;  // the body binds the name to a constant
      constant.node = e;
      return constant;
    }
    if (it != fn_->prelude_decls.end()) {
      dtype = it->second.dtype;
      size_var = it->second.is_size_var;
    }
    Value v;
    v.kind = Value::Kind::kPrim;
    auto var = ir::Make<ir::TirVarNode>(std::string(e->text), dtype, size_var, SpanOf(e));
    v.prim = var;
    symbols_.Define(e->text, v);  // stored without a node: `e` may belong to a temporary tree
    if (!signature_mode_) fn_->bb.DefineTirVar(var);
    v.node = e;
    return v;
  }
  if (e->text == "R" || e->text == "T" || e->text == "I") {
    Error(e, "'" + std::string(e->text) + "' is a namespace, not a value");
  }
  Error(e, "undefined variable '" + std::string(e->text) + "'");
}

Value Lowerer::EvalAttribute(const PyExpr* e) {
  // Most attributes: a function of the module (`cls.f`), read without building the dotted name
  // or copying the module's value.
  if (const PyExpr* base_node = e->items[0]; base_node->kind == PyExprKind::kName) {
    const Value* base = symbols_.Lookup(base_node->text);
    if (base != nullptr && base->kind == Value::Kind::kModule) {
      auto it = globals_.find(e->text);
      if (it != globals_.end()) {
        Value v;
        v.kind = Value::Kind::kExpr;
        v.expr = it->second;
        v.node = e;
        return v;
      }
    }
  }
  std::string name = DottedName(e);
  std::string root = name.substr(0, name.find('.'));
  if (!name.empty() && symbols_.Lookup(root) == nullptr) {
    if (name.rfind("R.", 0) == 0) {
      std::string attr = name.substr(2);
      if (attr == "Tensor" || attr == "Object" || attr == "Any" || attr == "Shape" ||
          attr == "Tuple" || attr == "Callable" || attr == "PackedFunc") {
        return MakeSInfo(attr, e);
      }
      Error(e, "'" + name + "' must be called");
    }
    if (name.rfind("T.", 0) == 0) {
      std::optional<DataType> dtype = DataType::Parse(name.substr(2));
      if (dtype) {
        Value v;
        v.kind = Value::Kind::kSInfo;
        v.sinfo = ir::Make<ir::PrimSInfoNode>(*dtype, nullptr, SpanOf(e));
        v.node = e;
        return v;
      }
      Error(e, "'" + name + "' must be called");
    }
    if (root == "R" || root == "T" || root == "I") Error(e, "'" + name + "' must be called");
    Error(e->items[0], "undefined variable '" + root + "'");
  }
  if (const PyExpr* inner = e->items[0];
      inner->kind == PyExprKind::kAttribute && inner->text == "dtype" &&
      (e->text == "bits" || e->text == "lanes" || e->text == "type_code")) {
    // `A.dtype.bits`: a field of the tensor's runtime DLDataType (relax.inspect).
    Value tensor = Eval(inner->items[0]);
    if (tensor.kind == Value::Kind::kExpr) {
      const std::string field = e->text == "type_code" ? "code" : std::string(e->text);
      return InspectTensor("relax.inspect.tensor_dtype_" + field, tensor, nullptr, e);
    }
  }
  Value base = Eval(e->items[0]);
  if (base.kind == Value::Kind::kExpr &&
      (e->text == "ndim" || e->text == "byte_offset" || e->text == "elem_offset")) {
    return InspectTensor("relax.inspect.tensor_" + std::string(e->text), base, nullptr, e);
  }
  if (base.kind == Value::Kind::kModule) {
    auto it = globals_.find(e->text);
    if (it == globals_.end()) {
      Error(e, "module '" + base.s + "' has no function '" + std::string(e->text) + "'");
    }
    Value v;
    v.kind = Value::Kind::kExpr;
    v.expr = it->second;
    v.node = e;
    return v;
  }
  if (base.kind == Value::Kind::kExpr && (e->text == "struct_info" || e->text == "ty")) {
    // `x.struct_info` (`x.ty` in the current syntax): the type of a Relax value, as TVM reads
    // the attribute of the parsed expression.
    ir::Expr expr = NormalizeValue(base.expr);
    if (expr->struct_info() == nullptr) Error(e->items[0], "the value has no struct info");
    Value v;
    v.kind = Value::Kind::kSInfo;
    v.sinfo = expr->struct_info();
    v.node = e;
    return v;
  }
  Error(e, std::string("unsupported attribute '") + std::string(e->text) + "' of " +
               ValueKindName(base.kind));
}

Value Lowerer::InspectTensor(const std::string& op, const Value& tensor, const Value* axis,
                             const PyExpr* e) {
  std::vector<Value> positional = {tensor};
  if (axis != nullptr) {
    Value index = *axis;
    if (index.kind == Value::Kind::kInt) {  // a Python int becomes R.prim_value(i) (int64)
      index.kind = Value::Kind::kExpr;
      index.expr = ir::Make<ir::PrimValueNode>(ir::IntImm(axis->i, DataType::Int(64)), SpanOf(e));
    }
    positional.push_back(std::move(index));
  }
  std::vector<std::pair<const PyKeyword*, Value>> keywords;
  return CallOpWithArgs(op, positional, keywords, e);
}

Value Lowerer::EvalSubscript(const PyExpr* e) {
  const PyExpr* base_node = e->items[0];
  const PyExpr* index_node = e->items[1];
  // metadata["relax.expr.Constant"][i]
  if (base_node->kind == PyExprKind::kSubscript && base_node->items[0]->kind == PyExprKind::kName &&
      base_node->items[0]->text == "metadata" && symbols_.Lookup("metadata") == nullptr) {
    const PyExpr* key = base_node->items[1];
    if (key->kind != PyExprKind::kString || key->str != "relax.expr.Constant") {
      Error(key, "only metadata[\"relax.expr.Constant\"] is supported");
    }
    Value index = Eval(index_node);
    if (index.kind != Value::Kind::kInt || index.i < 0) {
      Error(index_node, "a metadata index must be a non-negative integer");
    }
    metadata_referenced_ = true;
    Value v;
    v.kind = Value::Kind::kExpr;
    v.expr = ir::Make<ir::ConstantNode>(
        index.i, ir::Make<ir::TensorSInfoNode>(DataType::Void(), -1), SpanOf(e));
    v.node = e;
    return v;
  }
  if (base_node->kind == PyExprKind::kName && base_node->text == "metadata" &&
      symbols_.Lookup("metadata") == nullptr) {
    Error(e, "metadata must be indexed as metadata[\"relax.expr.Constant\"][i]");
  }
  if (base_node->kind == PyExprKind::kAttribute &&
      (base_node->text == "shape" || base_node->text == "strides")) {
    // `A.shape[i]` / `A.strides[i]` of a Relax tensor: its runtime extent / stride.
    Value tensor = Eval(base_node->items[0]);
    if (tensor.kind == Value::Kind::kExpr) {
      Value axis = Eval(index_node);
      const std::string op = base_node->text == "shape" ? "relax.inspect.tensor_shape_i"
                                                        : "relax.inspect.tensor_stride_i";
      return InspectTensor(op, tensor, &axis, e);
    }
  }
  Value base = Eval(base_node);
  if (index_node->kind == PyExprKind::kSlice) Error(index_node, "slices are not supported");
  Value index = Eval(index_node);
  if (base.kind == Value::Kind::kTuple || base.kind == Value::Kind::kList) {
    int64_t i = ToInt(index, index_node, "an index");
    int64_t n = static_cast<int64_t>(base.items.size());
    if (i < -n || i >= n) Error(index_node, "index " + std::to_string(i) + " is out of range");
    return base.items[static_cast<size_t>(i < 0 ? i + n : i)];
  }
  if (base.kind != Value::Kind::kExpr) {
    Error(base_node, std::string("cannot index ") + ValueKindName(base.kind));
  }
  if (index.kind != Value::Kind::kInt) {
    Error(index_node,
          std::string("a tuple index must be an integer, not ") + ValueKindName(index.kind));
  }
  if (const auto* tuple = ir::As<ir::TupleNode>(base.expr)) {
    int64_t n = static_cast<int64_t>(tuple->fields().size());
    if (index.i < -n || index.i >= n) {
      Error(index_node, "tuple index " + std::to_string(index.i) +
                            " is out of range for a tuple of " + std::to_string(n) + " fields");
    }
    Value v = base;
    v.expr = tuple->fields()[static_cast<size_t>(index.i < 0 ? index.i + n : index.i)];
    v.node = e;
    return v;
  }
  if (index.i < 0) Error(index_node, "a tuple index must be non-negative");
  if (index.i > std::numeric_limits<int>::max()) Error(index_node, "tuple index is too large");
  ir::Expr tuple = NormalizeArg(base.expr);
  Value v;
  v.kind = Value::Kind::kExpr;
  v.expr = NormalizeValue(
      ir::Make<ir::TupleGetItemNode>(tuple, static_cast<int>(index.i), nullptr, SpanOf(e)));
  v.node = e;
  return v;
}

Value Lowerer::EvalBinOp(const PyExpr* e) {
  Value a = Eval(e->items[0]);
  Value b = Eval(e->items[1]);
  return ApplyBinary(e->op, a, b, e);
}

Value Lowerer::EvalLambda(const PyExpr* e, DataType index_dtype) {
  symbols_.PushFrame();
  ir::AttrList params;
  for (const PyKeyword& param : e->keywords) {
    Value v;
    v.kind = Value::Kind::kPrim;
    v.prim = ir::Make<ir::TirVarNode>(
        std::string(param.name), index_dtype, false,
        SpanOf(param.name_begin, param.name_begin + static_cast<uint32_t>(param.name.size())));
    v.node = e;
    params.push_back(ir::AttrValue(v.prim));
    symbols_.Define(param.name, v);
  }
  Value body;
  try {
    body = Eval(e->items[0]);
  } catch (...) {
    symbols_.PopFrame();
    throw;
  }
  symbols_.PopFrame();
  ir::AttrCall lambda;
  lambda.callee = "lambda";
  lambda.args.push_back(ir::AttrValue(std::move(params)));
  lambda.args.push_back(ToAttr(body, e->items[0]));
  Value v;
  v.kind = Value::Kind::kAttr;
  v.attr = std::make_shared<const ir::AttrValue>(std::move(lambda));
  v.node = e;
  return v;
}

}  // namespace pipesplit::script
