// Lowering: T.* and I.* calls — scalar immediates and casts (T.int64(5), T.float32(0.5)),
// symbolic declarations (T.int64(), T.Var("n", "int64")), TIR intrinsics in symbolic
// expressions (T.min, T.floordiv, T.Select, T.if_then_else, ...), index-map lambdas, and the
// attribute-only calls (I.vdevice(...), R.device_mesh(...)).
#include <limits>

#include "pipesplit/support/diagnostic.h"
#include "src/script/relax/parser_lower.h"

namespace pipesplit::script {

Value Lowerer::EvalTirBuiltin(const std::string& name, const PyExpr* call) {
  const std::string display = "T." + name;
  auto prim_arg = [&](size_t i) -> ir::PrimExpr {
    if (i + 1 >= call->items.size()) {
      Error(call, display + " expects at least " + std::to_string(i + 1) + " arguments");
    }
    return ToPrim(Eval(call->items[i + 1]), call->items[i + 1]);
  };
  auto prim_value = [&](ir::PrimExpr p) {
    Value v;
    v.kind = Value::Kind::kPrim;
    v.prim = std::move(p);
    v.node = call;
    return v;
  };
  auto binary = [&](ir::BinaryOp op) {
    if (call->items.size() != 3) Error(call, display + " expects 2 arguments");
    Value a = Eval(call->items[1]);
    Value b = Eval(call->items[2]);
    ir::PrimExpr x = ToPrim(a, call->items[1]);
    ir::PrimExpr y = ToPrim(b, call->items[2]);
    MatchDTypes(&x, &y, a.kind != Value::Kind::kPrim, b.kind != Value::Kind::kPrim, call);
    return prim_value(ir::MakeBinary(op, x, y, SpanOf(call)));
  };
  std::optional<DataType> dtype = DataType::Parse(name);
  if (dtype && name != "void" && name != "handle") {
    size_t positional = call->items.size() - 1;
    if (positional == 0) {
      Value v;
      v.kind = Value::Kind::kSymDecl;
      v.dtype = *dtype;
      v.node = call;
      for (const PyKeyword& kw : call->keywords) {
        if (kw.name != "is_size_var") {
          Error(SpanOf(kw.name_begin, kw.name_begin + static_cast<uint32_t>(kw.name.size())),
                display + "() got an unexpected keyword argument '" + std::string(kw.name) + "'");
        }
        v.is_size_var = ToBool(Eval(kw.value), kw.value, "is_size_var");
      }
      return v;
    }
    if (positional != 1) Error(call, display + " expects one argument");
    Value a = Eval(call->items[1]);
    switch (a.kind) {
      case Value::Kind::kInt:
      case Value::Kind::kBool:
        return prim_value(MakeIntImm(a.kind == Value::Kind::kInt ? a.i : a.b, *dtype, call));
      case Value::Kind::kFloat:
        if (dtype->is_float()) {
          return prim_value(ir::Make<ir::FloatImmNode>(*dtype, a.f, SpanOf(call)));
        }
        return prim_value(MakeIntImm(static_cast<int64_t>(a.f), *dtype, call));
      case Value::Kind::kStr:
        if (dtype->is_float() && (a.s == "inf" || a.s == "-inf" || a.s == "nan")) {
          double f = a.s == "nan"
                         ? std::numeric_limits<double>::quiet_NaN()
                         : (a.s == "inf" ? 1 : -1) * std::numeric_limits<double>::infinity();
          return prim_value(ir::Make<ir::FloatImmNode>(*dtype, f, SpanOf(call)));
        }
        break;
      case Value::Kind::kPrim:
        if (a.prim->dtype() == *dtype) return a;
        return prim_value(ir::Make<ir::CastNode>(*dtype, a.prim, SpanOf(call)));
      default:
        break;
    }
    Error(call->items[1], display + " cannot convert " + ValueKindName(a.kind));
  }
  if (name == "Var" || name == "SizeVar") {
    auto args = BindArgs(call, display, {"name", "dtype"});
    if (args[0] == nullptr || args[1] == nullptr)
      Error(call, display + " needs a name and a dtype");
    Value v;
    v.kind = Value::Kind::kSymDecl;
    v.s = ToStr(Eval(args[0]), args[0], "the variable name");
    v.dtype = ToDType(Eval(args[1]), args[1]);
    v.is_size_var = name == "SizeVar";
    v.node = call;
    return v;
  }
  if (name == "IntImm" || name == "FloatImm") {
    auto args = BindArgs(call, display, {"dtype", "value"});
    if (args[0] == nullptr || args[1] == nullptr)
      Error(call, display + " needs a dtype and a value");
    DataType t = ToDType(Eval(args[0]), args[0]);
    Value a = Eval(args[1]);
    if (name == "FloatImm") {
      double f = a.kind == Value::Kind::kFloat
                     ? a.f
                     : static_cast<double>(ToInt(a, args[1], "T.FloatImm"));
      return prim_value(ir::Make<ir::FloatImmNode>(t, f, SpanOf(call)));
    }
    return prim_value(MakeIntImm(ToInt(a, args[1], "T.IntImm"), t, call));
  }
  if (name == "min") return binary(ir::BinaryOp::kMin);
  if (name == "max") return binary(ir::BinaryOp::kMax);
  if (name == "truncmod") return binary(ir::BinaryOp::kMod);
  if (name == "truncdiv" || name == "Div") return binary(ir::BinaryOp::kDiv);
  if (name == "floordiv") return binary(ir::BinaryOp::kFloorDiv);
  if (name == "floormod") return binary(ir::BinaryOp::kFloorMod);
  if (name == "Cast" || name == "cast") {
    if (call->items.size() != 3) Error(call, display + " expects 2 arguments");
    size_t dtype_at = name == "Cast" ? 1 : 2;
    DataType t = ToDType(Eval(call->items[dtype_at]), call->items[dtype_at]);
    ir::PrimExpr value = prim_arg(name == "Cast" ? 1 : 0);
    return prim_value(ir::Make<ir::CastNode>(t, value, SpanOf(call)));
  }
  if (name == "Select") {
    if (call->items.size() != 4) Error(call, "T.Select expects 3 arguments");
    return prim_value(
        ir::Make<ir::SelectNode>(prim_arg(0), prim_arg(1), prim_arg(2), SpanOf(call)));
  }
  if (name == "index_map") {
    if (call->items.size() != 2) Error(call, "T.index_map expects a lambda");
    // The lambda's vars are int64 whatever index_dtype says: TVM prints an index map without
    // its index dtype, so its text (and any module printed and parsed again) has int64 vars.
    // Keeping int32 here would make a module differ from its own reprint.
    ir::AttrMap kwargs;
    for (const PyKeyword& kw : call->keywords) {
      Value value = Eval(kw.value);
      if (kw.name == "index_dtype") {
        ToDType(value, kw.value);  // checked, then dropped
      } else {
        kwargs.emplace_back(std::string(kw.name), ToAttr(value, kw.value));
      }
    }
    const PyExpr* fn = call->items[1];
    if (fn->kind != PyExprKind::kLambda) Error(fn, "T.index_map expects a lambda");
    ir::AttrCall index_map;
    index_map.callee = "T.index_map";
    index_map.args.push_back(*EvalLambda(fn, DataType::Int(64)).attr);
    index_map.kwargs = std::move(kwargs);
    Value v;
    v.kind = Value::Kind::kAttr;
    v.attr = std::make_shared<const ir::AttrValue>(std::move(index_map));
    v.node = call;
    return v;
  }
  if (std::optional<ir::BinaryOp> op = ir::BinaryOpFromName(name)) {
    // TVM's node constructors (T.Add, T.FloorDiv, ...) take operands of one dtype; a Python
    // number takes the other operand's.
    if (call->items.size() != 3 || !call->keywords.empty()) {
      Error(call, display + " expects 2 arguments");
    }
    Value a = Eval(call->items[1]);
    Value b = Eval(call->items[2]);
    ir::PrimExpr x = ToPrim(a, call->items[1]);
    ir::PrimExpr y = ToPrim(b, call->items[2]);
    const bool a_number = a.kind != Value::Kind::kPrim, b_number = b.kind != Value::Kind::kPrim;
    if (a_number != b_number) MatchDTypes(&x, &y, a_number, b_number, call);
    if (!(x->dtype() == y->dtype())) {
      Error(call, display + " needs operands of one dtype, not " + x->dtype().ToString() + " and " +
                      y->dtype().ToString());
    }
    return prim_value(ir::MakeBinary(*op, x, y, SpanOf(call)));
  }
  if (name == "prim_func") Error(call, "@T.prim_func functions are only allowed at module level");
  // Any other intrinsic: T.<name>(args...) with the dtype of its first argument.
  std::vector<ir::PrimExpr> args;
  for (size_t i = 1; i < call->items.size(); ++i) args.push_back(prim_arg(i - 1));
  DataType t = args.empty() ? DataType::Int(64) : args[0]->dtype();
  if (name == "if_then_else" && args.size() == 3) t = args[1]->dtype();
  for (const PyKeyword& kw : call->keywords) {
    if (kw.name != "dtype") {
      Error(SpanOf(kw.name_begin, kw.name_begin + static_cast<uint32_t>(kw.name.size())),
            display + " got an unexpected keyword argument '" + std::string(kw.name) + "'");
    }
    t = ToDType(Eval(kw.value), kw.value);
  }
  return prim_value(ir::Make<ir::PrimCallNode>(name, std::move(args), t, SpanOf(call)));
}

Value Lowerer::EvalIrBuiltin(const std::string& name, const PyExpr* call) {
  if (name == "module_attrs" || name == "module_global_infos") {
    Error(call, "I." + name + " is only allowed in the module body");
  }
  if (name == "ir_module") Error(call, "I.ir_module is a decorator");
  return EvalAttrCall("I." + name, call);
}

Value Lowerer::EvalAttrCall(const std::string& callee, const PyExpr* call) {
  ir::AttrCall attr_call;
  attr_call.callee = callee;
  for (size_t i = 1; i < call->items.size(); ++i) {
    attr_call.args.push_back(ToAttr(Eval(call->items[i]), call->items[i]));
  }
  for (const PyKeyword& kw : call->keywords) {
    attr_call.kwargs.emplace_back(std::string(kw.name), ToAttr(Eval(kw.value), kw.value));
  }
  Value v;
  v.kind = Value::Kind::kAttr;
  v.attr = std::make_shared<const ir::AttrValue>(std::move(attr_call));
  v.node = call;
  return v;
}

}  // namespace pipesplit::script
