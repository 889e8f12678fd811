// Lowering: blocks — dataflow blocks (`with R.dataflow():`, R.output and which bindings are
// dataflow vars), if/else with TVM's branch-result rules, and the assembly of binding blocks
// into SeqExprs with TVM's block normalization.
#include "pipesplit/support/diagnostic.h"
#include "src/script/relax/parser_lower.h"

namespace pipesplit::script {
namespace {

void CollectTargetNames(const PyExpr* target, std::vector<std::string_view>* out) {
  if (target->kind == PyExprKind::kName) {
    out->push_back(target->text);
  } else if (target->kind == PyExprKind::kTuple || target->kind == PyExprKind::kList) {
    for (const PyExpr* t : target->items) CollectTargetNames(t, out);
  }
}
}  // namespace

void Lowerer::LowerOutput(const PyExpr* call) {
  if (fn_->dataflow_output_seen) Error(call, "R.output may appear only once in a dataflow block");
  if (!call->keywords.empty()) Error(call, "R.output takes no keyword arguments");
  for (size_t i = 1; i < call->items.size(); ++i) {
    const PyExpr* arg = call->items[i];
    if (arg->kind != PyExprKind::kName) Error(arg, "R.output arguments must be variable names");
    const Value* v = symbols_.Lookup(arg->text);
    const auto* var =
        v != nullptr && v->kind == Value::Kind::kExpr ? ir::As<ir::VarNode>(v->expr) : nullptr;
    if (var == nullptr || !fn_->dataflow_emitted.count(var)) {
      Error(arg, "'" + std::string(arg->text) + "' is not bound in this dataflow block");
    }
  }
  fn_->dataflow_output_seen = true;
}

void Lowerer::LowerWith(const PyStmt* stmt) {
  Span span = SpanOf(stmt->begin, stmt->end);
  if (!IsRelaxCall(stmt->value, "dataflow") || symbols_.Lookup("R") != nullptr) {
    Error(stmt->value, "only 'with R.dataflow():' is supported");
  }
  if (stmt->value->items.size() != 1 || !stmt->value->keywords.empty()) {
    Error(stmt->value, "R.dataflow() takes no arguments");
  }
  if (stmt->target != nullptr) Error(stmt->target, "R.dataflow() does not bind a variable");
  if (fn_->in_dataflow) Error(span, "dataflow blocks cannot be nested");
  // Which names R.output makes visible after the block: the last binding of each (the names
  // listed in the first R.output, then the statement binding each last).
  fn_->dataflow_outputs.clear();
  fn_->dataflow_last_binding.clear();
  fn_->dataflow_output_vars.clear();
  fn_->dataflow_emitted.clear();
  for (const PyStmt* s : stmt->body) {
    if (s->kind == PyStmtKind::kExpr && IsRelaxCall(s->value, "output")) {
      for (size_t k = 1; k < s->value->items.size(); ++k) {
        const PyExpr* arg = s->value->items[k];
        if (arg->kind == PyExprKind::kName) fn_->dataflow_outputs.insert(std::string(arg->text));
      }
      break;
    }
  }
  std::vector<std::string_view> names;
  for (size_t i = 0; i < stmt->body.size() && !fn_->dataflow_outputs.empty(); ++i) {
    const PyStmt* s = stmt->body[i];
    names.clear();
    if (s->kind == PyStmtKind::kAssign || s->kind == PyStmtKind::kAnnAssign) {
      CollectTargetNames(s->target, &names);
    } else if (s->kind == PyStmtKind::kFunctionDef) {
      names.push_back(s->name);
    }
    for (std::string_view n : names) {
      auto it = fn_->dataflow_outputs.find(n);
      if (it != fn_->dataflow_outputs.end()) fn_->dataflow_last_binding[*it] = i;
    }
  }
  FinishBlock();
  fn_->bb.BeginDataflowBlock(span);
  fn_->in_dataflow = true;
  fn_->dataflow_output_seen = false;
  symbols_.PushFrame();
  symbols_.Reserve(stmt->body.size());  // about one name per statement
  fn_->dataflow_emitted.reserve(stmt->body.size());
  for (size_t i = 0; i < stmt->body.size(); ++i) {
    const PyStmt* s = stmt->body[i];
    fn_->dataflow_stmt_index = i;
    bool is_docstring = s->kind == PyStmtKind::kPass ||
                        (s->kind == PyStmtKind::kExpr && s->value->kind == PyExprKind::kString);
    if (fn_->dataflow_output_seen && !is_docstring) {
      Error(SpanOf(s->begin, s->end), "R.output must be the last statement of a dataflow block");
    }
    LowerStatement(s, false, nullptr);
  }
  symbols_.PopFrame();
  FinishBlock();
  fn_->bb.BeginBindingBlock();  // spans the bindings that follow the dataflow block
  fn_->in_dataflow = false;
  fn_->dataflow_output_seen = false;
  for (const auto& [name, var] : fn_->dataflow_output_vars) {
    Value v;
    v.kind = Value::Kind::kExpr;
    v.expr = var;
    symbols_.Define(name, v);
  }
  fn_->dataflow_output_vars.clear();
  fn_->dataflow_emitted.clear();
}

void Lowerer::LowerIf(const PyStmt* stmt) {
  Span span = SpanOf(stmt->begin, stmt->end);
  if (fn_->in_dataflow) Error(span, "if statements are not allowed inside a dataflow block");
  if (!stmt->has_else) Error(span, "an if statement needs an else branch");
  Value cond_value = Eval(stmt->value);
  ir::Expr cond = ToArg(cond_value, stmt->value);
  std::string names[2];
  Span name_span;
  ir::Expr branches[2];
  for (int b = 0; b < 2; ++b) {
    const std::vector<PyStmt*>& body = b == 0 ? stmt->body : stmt->orelse;
    ++fn_->if_depth;
    symbols_.PushFrame();
    fn_->bb.BeginScope();
    fn_->seq_blocks.emplace_back();
    fn_->bb.BeginBindingBlock(body.empty() ? span : SpanOf(body.front()->begin, body.back()->end));
    LowerBody(body, false, nullptr);
    FinishBlock();
    std::vector<ir::BindingBlock>& blocks = fn_->seq_blocks.back();
    const char* which = b == 0 ? "if" : "else";
    if (blocks.empty()) {
      Error(span, std::string("the ") + which + " branch must end with a binding");
    }
    ir::BindingBlock last_block = blocks.back();
    ir::Binding last = last_block->bindings().back();
    const ir::Var& last_var = last->var();
    if (last_var->is_dataflow()) {
      Error(last_var->span(), std::string("the last binding of the ") + which +
                                  " branch must not be a dataflow variable");
    }
    names[b] = last_var->name_hint();
    if (b == 0) name_span = last_var->span();
    // TVM: the branch's value is its last binding's value when that is a leaf or a tuple;
    // otherwise it is rebound to `<name>_then` / `<name>_else`.
    std::vector<ir::Binding> bindings(last_block->bindings().begin(),
                                      last_block->bindings().end() - 1);
    ir::Expr result;
    const ir::Expr& value = last->value();
    if (last->kind() == ir::NodeKind::kVarBinding && IsLeafOrTuple(value)) {
      result = value;
    } else {
      ir::Var renamed = ir::MakeVar(names[b] + (b == 0 ? "_then" : "_else"),
                                    last_var->struct_info(), false, last_var->span());
      if (const auto* mc = ir::As<ir::MatchCastNode>(last)) {
        bindings.push_back(
            ir::Make<ir::MatchCastNode>(renamed, value, mc->struct_info(), last->span()));
      } else {
        bindings.push_back(ir::Make<ir::VarBindingNode>(renamed, value, last->span()));
      }
      result = renamed;
      // A call that returns nothing (R.print) leaves the branch with the empty tuple as value,
      // as TVM stores it, not the var bound to the call.
      const auto* tuple = ir::As<ir::TupleSInfoNode>(last_var->struct_info());
      if (tuple != nullptr && tuple->fields().empty()) {
        result = ir::Make<ir::TupleNode>(std::vector<ir::Expr>{}, nullptr, last->span());
      }
    }
    blocks.back() = ir::Make<ir::BindingBlockNode>(std::move(bindings), last_block->is_dataflow(),
                                                   last_block->span());
    branches[b] =
        MakeSeqExpr(result, body.empty() ? span : SpanOf(body.front()->begin, body.back()->end));
    fn_->seq_blocks.pop_back();
    fn_->bb.EndScope();
    symbols_.PopFrame();
    --fn_->if_depth;
  }
  if (names[0] != names[1]) {
    Error(span, "the last bindings of the two branches must bind the same variable, not '" +
                    names[0] + "' and '" + names[1] + "'");
  }
  ir::Expr if_node =
      fn_->bb.Normalize(ir::Make<ir::IfNode>(cond, branches[0], branches[1], nullptr, span));
  EmitVar(names[0], name_span, if_node, if_node->struct_info(), nullptr, span);
}

void Lowerer::FinishBlock() {
  ir::BindingBlock block = fn_->bb.EndBlock();
  if (!block->bindings().empty()) fn_->seq_blocks.back().push_back(block);
}

ir::Expr Lowerer::MakeSeqExpr(const ir::Expr& body, Span span) {
  std::vector<ir::BindingBlock> merged;
  for (const ir::BindingBlock& block : fn_->seq_blocks.back()) {
    if (block->bindings().empty()) continue;
    if (!merged.empty() && merged.back()->is_dataflow() == block->is_dataflow()) {
      std::vector<ir::Binding> bindings = merged.back()->bindings();
      bindings.insert(bindings.end(), block->bindings().begin(), block->bindings().end());
      merged.back() =
          ir::Make<ir::BindingBlockNode>(std::move(bindings), block->is_dataflow(),
                                         Span::Merge(merged.back()->span(), block->span()));
      continue;
    }
    merged.push_back(block);
  }
  return fn_->bb.Normalize(ir::Make<ir::SeqExprNode>(std::move(merged), body, nullptr, span));
}

}  // namespace pipesplit::script
