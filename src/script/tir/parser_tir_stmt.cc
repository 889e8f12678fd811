// TIR lowering, part 4: the statements TVM's 2026 schedules and kernels add: `while`, `assert
// cond, ("Kind", ["message", ...])`, thread launches (T.launch_thread) and attributes (T.attr,
// with T.comm_reducer targets), and the expressions they come with (T.Let, the builtins of GPU
// schedules such as T.tvm_storage_sync).
#include "pipesplit/ir/arith.h"
#include "pipesplit/support/diagnostic.h"
#include "src/script/tir/parser_tir.h"

namespace pipesplit::script {

using ir::PrimExpr;

namespace {

bool IsStringList(const PyExpr* e) {
  if (e->kind != PyExprKind::kList) return false;
  for (const PyExpr* item : e->items) {
    if (item->kind != PyExprKind::kString) return false;
  }
  return true;
}

}  // namespace

ir::Stmt TirLowerer::While(const PyStmt* s) {
  PrimExpr cond = Expr(s->value);
  if (!cond->dtype().is_bool()) {
    Error(s->value,
          "a while condition must be a boolean expression, not " + cond->dtype().ToString());
  }
  Push();
  ir::Stmt body = Body(s->body, 0);
  Pop();
  return ir::Make<ir::WhileNode>(std::move(cond), std::move(body), SpanOf(s->begin, s->end));
}

ir::Stmt TirLowerer::Assert(const PyStmt* s) {
  PrimExpr cond = Expr(s->value);
  if (!cond->dtype().is_bool()) {
    Error(s->value,
          "an assert condition must be a boolean expression, not " + cond->dtype().ToString());
  }
  const PyExpr* message = s->target;
  if (message == nullptr) {
    Error(s->begin, s->end, "an assert in TIR needs a message (\"Kind\", [\"message\", ...])");
  }
  if (message->kind != PyExprKind::kTuple || message->items.size() != 2 ||
      message->items[0]->kind != PyExprKind::kString || !IsStringList(message->items[1])) {
    Error(message,
          "an assert message must be a pair (\"Kind\", [\"message\", ...]) of an error kind and "
          "a list of strings");
  }
  std::vector<std::string> parts;
  for (const PyExpr* part : message->items[1]->items) parts.emplace_back(part->str);
  return ir::Make<ir::AssertStmtNode>(std::move(cond), std::string(message->items[0]->str),
                                      std::move(parts), SpanOf(s->begin, s->end));
}

ir::AttrTarget TirLowerer::AttrTargetOf(const PyExpr* e) {
  ir::AttrTarget target;
  if (TirCallee(e) != "T.comm_reducer") {
    target.kind = ir::AttrTarget::Kind::kExpr;
    target.expr = Expr(e);
    return target;
  }
  // T.comm_reducer(lambda x0, y0: x0 + y0, [identity, ...]): 2n lambda params for n identities,
  // each of the dtype of its identity.
  if (e->items.size() != 3 || e->items[1]->kind != PyExprKind::kLambda ||
      e->items[2]->kind != PyExprKind::kList || !e->keywords.empty()) {
    Error(e, "T.comm_reducer expects a lambda and a list of identity elements");
  }
  const PyExpr* lambda = e->items[1];
  auto reducer = std::make_shared<ir::CommReducer>();
  for (const PyExpr* item : e->items[2]->items) reducer->identity.push_back(Expr(item));
  size_t n = reducer->identity.size();
  if (n == 0 || lambda->keywords.size() != 2 * n) {
    Error(lambda, "T.comm_reducer: the lambda takes " + std::to_string(2 * n) + " parameters for " +
                      std::to_string(n) + " identity element" + (n == 1 ? "" : "s") + ", not " +
                      std::to_string(lambda->keywords.size()));
  }
  Push();
  for (size_t i = 0; i < 2 * n; ++i) {
    const PyKeyword& param = lambda->keywords[i];
    uint32_t end = param.name_begin + static_cast<uint32_t>(param.name.size());
    ir::TirVar var = NewVar(param.name, reducer->identity[i % n]->dtype(), param.name_begin, end);
    (i < n ? reducer->lhs : reducer->rhs).push_back(std::move(var));
  }
  const PyExpr* body = lambda->items[0];
  if (n == 1) {
    reducer->result.push_back(Expr(body));
  } else {
    if (body->kind != PyExprKind::kTuple || body->items.size() != n) {
      Error(body, "T.comm_reducer: the lambda must return " + std::to_string(n) + " values");
    }
    for (const PyExpr* item : body->items) reducer->result.push_back(Expr(item));
  }
  Pop();
  target.kind = ir::AttrTarget::Kind::kCommReducer;
  target.reducer = std::move(reducer);
  return target;
}

ir::Stmt TirLowerer::AttrStmt(const PyStmt* s, const PyExpr* call, const PyExpr* target,
                              const std::function<ir::Stmt()>& body) {
  std::string callee = TirCallee(call);
  std::vector<const PyExpr*> args(call->items.begin() + 1, call->items.end());
  Span span = SpanOf(s->begin, s->end);
  if (!call->keywords.empty()) {
    const PyKeyword& kw = call->keywords[0];
    Error(kw.name_begin, kw.name_begin + static_cast<uint32_t>(kw.name.size()),
          callee + " takes no keyword arguments");
  }
  if (callee == "T.launch_thread") {
    // T.launch_thread("threadIdx.x", extent) binds a new var to the thread axis;
    // T.launch_thread(x, extent) launches the var of an earlier `x = T.env_thread(...)`.
    const ir::TirVarNode* env = nullptr;
    if (args.size() == 2 && args[0]->kind == PyExprKind::kName) {
      const Symbol* sym = Find(args[0]->text);
      if (sym != nullptr && sym->var != nullptr && env_threads_.count(sym->var.get())) {
        env = sym->var.get();
      }
    }
    if (args.size() != 2 || (args[0]->kind != PyExprKind::kString && env == nullptr)) {
      Error(call,
            "T.launch_thread expects a thread tag string (or a T.env_thread var) and an "
            "extent");
    }
    PrimExpr extent = Expr(args[1]);
    if (!extent->dtype().is_integer()) {
      Error(args[1], "a thread extent must be an integer, not " + extent->dtype().ToString());
    }
    ir::AttrTarget thread;
    thread.kind = ir::AttrTarget::Kind::kThread;
    if (env != nullptr) {
      if (target != nullptr) Error(target, "T.launch_thread of a T.env_thread var binds no name");
      thread.var = Find(args[0]->text)->var;
      thread.thread_tag = env_threads_.at(env);
      extent = ir::CastTo(extent, thread.var->dtype());
      ir::Stmt inner = body();
      return ir::Make<ir::AttrStmtNode>(std::move(thread), "thread_extent", std::move(extent),
                                        std::move(inner), span);
    }
    thread.thread_tag = std::string(args[0]->str);
    Push();
    if (target != nullptr) {
      thread.var = NewVar(target, extent->dtype());
    } else {
      std::string name = thread.thread_tag;
      for (char& c : name) c = c == '.' ? '_' : c;
      thread.var = ir::Make<ir::TirVarNode>(name, extent->dtype(), false, SpanOf(args[0]));
    }
    std::string key =
        thread.thread_tag.rfind("vthread", 0) == 0 ? "virtual_thread" : "thread_extent";
    ir::Stmt inner = body();
    Pop();
    return ir::Make<ir::AttrStmtNode>(std::move(thread), std::move(key), std::move(extent),
                                      std::move(inner), span);
  }
  // T.attr(node, "key", value), or T.attr({"key": value, ...}): nested attributes of no node.
  if (target != nullptr) Error(target, "T.attr binds no name");
  if (args.size() == 1 && args[0]->kind == PyExprKind::kDict) {
    const PyExpr* dict = args[0];
    if (dict->items.empty()) Error(dict, "T.attr expects at least one attribute");
    std::vector<std::pair<std::string, PrimExpr>> attrs;
    for (size_t k = 0; k + 1 < dict->items.size(); k += 2) {
      if (dict->items[k]->kind != PyExprKind::kString) {
        Error(dict->items[k], "attribute keys must be strings");
      }
      attrs.emplace_back(std::string(dict->items[k]->str), Expr(dict->items[k + 1]));
    }
    ir::Stmt inner = body();
    for (size_t k = attrs.size(); k-- > 0;) {
      inner = ir::Make<ir::AttrStmtNode>(ir::AttrTarget{}, std::move(attrs[k].first),
                                         std::move(attrs[k].second), std::move(inner), span);
    }
    return inner;
  }
  if (args.size() != 3 || args[1]->kind != PyExprKind::kString) {
    Error(call, "T.attr expects a node, a key string and a value, or a dictionary of attributes");
  }
  ir::AttrTarget node = AttrTargetOf(args[0]);
  PrimExpr value = Expr(args[2]);
  return ir::Make<ir::AttrStmtNode>(std::move(node), std::string(args[1]->str), std::move(value),
                                    body(), span);
}

PrimExpr TirLowerer::LetExpr(const PyExpr* call) {
  // T.Let(body, where={var: value}); the var was declared before (`v = T.float32()`).
  const PyExpr* where = nullptr;
  for (const PyKeyword& kw : call->keywords) {
    if (kw.name != "where") {
      Error(kw.name_begin, kw.name_begin + static_cast<uint32_t>(kw.name.size()),
            "unsupported argument '" + std::string(kw.name) + "' of T.Let");
    }
    where = kw.value;
  }
  if (call->items.size() != 2 || where == nullptr || where->kind != PyExprKind::kDict ||
      where->items.size() != 2) {
    Error(call, "T.Let expects a body and where={var: value}");
  }
  const PyExpr* name = where->items[0];
  const Symbol* sym = name->kind == PyExprKind::kName ? Find(name->text) : nullptr;
  if (sym == nullptr || sym->var == nullptr) {
    Error(name, "T.Let binds a declared variable (`v = T.float32()` before it)");
  }
  ir::TirVar var = sym->var;
  PrimExpr value = Expr(where->items[1], var->dtype());
  if (!(value->dtype() == var->dtype())) {
    Error(where->items[1], "T.Let binds '" + var->name() + "' of dtype " + var->dtype().ToString() +
                               " to a " + value->dtype().ToString());
  }
  PrimExpr body = Expr(call->items[1]);
  return ir::Make<ir::LetNode>(std::move(var), std::move(value), std::move(body), SpanOf(call));
}

PrimExpr TirLowerer::Builtin(const PyExpr* call, const std::string& name) {
  // The builtins GPU schedules emit, with the dtype TVM gives their calls.
  struct Spec {
    const char* name;
    int min_args;
    int max_args;
    enum { kInt32, kHandle, kFirstArg } dtype;
  };
  static const Spec kSpecs[] = {
      {"tvm_storage_sync", 1, 3, Spec::kInt32},
      {"tvm_thread_invariant", 1, 1, Spec::kFirstArg},
      {"tvm_thread_allreduce", 3, 64, Spec::kHandle},
      {"tvm_access_ptr", 5, 5, Spec::kHandle},
      {"tvm_load_matrix_sync", 8, 8, Spec::kHandle},
      {"tvm_store_matrix_sync", 8, 8, Spec::kHandle},
      {"tvm_mma_sync", 8, 8, Spec::kHandle},
      {"tvm_fill_fragment", 6, 6, Spec::kHandle},
  };
  std::string callee = "T." + name;
  if (name == "type_annotation") {
    // T.type_annotation("float16"): a typed null value (the dtype is the call's).
    if (call->items.size() != 2 || !call->keywords.empty()) {
      Error(call, "T.type_annotation expects a dtype");
    }
    return ir::Make<ir::PrimCallNode>(name, std::vector<PrimExpr>{}, DTypeArg(call->items[1]),
                                      SpanOf(call));
  }
  for (const Spec& spec : kSpecs) {
    if (name != spec.name) continue;
    int n = static_cast<int>(call->items.size()) - 1;
    if (n < spec.min_args || n > spec.max_args || !call->keywords.empty()) {
      Error(call, callee + " expects " + std::to_string(spec.min_args) +
                      (spec.max_args == spec.min_args ? "" : " or more") + " arguments");
    }
    std::vector<PrimExpr> args;
    for (int i = 1; i <= n; ++i) args.push_back(Expr(call->items[i]));
    DataType dtype = spec.dtype == Spec::kInt32    ? DataType::Int(32)
                     : spec.dtype == Spec::kHandle ? DataType::Handle()
                                                   : args[0]->dtype();
    return ir::Make<ir::PrimCallNode>(name, std::move(args), dtype, SpanOf(call));
  }
  return nullptr;
}

}  // namespace pipesplit::script
