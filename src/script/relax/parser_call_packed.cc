// Lowering: calls of packed functions and Python functions, R.call_packed and
// R.call_py_func, which are not placed through the op table's signatures.
#include <string>
#include <vector>

#include "pipesplit/support/diagnostic.h"
#include "src/script/relax/parser_lower.h"

namespace pipesplit::script {

Value Lowerer::CallPacked(const PyExpr* call) {
  if (call->items.size() < 2) Error(call, "R.call_packed needs the name of a packed function");
  const PyExpr* func_node = call->items[1];
  std::string symbol = ToStr(Eval(func_node), func_node, "the packed function name");
  std::vector<ir::Expr> args;
  for (size_t i = 2; i < call->items.size(); ++i) {
    if (call->items[i]->kind == PyExprKind::kStarred) {
      Error(call->items[i], "starred arguments are not supported");
    }
    args.push_back(ToArg(Eval(call->items[i]), call->items[i]));
  }
  ir::AttrMap attrs;
  std::vector<ir::StructInfo> sinfo_args;
  for (const PyKeyword& kw : call->keywords) {
    Value value = Eval(kw.value);
    if (kw.name == "sinfo_args" || kw.name == "ty_args") {
      sinfo_args = ToSInfoArgs(value, false, kw.value);
    } else {
      attrs = ir::WithAttr(std::move(attrs), std::string(kw.name), ToAttr(value, kw.value));
    }
  }
  Value v;
  v.kind = Value::Kind::kExpr;
  v.expr = ir::Make<ir::CallNode>(ir::Make<ir::ExternFuncNode>(symbol, nullptr, SpanOf(func_node)),
                                  std::move(args), std::move(attrs), std::move(sinfo_args), nullptr,
                                  SpanOf(call));
  v.node = call;
  return v;
}

Value Lowerer::CallPyFunc(const PyExpr* call) {
  for (const PyKeyword& kw : call->keywords) {
    // The printed form (R.call_py_func(R.str("f"), (args,), sinfo_args=...)) is a plain op call.
    if (kw.name == "sinfo_args" || kw.name == "ty_args") return CallOp("relax.call_py_func", call);
  }
  if (call->items.size() < 2) Error(call, "R.call_py_func needs a function name");
  const PyExpr* func_node = call->items[1];
  Value func = Eval(func_node);
  ir::Expr name = func.kind == Value::Kind::kStr
                      ? ir::Expr(ir::Make<ir::StringImmNode>(func.s, SpanOf(func_node)))
                      : ToArg(func, func_node);
  std::vector<ir::Expr> fields;
  for (size_t i = 2; i < call->items.size(); ++i) {
    fields.push_back(ToArg(Eval(call->items[i]), call->items[i]));
  }
  std::vector<ir::StructInfo> sinfo_args;
  for (const PyKeyword& kw : call->keywords) {
    if (kw.name != "out_sinfo" && kw.name != "out_ty") {
      Error(SpanOf(kw.name_begin, kw.name_begin + static_cast<uint32_t>(kw.name.size())),
            "R.call_py_func got an unexpected keyword argument '" + std::string(kw.name) + "'");
    }
    sinfo_args = ToSInfoArgs(Eval(kw.value), false, kw.value);
  }
  ir::Expr args = NormalizeValue(ir::Make<ir::TupleNode>(std::move(fields), nullptr, SpanOf(call)));
  Value v;
  v.kind = Value::Kind::kExpr;
  v.expr =
      ir::Make<ir::CallNode>(ir::GetOp("relax.call_py_func"), std::vector<ir::Expr>{name, args},
                             ir::AttrMap{}, std::move(sinfo_args), nullptr, SpanOf(call));
  v.node = call;
  return v;
}

}  // namespace pipesplit::script
