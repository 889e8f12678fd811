// Lowering: Relax functions. Signatures (symbolic vars from strings, TypeVars, type
// parameters and prelude declarations), bodies statement by statement, binding blocks and
// dataflow blocks, if/else (TVM's branch-result rules), nested functions and the return value.
#include <algorithm>
#include <cctype>

#include "pipesplit/ir/attr_names.h"
#include "pipesplit/support/diagnostic.h"
#include "src/script/relax/parser_lower.h"

namespace pipesplit::script {
namespace {

// Whether the statements call `name` directly (a recursive local function).
bool CallsName(const PyExpr* e, std::string_view name) {
  if (e == nullptr) return false;
  if (e->kind == PyExprKind::kCall && e->items[0]->kind == PyExprKind::kName &&
      e->items[0]->text == name) {
    return true;
  }
  for (const PyExpr* item : e->items) {
    if (CallsName(item, name)) return true;
  }
  for (const PyKeyword& kw : e->keywords) {
    if (CallsName(kw.value, name)) return true;
  }
  return false;
}

bool StmtsCallName(const std::vector<PyStmt*>& body, std::string_view name) {
  for (const PyStmt* s : body) {
    if (CallsName(s->value, name)) return true;
    if ((s->kind == PyStmtKind::kIf || s->kind == PyStmtKind::kWith) &&
        (StmtsCallName(s->body, name) || StmtsCallName(s->orelse, name))) {
      return true;
    }
  }
  return false;
}

// Whether `name` is used as a symbolic value in `e`: inside an annotation or a shape, or as an
// operand of arithmetic (current syntax: `n * 2` with a `n: T.int64` parameter).
bool UsedSymbolically(const PyExpr* e, std::string_view name, bool symbolic) {
  if (e == nullptr) return false;
  switch (e->kind) {
    case PyExprKind::kName:
      return symbolic && e->text == name;
    case PyExprKind::kString: {
      if (!symbolic) return false;
      for (size_t at = e->str.find(name); at != std::string::npos; at = e->str.find(name, at + 1)) {
        auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
        bool left = at == 0 || !ident(e->str[at - 1]);
        bool right = at + name.size() >= e->str.size() || !ident(e->str[at + name.size()]);
        if (left && right) return true;
      }
      return false;
    }
    case PyExprKind::kBinOp:
    case PyExprKind::kUnaryOp:
    case PyExprKind::kCompare:
    case PyExprKind::kBoolOp:
      symbolic = true;
      break;
    case PyExprKind::kCall: {
      std::string callee = DottedName(e->items[0]);
      if (callee == "R.shape" || callee == "R.prim_value" || callee == "R.Tensor" ||
          callee == "R.Shape" || callee == "R.Prim" || callee == "R.match_cast") {
        symbolic = true;
      }
      break;
    }
    default:
      break;
  }
  for (const PyExpr* item : e->items) {
    if (UsedSymbolically(item, name, symbolic)) return true;
  }
  for (const PyKeyword& kw : e->keywords) {
    if (UsedSymbolically(kw.value, name, symbolic)) return true;
  }
  return false;
}

bool StmtsUseSymbolically(const std::vector<PyStmt*>& body, std::string_view name) {
  for (const PyStmt* s : body) {
    if (UsedSymbolically(s->annotation, name, true) || UsedSymbolically(s->returns, name, true) ||
        UsedSymbolically(s->value, name, false) || UsedSymbolically(s->target, name, false)) {
      return true;
    }
    for (const PyParam& p : s->params) {
      if (UsedSymbolically(p.annotation, name, true)) return true;
    }
    if (StmtsUseSymbolically(s->body, name) || StmtsUseSymbolically(s->orelse, name)) return true;
  }
  return false;
}

}  // namespace

bool IsRelaxCall(const PyExpr* e, std::string_view name) {
  if (e == nullptr || e->kind != PyExprKind::kCall) return false;
  std::string dotted = DottedName(e->items[0]);
  return dotted.size() == name.size() + 2 && dotted.rfind("R.", 0) == 0 &&
         std::string_view(dotted).substr(2) == name;
}

// ---- Signatures ----

void Lowerer::CollectPreludeDecls(const PyStmt* def, FunctionState* fn) {
  for (const PyStmt* s : def->body) {
    if (s->kind != PyStmtKind::kAssign) continue;
    auto record = [&](const PyExpr* target, const PyExpr* value) {
      if (target->kind != PyExprKind::kName || value->kind != PyExprKind::kCall) return;
      std::string callee = DottedName(value->items[0]);
      if (callee.rfind("T.", 0) != 0 || symbols_.Lookup("T") != nullptr) return;
      Value v = Eval(value);
      // A declaration (n = T.int64()) or, as TVM resolves it too, a constant (n = T.int64(4))
      // that the signature's dims of that name stand for.
      bool constant = v.kind == Value::Kind::kPrim && v.prim != nullptr &&
                      v.prim->kind() == ir::NodeKind::kIntImm;
      if (v.kind == Value::Kind::kSymDecl || constant) {
        fn->prelude_decls.try_emplace(std::string(target->text), v);
      }
    };
    const PyExpr* target = s->target;
    const PyExpr* value = s->value;
    if ((target->kind == PyExprKind::kTuple || target->kind == PyExprKind::kList) &&
        value->kind == PyExprKind::kTuple && value->items.size() == target->items.size()) {
      for (size_t i = 0; i < target->items.size(); ++i) record(target->items[i], value->items[i]);
    } else {
      record(target, value);
    }
  }
}

void Lowerer::CheckTypeParam(const PyParam& p) {
  if (p.annotation != nullptr &&
      !(p.annotation->kind == PyExprKind::kName && p.annotation->text == "int")) {
    Error(p.annotation, "type parameter '" + std::string(p.name) + "' must be unbounded or int");
  }
  if (p.default_value != nullptr) {
    Error(p.default_value, "type parameter '" + std::string(p.name) + "' cannot have a default");
  }
}

void Lowerer::DefineTypeParams(const PyStmt* def) {
  for (const PyParam& p : def->type_params) {
    Span span = SpanOf(p.begin, p.end);
    CheckTypeParam(p);
    Value v;
    v.kind = Value::Kind::kPrim;
    v.prim = ir::Make<ir::TirVarNode>(std::string(p.name), DataType::Int(64), false, span);
    symbols_.Define(p.name, v);
  }
}

std::vector<ir::Var> Lowerer::LowerParams(const PyStmt* def) {
  size_t n = def->params.size();
  std::vector<ir::Var> params(n);
  std::unordered_set<std::string_view> seen;
  for (const PyParam& p : def->params) {
    Span span = SpanOf(p.begin, p.end);
    if (p.annotation == nullptr) {
      Error(span, "parameter '" + std::string(p.name) + "' needs a type annotation");
    }
    if (p.default_value != nullptr) Error(p.default_value, "parameter defaults are not supported");
    if (!seen.insert(p.name).second)
      Error(span, "duplicate parameter '" + std::string(p.name) + "'");
  }
  auto define = [&](const ir::Var& var) {
    Value v;
    v.kind = Value::Kind::kExpr;
    v.expr = var;
    symbols_.Define(var->name_hint(), v);
  };
  // Current syntax: a `n: T.int64` parameter is also the symbolic var `n` (TVM's Relax var of
  // prim type is a PrimExpr), visible to the other annotations as in TVM. The classic IR says
  // so with R.Prim(value=n), which is what such a parameter becomes when the function uses it
  // as a symbolic value (else it stays R.Prim("int64")).
  if (current_syntax_) {
    for (size_t i = 0; i < n; ++i) {
      const PyParam& p = def->params[i];
      const PyExpr* a = p.annotation;
      bool prim_type = a->kind == PyExprKind::kAttribute &&
                       a->items[0]->kind == PyExprKind::kName && a->items[0]->text == "T" &&
                       symbols_.Lookup("T") == nullptr;
      if (!prim_type) continue;
      bool symbolic =
          UsedSymbolically(def->returns, p.name, true) || StmtsUseSymbolically(def->body, p.name);
      for (const PyParam& other : def->params) {
        symbolic |= UsedSymbolically(other.annotation, p.name, true);
      }
      if (!symbolic) continue;
      ir::StructInfo sinfo = EvalSInfo(a, true);
      const auto* prim = ir::As<ir::PrimSInfoNode>(sinfo);
      if (prim == nullptr || prim->value()) continue;
      Span span = SpanOf(p.begin, p.end);
      auto tir_var = ir::Make<ir::TirVarNode>(std::string(p.name), prim->dtype(), false, span);
      params[i] = ir::MakeVar(std::string(p.name),
                              ir::Make<ir::PrimSInfoNode>(prim->dtype(), tir_var, sinfo->span()),
                              false, span);
      define(params[i]);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (params[i]) continue;
    const PyParam& p = def->params[i];
    ir::StructInfo sinfo = EvalSInfo(p.annotation, true);
    params[i] = ir::MakeVar(std::string(p.name), sinfo, false, SpanOf(p.begin, p.end));
  }
  // The others are defined after all annotations: a parameter's name does not shadow a
  // symbolic var of the same name inside the signature.
  for (const ir::Var& var : params) {
    if (!symbols_.InInnermostFrame(var->name_hint())) define(var);
  }
  return params;
}

ir::StructInfo Lowerer::LowerReturnAnnotation(const PyStmt* def) {
  if (def->returns == nullptr) return nullptr;
  return EvalSInfo(def->returns, true);
}

ir::StructInfo Lowerer::DeclaredSignature(const PyStmt* def, FunctionState* parent,
                                          const ir::StructInfo& unannotated) {
  DecoratorInfo deco = LowerFunctionDecorators(def);
  FunctionState scratch;
  scratch.parent = parent;
  FunctionState* saved = fn_;
  fn_ = &scratch;
  symbols_.PushFrame();
  DefineTypeParams(def);
  CollectPreludeDecls(def, &scratch);
  std::vector<ir::Var> params = LowerParams(def);
  ir::StructInfo ret = LowerReturnAnnotation(def);
  symbols_.PopFrame();
  fn_ = saved;
  return ir::FunctionSInfo(params, ret ? ret : unannotated, deco.pure);
}

ir::Function Lowerer::LowerFunction(const PyStmt* def, bool nested) {
  DecoratorInfo deco = LowerFunctionDecorators(def);
  FunctionState state;
  state.parent = fn_;
  state.name = std::string(def->name);
  FunctionState* saved_fn = fn_;
  fn_ = &state;
  symbols_.PushFrame();
  DefineTypeParams(def);
  CollectPreludeDecls(def, &state);
  std::vector<ir::Var> params = LowerParams(def);
  ir::StructInfo ret_annotation = LowerReturnAnnotation(def);
  state.bb.BeginScope(params);
  state.seq_blocks.emplace_back();
  state.bb.BeginBindingBlock(SpanOf(def->begin, def->end));
  ir::Expr ret;
  LowerBody(def->body, /*top_level=*/true, &ret);
  if (!ret) {
    Error(SpanOf(def->name_begin, def->name_begin + static_cast<uint32_t>(def->name.size())),
          "function '" + std::string(def->name) + "' has no return statement");
  }
  ir::Expr body = MakeSeqExpr(ret, SpanOf(def->begin, def->end));
  state.bb.EndScope();
  // TVM's Function: the body's struct info refines a compatible (or missing) annotation,
  // erasing symbolic vars the parameters do not define.
  std::unordered_set<const ir::TirVarNode*> param_vars;
  for (const ir::Var& p : params) {
    ir::VisitTirVars(p->struct_info(), [&](const ir::TirVar& v) { param_vars.insert(v.get()); });
  }
  const ir::StructInfo& body_sinfo = body->struct_info();
  ir::StructInfo ret_sinfo;
  if (!ret_annotation || ir::IsBaseOf(ret_annotation, body_sinfo)) {
    ret_sinfo = ir::EraseToWellDefined(
        body_sinfo, [&](const ir::TirVarNode& v) { return param_vars.count(&v) != 0; });
  } else {
    ret_sinfo = ret_annotation;  // a contradiction is left to the well-formedness check, as TVM
  }
  ir::AttrMap attrs = std::move(state.attrs);
  if (!nested && !deco.is_private && !ir::FindAttr(attrs, ir::attr::kGlobalSymbol)) {
    attrs.emplace_back(ir::attr::kGlobalSymbol, ir::AttrValue(std::string(def->name)));
  }
  symbols_.PopFrame();
  fn_ = saved_fn;
  return ir::Make<ir::FunctionNode>(std::move(params), body, ret_sinfo, deco.pure, std::move(attrs),
                                    SpanOf(def->begin, def->end));
}

// ---- Bodies ----

void Lowerer::LowerBody(const std::vector<PyStmt*>& body, bool top_level, ir::Expr* ret) {
  for (const PyStmt* stmt : body) {
    if (ret != nullptr && *ret) {
      Error(SpanOf(stmt->begin, stmt->end), "statements after return are not allowed");
    }
    LowerStatement(stmt, top_level, ret);
  }
}

void Lowerer::LowerStatement(const PyStmt* stmt, bool top_level, ir::Expr* ret) {
  Span span = SpanOf(stmt->begin, stmt->end);
  switch (stmt->kind) {
    case PyStmtKind::kExpr:
      LowerExprStatement(stmt);
      return;
    case PyStmtKind::kAssign:
    case PyStmtKind::kAnnAssign:
      LowerAssign(stmt);
      return;
    case PyStmtKind::kAugAssign:
      Error(span, "augmented assignments are not supported");
    case PyStmtKind::kReturn:
      if (fn_->in_dataflow) Error(span, "return is not allowed inside a dataflow block");
      if (!top_level || ret == nullptr) {
        Error(span, "return is only allowed at the end of a function body");
      }
      *ret = LowerReturnValue(stmt);
      return;
    case PyStmtKind::kPass:
      return;
    case PyStmtKind::kIf:
      LowerIf(stmt);
      return;
    case PyStmtKind::kWith:
      LowerWith(stmt);
      return;
    case PyStmtKind::kFunctionDef:
      LowerNestedFunction(stmt);
      return;
    case PyStmtKind::kOpaqueDef:
      Error(span, "@T.prim_func and @I.pyfunc functions are only allowed at module level");
    case PyStmtKind::kClassDef:
      Error(span, "classes are only allowed at module level");
    case PyStmtKind::kImport:
      Error(span, "imports are not allowed inside a function");
    case PyStmtKind::kFor:
    case PyStmtKind::kWhile:
    case PyStmtKind::kAssert:
    case PyStmtKind::kUnsupported:
      break;
  }
  Error(span, "unsupported statement");
}

void Lowerer::LowerExprStatement(const PyStmt* stmt) {
  const PyExpr* e = stmt->value;
  if (e->kind == PyExprKind::kString || e->kind == PyExprKind::kEllipsis) return;  // docstring
  bool shadowed_r = symbols_.Lookup("R") != nullptr;
  if (!shadowed_r && IsRelaxCall(e, "output")) {
    if (!fn_->in_dataflow) Error(e, "R.output is only allowed inside a dataflow block");
    LowerOutput(e);
    return;
  }
  if (!shadowed_r && IsRelaxCall(e, "func_attr")) {
    LowerFuncAttr(e);
    return;
  }
  if (fn_->dataflow_output_seen) {
    Error(SpanOf(stmt->begin, stmt->end),
          "R.output must be the last statement of a dataflow block");
  }
  Value v = Eval(e);
  if (v.kind == Value::Kind::kNone) return;
  if (v.kind != Value::Kind::kExpr) {
    Error(e, std::string("an expression statement must be a relax call, not ") +
                 ValueKindName(v.kind));
  }
  ir::Expr expr = v.expr;
  if (const auto* call = ir::As<ir::CallNode>(expr)) {
    const ir::OpNode* op = call->op_node();
    if (!call->struct_info() && op != nullptr && (op->info() == nullptr || !op->info()->infer)) {
      // An op the table cannot type, used as a statement: its result is nothing.
      ir::SetStructInfoOnce(*call, ir::VoidSInfo());
    }
  }
  expr = NormalizeValue(expr);
  const auto* tuple = ir::As<ir::TupleSInfoNode>(expr->struct_info());
  if (tuple == nullptr || !tuple->fields().empty()) {
    Error(e, "a non-void expression of struct info " + RenderStructInfo(expr->struct_info()) +
                 " must be bound to a variable");
  }
  EmitVar("_", SpanOf(e), expr, expr->struct_info(), nullptr, SpanOf(stmt->begin, stmt->end));
}

void Lowerer::LowerFuncAttr(const PyExpr* call) {
  if (fn_->has_attrs) Error(call, "R.func_attr may appear only once per function");
  if (call->items.size() != 2 || !call->keywords.empty()) {
    Error(call, "R.func_attr expects one dictionary argument");
  }
  Value v = Eval(call->items[1]);
  if (v.kind != Value::Kind::kDict) {
    Error(call->items[1],
          std::string("R.func_attr expects a dictionary, not ") + ValueKindName(v.kind));
  }
  ir::AttrValue attrs = ToAttr(v, call->items[1]);
  fn_->attrs = *attrs.as_map();
  fn_->has_attrs = true;
}

void Lowerer::LowerNestedFunction(const PyStmt* def) {
  Span name_span =
      SpanOf(def->name_begin, def->name_begin + static_cast<uint32_t>(def->name.size()));
  ir::Var reserved;
  if (symbols_.Lookup(def->name) == nullptr && StmtsCallName(def->body, def->name)) {
    // A recursive local function: a var typed by its signature is visible in its own body.
    reserved = ir::MakeVar(std::string(def->name), DeclaredSignature(def, fn_, ir::VoidSInfo()),
                           false, name_span);
    Value v;
    v.kind = Value::Kind::kExpr;
    v.expr = reserved;
    symbols_.Define(def->name, v);
  }
  ir::Function func = LowerFunction(def, /*nested=*/true);
  if (reserved) {
    fn_->bb.EmitNormalized(
        ir::Make<ir::VarBindingNode>(reserved, func, SpanOf(def->begin, def->end)));
    return;
  }
  EmitVar(def->name, name_span, func, func->struct_info(), nullptr, SpanOf(def->begin, def->end));
}

ir::Expr Lowerer::LowerReturnValue(const PyStmt* stmt) {
  if (stmt->value == nullptr) Error(SpanOf(stmt->begin, stmt->end), "return needs a value");
  Value v = Eval(stmt->value);
  ir::Expr value = NormalizeValue(ToExpr(v, stmt->value));
  if (!IsLeafOrTuple(value)) value = EmitFresh(value);
  FinishBlock();
  return value;
}

}  // namespace pipesplit::script
