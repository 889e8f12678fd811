// Well-formedness of Relax modules and their prim functions (after TVM's relax::WellFormed and
// tir::VerifyWellFormed, checked in one linear walk that collects every violation instead of
// stopping at the first).
//
// Invariants, numbered as in the diagnostics' documentation:
//  1. Every Var is defined before it is used and is in scope where it is used: function params
//     are visible in the function (and functions nested in it), a binding's var after the
//     binding. Vars bound inside an if branch or a nested function do not leak out of it. A
//     function bound to a var may call itself through that var.
//  2. A Var node is defined at most once in the whole module (as a param or a binding var), so
//     no Var is a parameter of two functions.
//  3. DataflowVars are defined only inside dataflow blocks and used only inside the dataflow
//     block that defines them (not in later blocks, not in the SeqExpr result, not in nested
//     functions). Non-dataflow vars bound inside a dataflow block are its outputs and stay
//     visible after it.
//  4. Symbolic vars (TirVars) are defined before use: a symbolic var is defined where it appears
//     bare in a defining position (a param's struct info, a match_cast target, the params of a
//     callable struct info) and is visible in that function only (TVM: symbolic vars are not
//     captured across function boundaries; a branch's match_cast definitions do not leak out of
//     the branch). The same TirVar node may not appear in two top-level functions.
//  5. GlobalVars resolve: each names a member of the module and is that member's own GlobalVar
//     node; a function's "global_symbol" attribute equals its member name; the callee of
//     R.call_tir / R.call_tir_inplace / R.call_tir_with_grad is a prim function member.
//  6. Normal form: a function body and both branches of an if are SeqExprs, and SeqExprs appear
//     nowhere else; the callee and the arguments of a call, tuple fields, the tuple of an item
//     access, an if condition and a SeqExpr result are leaf expressions (vars, constants, shape
//     and prim values, strings, dtypes, ops, global vars, extern funcs) or tuples of them; an if
//     is not bound inside a dataflow block; no prim function appears inside a Relax function.
//  7. Struct info is consistent: a binding var's annotation describes its value's struct info
//     (ir::IsBaseOf), and a call's struct info is not contradicted by re-inferring it from its
//     callee and arguments (inference errors are reported with the inference rule's message).
//  8. Purity: a function marked pure (without a true "relax.force_pure" attribute) contains no
//     impure call outside its nested functions; dataflow blocks contain no impure calls; a
//     function with "relax.force_pure" set is marked pure. A call is impure when its op is
//     registered impure, or its callee's struct info is an impure (or unknown) callable; an
//     extern function (R.call_packed) is impure unless its struct info says otherwise.
//  9. Struct info is present on every expression and var, and every function has a return
//     struct info that does not contradict its body's (as for calls under 7: TVM accepts a
//     return annotation it cannot prove, e.g. R.Tensor((1, 6)) for a body of R.Tensor((1, n + 2)),
//     and one less precise than the body's); shape values are integers.
//
// Prim functions (TIR; each checked on its own, messages end "in prim function 'k'"):
// 10. Every TIR var used is defined and in scope: the function's params, the symbolic vars of
//     buffer shapes (a bare var in a parameter buffer's or a block T.match_buffer's shape,
//     strides or element offset is bound by its first occurrence; composite dims only use
//     vars), a buffer's data pointer (A.data) while the buffer is, loop vars in their loop,
//     block iter vars in their block only, let vars (T.let, T.Let) and T.allocate vars in
//     their body, a T.launch_thread var in its body, a T.comm_reducer's params in its results.
// 11. Every buffer used (loads, stores, T.reads / T.writes regions, T.match_buffer sources) is
//     defined and in scope: a parameter buffer, a T.alloc_buffer or T.match_buffer of an
//     enclosing block, or a T.decl_buffer or an allocation statement (T.alloc_buffer,
//     T.alloc_shared, T.alloc_local, a scalar `x: T.int32`) around the use.
// 12. Block iter vars are bound: a block has as many iter values as iter vars, each value of
//     its iter var's dtype; iter vars are integers.
// 13. Loads and stores index a buffer with as many integer indices as it has dimensions; a
//     stored value has the buffer's dtype.
// 14. Loop starts, loop extents, loop vars and buffer dimensions are integers.
// 15. T.init() appears only in a block with at least one reduction ("R") iter var.
// 16. A block predicate (T.where) is bool.
// 17. R.call_tir / R.call_tir_inplace / R.call_tir_with_grad to a prim function pass it as many
//     values as it has parameters: the arguments, then the outputs (but those written in place),
//     then the tir_vars; a tensor's dtype, rank and constant dims agree with the buffer it is
//     passed as where both sides know them (constant dims only with
//     WellFormedOptions::call_tir_static_dims) (reported at the call, naming the kernel, the
//     position and both types); a tensor is not passed for a scalar parameter nor a tir_vars
//     entry for a buffer.
// 18. The statements TVM's 2026 kernels and schedules add: while and assert conditions are bool
//     and an assert names an error kind; a thread extent is an integer of its thread var's
//     dtype; a T.comm_reducer has one param per side, one result and one identity element per
//     reduced value; an attribute has a key; a T.Let binds a value of its var's dtype; buffer
//     strides and element offsets are integers and offset factors positive.
//
// Not checked (as MLIR's verifier leaves some properties to other passes):
//  - in TIR: that a var or buffer is defined only once, that reduction iter vars are not bound
//    to thread_binding loops, the dtypes of if / let / select operands, T.reads / T.writes
//    covering the accesses, that buffer strides and offsets describe memory inside the
//    buffer's allocation, and the scalar parameters' dtypes against call_tir's tir_vars;
//  - in TIR's GPU constructs: the arguments of the builtins (T.tvm_storage_sync,
//    T.tvm_access_ptr, T.tvm_thread_allreduce, T.tvm_thread_invariant, the wmma intrinsics
//    T.tvm_load_matrix_sync / T.tvm_mma_sync / T.tvm_fill_fragment / T.tvm_store_matrix_sync
//    are checked for arity by the parser only, not for types, buffers or layouts); storage
//    scopes (that shared, local or wmma.* buffers are used where such memory exists); thread
//    launches (one extent per thread axis in a kernel, launches nested as a GPU runs them, a
//    T.tvm_thread_allreduce under a matching reduce_scope attribute); that a T.comm_reducer is
//    commutative and its identity neutral; the contents of T.target and other attributes;
//  - op-specific argument validation beyond what the op's inference rule rejects; calls of ops
//    the table does not know (opaque ops) are neither re-inferred nor considered impure;
//  - contradictions between a call's struct info and re-inferred info that would need symbolic
//    reasoning (only provable disagreements - kinds, dtypes, ranks, constant dims - count);
//  - that an if condition is a boolean scalar, that match_cast can succeed, virtual devices,
//    module attributes and global infos, termination and recursion structure.
#include "pipesplit/analysis/well_formed.h"

#include "pipesplit/ir/attr_names.h"
#include "pipesplit/ir/struct_info.h"
#include "pipesplit/script/printer.h"
#include "src/analysis/well_formed_checker.h"

namespace pipesplit::analysis {

using namespace ir;  // NOLINT: IR node names throughout

namespace {

bool IsForcePure(const FunctionNode& func) {
  const AttrValue* v = func.GetAttr(ir::attr::kForcePure);
  if (v == nullptr) return false;
  if (const bool* b = v->as_bool()) return *b;
  std::optional<int64_t> i = v->ToInt();
  return i && *i != 0;
}

}  // namespace

Diagnostic& WellFormedChecker::Error(Span span, std::string message) {
  diagnostics_.push_back({Severity::kError, span, std::move(message), {}});
  return diagnostics_.back();
}

std::vector<Diagnostic> WellFormedChecker::Run() {
  for (const IRModule::Member& member : mod_.members()) {
    const std::string& name = member.gvar->name_hint();
    if (const auto* prim = As<PrimFuncNode>(member.func)) CheckPrimFunc(*prim, name, &diagnostics_);
    const auto* func = As<FunctionNode>(member.func);
    if (func == nullptr) continue;
    if (const AttrValue* symbol = func->GetAttr(ir::attr::kGlobalSymbol)) {
      const std::string* text = symbol->as_string();
      if (text == nullptr || *text != name) {
        Error(func->span(), "the global_symbol " + script::PrintShort(*symbol) + " of " +
                                FunctionName(name) + " does not match its name");
      }
    }
    CheckFunction(*func, name, Span{});
  }
  ResolvePendingUses();
  return std::move(diagnostics_);
}

void WellFormedChecker::CheckFunction(const FunctionNode& func, const std::string& name,
                                      Span context) {
  Span span = Pick(func.span(), context);
  if (++depth_ > kMaxCheckDepth) {
    if (!reported_depth_) Error(span, "functions are nested too deeply to check");
    reported_depth_ = true;
    --depth_;
    return;
  }
  bool top = functions_.empty();
  if (top) {
    top_function_ = &func;
    top_name_ = name;
    reported_tir_vars_.clear();
  }
  bool force_pure = IsForcePure(func);
  if (force_pure && !func.is_pure()) {
    Error(span, FunctionName(name) + " sets relax.force_pure but is not pure");
  }
  functions_.push_back({&func, name, func.is_pure() && !force_pure, ++next_tir_frame_});
  bool saved_dataflow = in_dataflow_;
  in_dataflow_ = false;
  size_t mark = ScopeMark();
  size_t tir_mark = TirMark();

  for (const Var& param : func.params()) {
    if (param && param->struct_info()) {
      DefineTirVars(param->struct_info(), Pick(param->span(), span));
    }
  }
  for (const Var& param : func.params()) DefineVar(param, span);
  if (func.ret_struct_info() == nullptr) {
    Error(span, FunctionName(name) + " has no return struct info");
  } else {
    CheckTirVars(func.ret_struct_info(), span);
  }
  CheckSeqExpr(func.body(), "a function body", span);
  const Expr& body = func.body();
  if (func.ret_struct_info() && body && body->struct_info() &&
      ProvablyIncompatible(func.ret_struct_info(), body->struct_info())) {
    Error(span, "the return struct info " + script::PrintShort(func.ret_struct_info()) + " of " +
                    FunctionName(name) + " contradicts its body's " +
                    script::PrintShort(body->struct_info()));
  }

  PopScope(mark);
  PopTirScope(tir_mark);
  in_dataflow_ = saved_dataflow;
  functions_.pop_back();
  --depth_;
}

void WellFormedChecker::CheckSeqExpr(const Expr& expr, const char* what, Span context) {
  if (expr == nullptr) {
    Error(context, std::string(what) + " is missing");
    return;
  }
  const auto* seq = As<SeqExprNode>(expr);
  if (seq == nullptr) {
    Error(Pick(expr->span(), context),
          std::string(what) + " must be a SeqExpr, not " + KindPhrase(expr));
    CheckExpr(expr, context);
    return;
  }
  Span span = Pick(seq->span(), context);
  for (const BindingBlock& block : seq->blocks()) CheckBlock(block, span);
  CheckLeaf(seq->body(), "the result of a SeqExpr", span);
  if (HasStructInfo(expr, span)) CheckTirVars(expr->struct_info(), span);
}

void WellFormedChecker::CheckBlock(const BindingBlock& block, Span context) {
  if (block == nullptr) {
    Error(context, "a binding block is missing");
    return;
  }
  bool saved = in_dataflow_;
  in_dataflow_ = block->is_dataflow();
  size_t dataflow_mark = dataflow_vars_.size();
  for (const Binding& binding : block->bindings())
    CheckBinding(binding, Pick(block->span(), context));
  while (dataflow_vars_.size() > dataflow_mark) {
    vars_[dataflow_vars_.back()].in_scope = false;
    dataflow_vars_.pop_back();
  }
  in_dataflow_ = saved;
}

void WellFormedChecker::CheckBinding(const Binding& binding, Span context) {
  if (binding == nullptr) {
    Error(context, "a binding is missing");
    return;
  }
  Span span = Pick(binding->span(), context);
  const Var& var = binding->var();
  const Expr& value = binding->value();
  bool is_function = value && value->kind() == NodeKind::kFunction;
  if (is_function && var) recursive_vars_.insert(var.get());

  if (value == nullptr) {
    Error(span, "a binding has no value");
  } else if (value->kind() == NodeKind::kFunction) {
    CheckFunction(static_cast<const FunctionNode&>(*value), var ? var->name_hint() : "", span);
  } else if (value->kind() == NodeKind::kIf && in_dataflow_) {
    Error(Pick(value->span(), span), "an if expression is not allowed inside a dataflow block");
    CheckExpr(value, span);
  } else {
    CheckExpr(value, span);
  }
  if (const auto* match_cast = As<MatchCastNode>(binding)) {
    if (match_cast->struct_info() == nullptr) {
      Error(span, "R.match_cast has no target struct info");
    } else {
      DefineTirVars(match_cast->struct_info(), span);
      CheckTirVars(match_cast->struct_info(), span);
    }
  }
  if (is_function && var) recursive_vars_.erase(var.get());
  DefineVar(var, span);

  if (binding->kind() == NodeKind::kVarBinding && var && value && var->struct_info() &&
      value->struct_info() && !IsBaseOf(var->struct_info(), value->struct_info())) {
    Error(Pick(var->span(), span), "variable " + Quoted(var->name_hint()) + " is annotated as " +
                                       script::PrintShort(var->struct_info()) +
                                       " but its value has struct info " +
                                       script::PrintShort(value->struct_info()));
  }
}

void WellFormedChecker::DefineVar(const Var& var, Span context) {
  if (var == nullptr) {
    Error(context, "a definition has no variable");
    return;
  }
  Span span = Pick(var->span(), context);
  auto name = [&] { return Quoted(var->name_hint()); };  // built only for messages
  VarInfo& info = vars_[var.get()];
  bool again = info.defined;
  if (again) {
    Error(span, "variable " + name() + " is defined more than once")
        .AddNote(info.def_span, "first definition of " + name());
    if (info.in_scope) return;
  } else {
    info.defined = true;
    info.def_span = span;
    info.def_seq = seq_++;
  }
  info.in_scope = true;  // a repeated definition is still visible here: no cascade of errors
  if (var->is_dataflow() && !in_dataflow_) {
    Error(span, "dataflow variable " + name() + " is defined outside a dataflow block");
    reported_vars_.insert(var.get());
    scope_vars_.push_back(var.get());
  } else if (var->is_dataflow()) {
    dataflow_vars_.push_back(var.get());
  } else {
    scope_vars_.push_back(var.get());
  }
  if (again) return;
  if (var->struct_info() == nullptr) {
    Error(span, "variable " + name() + " has no struct info");
  } else {
    CheckTirVars(var->struct_info(), span);
  }
}

void WellFormedChecker::UseVar(const VarNode& var, Span context) {
  ++seq_;
  auto it = vars_.find(&var);
  bool visible = (it != vars_.end() && it->second.in_scope) || recursive_vars_.count(&var) != 0;
  if (visible) {
    if (var.is_dataflow() && !in_dataflow_ && reported_vars_.insert(&var).second) {
      Error(context,
            "dataflow variable " + Quoted(var.name_hint()) + " is used outside a dataflow block")
          .AddNote(it->second.def_span, Quoted(var.name_hint()) + " is defined here");
    }
    return;
  }
  if (!reported_vars_.insert(&var).second) return;
  Error(context, "");  // message settled by ResolvePendingUses
  pending_uses_.push_back({diagnostics_.size() - 1, &var, seq_});
}

void WellFormedChecker::ResolvePendingUses() {
  for (const PendingUse& use : pending_uses_) {
    Diagnostic& diagnostic = diagnostics_[use.diagnostic];
    std::string name = Quoted(use.var->name_hint());
    auto it = vars_.find(use.var);
    if (it == vars_.end() || !it->second.defined) {
      diagnostic.message = "variable " + name + " is not defined";
      continue;
    }
    if (it->second.def_seq > use.use_seq) {
      diagnostic.message = "variable " + name + " is used before its definition";
    } else if (use.var->is_dataflow()) {
      diagnostic.message =
          "dataflow variable " + name + " is used outside the dataflow block that defines it";
    } else {
      diagnostic.message = "variable " + name + " is used outside the scope that defines it";
    }
    diagnostic.AddNote(it->second.def_span, name + " is defined here");
  }
}

void WellFormedChecker::PopScope(size_t mark) {
  while (scope_vars_.size() > mark) {
    vars_[scope_vars_.back()].in_scope = false;
    scope_vars_.pop_back();
  }
}

std::vector<Diagnostic> CheckWellFormed(const IRModule& mod, const WellFormedOptions& options) {
  return WellFormedChecker(mod, options).Run();
}

void VerifyWellFormed(const IRModule& mod) {
  std::vector<Diagnostic> diagnostics = CheckWellFormed(mod);
  if (!diagnostics.empty()) throw DiagnosticError(std::move(diagnostics));
}

}  // namespace pipesplit::analysis
