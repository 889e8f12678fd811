// Lowering: the direct path for the commonest call of a lowered module,
//
//   R.call_tir(cls.f, (x, y, ...), out_sinfo=<struct info>)
//
// whose callee is a module function and whose arguments are names of Relax variables. It builds
// the CallNode the general path (CallOp, CallOpWithArgs) builds, node for node and span for span,
// without a Value per argument or the op table's argument placement. Anything else (a keyword
// spelled differently, a list of arguments, a literal or a symbolic argument, an unbound name,
// trailing tir_vars) takes the general path, which also gives every diagnostic.
//
// Why it gives the same call: for these arguments the general path
//   1. evaluates `cls.f` to the module's GlobalVar and each name to the Var it is bound to;
//   2. finds no trailing symbolic arguments (a Var is not prim-like), so no tir_vars;
//   3. places func and args in signature order, drops tir_vars (not given, default None);
//   4. normalizes the tuple of Vars, spanned by the tuple's text, into one in-line argument
//      whose struct info is the tuple of the Vars' (what BlockBuilder::Normalize gives it);
//   5. converts out_sinfo with ToSInfoArgs (lists folded), completes attrs (call_tir has none
//      to add) and makes no desugaring;
//   6. infers the call's struct info when the binding normalizes it, unless the binding is
//      annotated (the annotation is the call's struct info then).
// ParseOptions::direct_call_tir turns the path off (tests compare both paths on the corpus).
#include <string>
#include <vector>

#include "pipesplit/support/diagnostic.h"
#include "src/script/relax/parser_lower.h"

namespace pipesplit::script {
namespace {

const std::string& CallTirOpName() {
  static const std::string kName = "relax.call_tir";
  return kName;
}

// Whether `e` is written R.Tensor(...).
bool IsTensorCall(const PyExpr* e) {
  if (e->kind != PyExprKind::kCall) return false;
  const PyExpr* callee = e->items[0];
  return callee->kind == PyExprKind::kAttribute && callee->text == "Tensor" &&
         callee->items[0]->kind == PyExprKind::kName && callee->items[0]->text == "R";
}

}  // namespace

bool Lowerer::TryDirectCallTir(const PyExpr* call, Value* out) {
  if (!options_.direct_call_tir || fn_ == nullptr || call->items.size() != 3 ||
      call->keywords.size() != 1) {
    return false;
  }
  const PyKeyword& out_kw = call->keywords[0];
  if (out_kw.name != "out_sinfo" || out_kw.value == nullptr) return false;
  // The callee: cls.f, a function of the module.
  const PyExpr* func_node = call->items[1];
  if (func_node->kind != PyExprKind::kAttribute || func_node->items[0]->kind != PyExprKind::kName) {
    return false;
  }
  const Value* module = symbols_.Lookup(func_node->items[0]->text);
  if (module == nullptr || module->kind != Value::Kind::kModule) return false;
  auto global = globals_.find(func_node->text);
  if (global == globals_.end()) return false;
  // The arguments: a parenthesized tuple of names bound to Relax variables.
  const PyExpr* args_node = call->items[2];
  if (args_node->kind != PyExprKind::kTuple) return false;
  std::vector<ir::Expr> fields;
  std::vector<ir::StructInfo> field_sinfo;
  fields.reserve(args_node->items.size());
  field_sinfo.reserve(args_node->items.size());
  for (const PyExpr* item : args_node->items) {
    if (item->kind != PyExprKind::kName) return false;
    const Value* bound = symbols_.Lookup(item->text);
    if (bound == nullptr || bound->kind != Value::Kind::kExpr ||
        !ir::Is<ir::VarNode>(bound->expr)) {
      return false;
    }
    fields.push_back(bound->expr);
    field_sinfo.push_back(bound->expr->struct_info());
  }
  // The result's struct info, evaluated as the general path evaluates keywords (EvalCall takes
  // a static tensor type seen before; one read here skips building a Value for it).
  std::vector<ir::StructInfo> sinfo_args;
  const ir::StructInfo* seen = IsTensorCall(out_kw.value) && symbols_.Lookup("R") == nullptr
                                   ? SeenStaticTensor(out_kw.value)
                                   : nullptr;
  if (seen != nullptr) {
    sinfo_args.push_back(*seen);
  } else {
    Value sinfo_value = Eval(out_kw.value);
    sinfo_args =
        ToSInfoArgs(sinfo_value, true, sinfo_value.node != nullptr ? sinfo_value.node : call);
  }

  ir::Op op = CachedOp(CallTirOpName());
  std::vector<ir::Expr> args;
  args.reserve(2);
  args.push_back(global->second);
  // The normalized tuple: Vars normalize to themselves, so its struct info is that of its fields.
  args.push_back(ir::Make<ir::TupleNode>(std::move(fields), ir::TupleSInfo(std::move(field_sinfo)),
                                         SpanOf(args_node)));
  ir::AttrMap attrs = ir::CompleteAttrs(*op->info(), ir::AttrMap{}, args);
  auto result = ir::Make<ir::CallNode>(op, std::move(args), std::move(attrs), std::move(sinfo_args),
                                       nullptr, SpanOf(call));
  if (call != annotated_value_) {
    // The struct info the binding's normalization would infer (the args are normalized). The
    // value of an annotated binding takes the annotation instead, as in TVM; a call that does
    // not type is left to that normalization, which reports it where the general path does.
    try {
      ir::SetStructInfoOnce(*result, fn_->bb.InferCallStructInfo(*result));
    } catch (const DiagnosticError&) {
    }
  }
  out->kind = Value::Kind::kExpr;
  out->expr = std::move(result);
  out->node = call;
  return true;
}

}  // namespace pipesplit::script
