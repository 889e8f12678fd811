// The well-formedness checker's expression walk: normal form, global vars, symbolic vars, call
// struct info and purity (invariants 4 to 9 of well_formed.cc).
#include "pipesplit/ir/op.h"
#include "pipesplit/ir/struct_info.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/check.h"
#include "src/analysis/well_formed_checker.h"

namespace pipesplit::analysis {

using namespace ir;  // NOLINT: IR node names throughout

namespace {

bool IsLeafOrTuple(const Expr& e) { return IsLeafExpr(e) || e->kind() == NodeKind::kTuple; }

bool IsCallTir(const CallNode& call) {
  return call.IsOp("relax.call_tir") || call.IsOp("relax.call_tir_inplace") ||
         call.IsOp("relax.call_tir_with_grad");
}

std::optional<int64_t> ConstDim(const PrimExpr& e) { return e ? AsConstInt(e) : std::nullopt; }

// True when the dims provably differ somewhere (both known constants and unequal).
bool DimsDisagree(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  if (a.size() != b.size()) return true;
  for (size_t i = 0; i < a.size(); ++i) {
    auto x = ConstDim(a[i]), y = ConstDim(b[i]);
    if (x && y && *x != *y) return true;
  }
  return false;
}

bool IsImpureCall(const CallNode& call) {
  if (const OpNode* op = call.op_node()) return op->info() != nullptr && !op->info()->is_pure;
  const auto* callable = As<FuncSInfoNode>(call.op()->struct_info());
  return callable == nullptr || !callable->is_pure();
}

}  // namespace

bool ProvablyIncompatible(const StructInfo& annotated, const StructInfo& inferred, int depth) {
  if (depth > kMaxCheckDepth) return false;
  if (annotated->kind() == NodeKind::kObjectSInfo || inferred->kind() == NodeKind::kObjectSInfo) {
    return false;
  }
  if (annotated->kind() != inferred->kind()) return true;
  switch (annotated->kind()) {
    case NodeKind::kPrimSInfo: {
      const auto& a = static_cast<const PrimSInfoNode&>(*annotated);
      const auto& b = static_cast<const PrimSInfoNode&>(*inferred);
      if (!a.dtype().is_void() && !b.dtype().is_void() && a.dtype() != b.dtype()) return true;
      auto x = ConstDim(a.value()), y = ConstDim(b.value());
      return x && y && *x != *y;
    }
    case NodeKind::kShapeSInfo: {
      const auto& a = static_cast<const ShapeSInfoNode&>(*annotated);
      const auto& b = static_cast<const ShapeSInfoNode&>(*inferred);
      if (a.ndim() >= 0 && b.ndim() >= 0 && a.ndim() != b.ndim()) return true;
      return a.values() && b.values() && DimsDisagree(*a.values(), *b.values());
    }
    case NodeKind::kTensorSInfo: {
      const auto& a = static_cast<const TensorSInfoNode&>(*annotated);
      const auto& b = static_cast<const TensorSInfoNode&>(*inferred);
      if (!a.dtype().is_void() && !b.dtype().is_void() && a.dtype() != b.dtype()) return true;
      if (a.ndim() >= 0 && b.ndim() >= 0 && a.ndim() != b.ndim()) return true;
      if (!a.vdevice().empty() && !b.vdevice().empty() && a.vdevice() != b.vdevice()) return true;
      return a.shape() && b.shape() && DimsDisagree(*a.shape(), *b.shape());
    }
    case NodeKind::kTupleSInfo: {
      const auto& a = static_cast<const TupleSInfoNode&>(*annotated);
      const auto& b = static_cast<const TupleSInfoNode&>(*inferred);
      if (a.fields().size() != b.fields().size()) return true;
      for (size_t i = 0; i < a.fields().size(); ++i) {
        if (a.fields()[i] && b.fields()[i] &&
            ProvablyIncompatible(a.fields()[i], b.fields()[i], depth + 1)) {
          return true;
        }
      }
      return false;
    }
    case NodeKind::kFuncSInfo: {
      const auto& a = static_cast<const FuncSInfoNode&>(*annotated);
      const auto& b = static_cast<const FuncSInfoNode&>(*inferred);
      if (a.is_pure() && !b.is_pure()) return true;
      return a.ret() && b.ret() && ProvablyIncompatible(a.ret(), b.ret(), depth + 1);
    }
    case NodeKind::kObjectSInfo:
    PIPESPLIT_KINDS_OUTSIDE_STRUCT_INFO:
      return false;
  }
  PS_UNREACHABLE();
}

std::string FunctionName(const std::string& name) {
  return name.empty() ? "an anonymous function" : "function " + Quoted(name);
}

std::string KindPhrase(const Expr& expr) {
  switch (expr->kind()) {
    case NodeKind::kCall:
      return "a call";
    case NodeKind::kIf:
      return "an if expression";
    case NodeKind::kSeqExpr:
      return "a SeqExpr";
    case NodeKind::kFunction:
      return "a function";
    case NodeKind::kPrimFunc:
      return "a prim function";
    case NodeKind::kTupleGetItem:
      return "a tuple item access";
    case NodeKind::kTuple:
      return "a tuple";
    PIPESPLIT_LEAF_EXPR_KINDS:
    PIPESPLIT_KINDS_OUTSIDE_EXPR:
      return "a leaf expression";
  }
  PS_UNREACHABLE();
}

bool WellFormedChecker::HasStructInfo(const Expr& expr, Span span) {
  if (expr->struct_info() != nullptr) return true;
  Error(span, "expression " + script::PrintShort(expr) + " has no struct info");
  return false;
}

void WellFormedChecker::CheckLeaf(const Expr& expr, const char* place, Span context) {
  if (expr == nullptr) {
    Error(context, std::string(place) + " is missing");
    return;
  }
  if (!IsLeafOrTuple(expr)) {
    Error(Pick(expr->span(), context),
          std::string(place) + " must be a leaf expression or a tuple, not " + KindPhrase(expr));
  }
  CheckExpr(expr, context);
}

void WellFormedChecker::CheckExpr(const Expr& expr, Span context) {
  PS_CHECK(expr != nullptr) << "callers report missing expressions";
  if (depth_ + 1 > kMaxCheckDepth) {
    if (!reported_depth_) Error(context, "expressions are nested too deeply to check");
    reported_depth_ = true;
    return;
  }
  ++depth_;
  // Var nodes carry the span of their definition, so their uses are located by the context.
  Span span = Is<VarNode>(expr) ? context : Pick(expr->span(), context);
  switch (expr->kind()) {
    case NodeKind::kVar:
    case NodeKind::kDataflowVar:
      UseVar(static_cast<const VarNode&>(*expr), context);
      break;
    case NodeKind::kGlobalVar:
      CheckGlobalVar(static_cast<const GlobalVarNode&>(*expr), span);
      break;
    case NodeKind::kTuple:
      for (const Expr& field : static_cast<const TupleNode&>(*expr).fields()) {
        CheckLeaf(field, "a tuple field", span);
      }
      if (HasStructInfo(expr, span)) CheckTirVars(expr->struct_info(), span);
      break;
    case NodeKind::kTupleGetItem:
      CheckLeaf(static_cast<const TupleGetItemNode&>(*expr).tuple(), "the tuple of an item access",
                span);
      if (HasStructInfo(expr, span)) CheckTirVars(expr->struct_info(), span);
      break;
    case NodeKind::kShapeExpr:
      for (const PrimExpr& value : static_cast<const ShapeExprNode&>(*expr).values()) {
        CheckTirVars(value, span);
        if (value && !value->dtype().is_int()) {
          Error(span, "shape values must be integers, but " + script::PrintShort(value) + " is " +
                          value->dtype().ToString());
        }
      }
      break;
    case NodeKind::kPrimValue:
      CheckTirVars(static_cast<const PrimValueNode&>(*expr).value(), span);
      break;
    case NodeKind::kCall:
      CheckCall(expr, span);
      break;
    case NodeKind::kIf: {
      const auto& node = static_cast<const IfNode&>(*expr);
      CheckLeaf(node.cond(), "an if condition", span);
      for (const Expr* branch : {&node.true_branch(), &node.false_branch()}) {
        size_t mark = ScopeMark();
        size_t tir_mark = TirMark();
        CheckSeqExpr(*branch, "an if branch", span);
        PopScope(mark);
        PopTirScope(tir_mark);
      }
      if (HasStructInfo(expr, span)) CheckTirVars(expr->struct_info(), span);
      break;
    }
    case NodeKind::kSeqExpr: {
      Error(span, "a SeqExpr is only allowed as a function body or an if branch");
      size_t mark = ScopeMark();
      size_t tir_mark = TirMark();
      CheckSeqExpr(expr, "a SeqExpr", span);
      PopScope(mark);
      PopTirScope(tir_mark);
      break;
    }
    case NodeKind::kFunction:
      CheckFunction(static_cast<const FunctionNode&>(*expr), "", span);
      break;
    case NodeKind::kPrimFunc:
      Error(span, "a prim function cannot appear inside a Relax function");
      break;
    case NodeKind::kConstant:
    case NodeKind::kExternFunc:
      if (HasStructInfo(expr, span)) CheckTirVars(expr->struct_info(), span);
      break;
    case NodeKind::kStringImm:
    case NodeKind::kDataTypeImm:
    case NodeKind::kOp:
      break;
    PIPESPLIT_KINDS_OUTSIDE_EXPR:
      PS_UNREACHABLE();
  }
  --depth_;
}

void WellFormedChecker::CheckGlobalVar(const GlobalVarNode& gvar, Span span) {
  const IRModule::Member* member = mod_.Find(gvar.name_hint());
  if (member == nullptr) {
    Error(span, "cls." + gvar.name_hint() + " is not a function of this module");
  } else if (member->gvar.get() != &gvar) {
    Error(span, "cls." + gvar.name_hint() + " is a different GlobalVar than the module's member " +
                    Quoted(gvar.name_hint()));
  }
}

void WellFormedChecker::CheckCall(const Expr& expr, Span span) {
  const auto& call = static_cast<const CallNode&>(*expr);
  CheckLeaf(call.op(), "the callee", span);
  for (const Expr& arg : call.args()) CheckLeaf(arg, "a call argument", span);
  for (const StructInfo& sinfo : call.sinfo_args()) {
    if (sinfo == nullptr) {
      Error(span, "a call has a missing sinfo_args entry");
    } else {
      CheckTirVars(sinfo, span);
    }
  }
  if (HasStructInfo(expr, span)) CheckTirVars(call.struct_info(), span);
  if (IsCallTir(call)) CheckCallTir(call, span);
  CheckCallStructInfo(call, span);
  CheckPurity(call, span);
}

void WellFormedChecker::CheckCallTir(const CallNode& call, Span span) {
  if (call.args().empty()) return;  // the op's inference rule reports the arity
  const auto* gvar = As<GlobalVarNode>(call.args()[0]);
  if (gvar == nullptr) return;  // the op's inference rule rejects a callee that is no GlobalVar
  const IRModule::Member* member = mod_.Find(gvar->name_hint());
  if (member == nullptr) return;
  if (const auto* prim = As<PrimFuncNode>(member->func)) {
    CheckCallTirSignature(call, *prim, gvar->name_hint(), span, options_.call_tir_static_dims,
                          &diagnostics_);
    return;
  }
  Error(span, script::PrintShortCallee(call.op()) + " expects a prim function, but cls." +
                  gvar->name_hint() + " is " +
                  (member->func->kind() == NodeKind::kFunction ? "a Relax function"
                                                               : "an extern function"));
}

void WellFormedChecker::CheckCallStructInfo(const CallNode& call, Span span) {
  if (call.struct_info() == nullptr || call.op() == nullptr) return;
  for (const Expr& arg : call.args()) {
    if (arg == nullptr || arg->struct_info() == nullptr) return;
  }
  if (const OpNode* op = call.op_node()) {
    if (op->info() == nullptr || !op->info()->infer) return;  // opaque op: annotation wins
  } else if (call.op()->kind() == NodeKind::kExternFunc || call.op()->struct_info() == nullptr) {
    return;
  }
  StructInfo inferred;
  try {
    inferred = builder_.InferCallStructInfo(call);
  } catch (const DiagnosticError& e) {
    PS_CHECK(!e.diagnostics().empty());
    Error(span, e.diagnostics().front().message);
    return;
  }
  if (inferred && ProvablyIncompatible(call.struct_info(), inferred)) {
    Error(span, script::PrintShortCallee(call.op()) + " has struct info " +
                    script::PrintShort(call.struct_info()) + ", but its arguments give " +
                    script::PrintShort(inferred));
  }
}

void WellFormedChecker::CheckPurity(const CallNode& call, Span span) {
  if (call.op() == nullptr || !IsImpureCall(call)) return;
  std::string callee = script::PrintShortCallee(call.op());
  if (in_dataflow_) Error(span, "impure call to " + callee + " inside a dataflow block");
  if (!functions_.empty() && CurrentFunction().must_be_pure) {
    const FunctionFrame& f = CurrentFunction();
    std::string name = FunctionName(f.name);  // "function 'f'"
    Error(span, "pure " + name + " contains an impure call to " + callee)
        .AddNote(f.func->span(), name + " is declared pure here");
  }
}

// ---- Symbolic vars ----

void WellFormedChecker::CheckOwner(const TirVarNode* var, Span context) {
  TirInfo& info = tir_vars_[var];
  if (top_function_ == nullptr || callable_depth_ > 0) return;
  if (info.owner == nullptr) {
    info.owner = top_function_;
    info.owner_name = top_name_;
    info.first_span = context;
  } else if (info.owner != top_function_ && reported_shared_.insert(var).second) {
    Error(context, "symbolic variable " + Quoted(var->name()) + " is used by both function " +
                       Quoted(info.owner_name) + " and function " + Quoted(top_name_))
        .AddNote(info.first_span, Quoted(var->name()) + " first appears here");
  }
}

void WellFormedChecker::DefineTirVar(const TirVarNode* var, Span context) {
  CheckOwner(var, context);
  if (functions_.empty()) return;
  TirInfo& info = tir_vars_[var];
  int frame = CurrentFunction().tir_frame;
  if (info.frame == frame) return;
  tir_scope_.emplace_back(var, info.frame);
  info.frame = frame;
}

void WellFormedChecker::UseTirVar(const TirVarNode* var, Span context) {
  CheckOwner(var, context);
  if (functions_.empty()) return;
  if (tir_vars_[var].frame == CurrentFunction().tir_frame) return;
  if (reported_tir_vars_.insert(var).second) {
    Error(context, "symbolic variable " + Quoted(var->name()) + " is not defined");
  }
}

void WellFormedChecker::PopTirScope(size_t mark) {
  while (tir_scope_.size() > mark) {
    auto [var, frame] = tir_scope_.back();
    tir_vars_[var].frame = frame;
    tir_scope_.pop_back();
  }
}

void WellFormedChecker::DefineTirVars(const StructInfo& sinfo, Span context, int depth) {
  if (sinfo == nullptr || depth > kMaxCheckDepth) return;
  Span span = Pick(sinfo->span(), context);
  auto define_bare = [&](const PrimExpr& e) {
    if (e && e->kind() == NodeKind::kTirVar) {
      DefineTirVar(static_cast<const TirVarNode*>(e.get()), span);
    }
  };
  switch (sinfo->kind()) {
    case NodeKind::kPrimSInfo:
      define_bare(static_cast<const PrimSInfoNode&>(*sinfo).value());
      break;
    case NodeKind::kShapeSInfo:
      if (const auto& values = static_cast<const ShapeSInfoNode&>(*sinfo).values()) {
        for (const PrimExpr& e : *values) define_bare(e);
      }
      break;
    case NodeKind::kTensorSInfo:
      if (const auto& shape = static_cast<const TensorSInfoNode&>(*sinfo).shape()) {
        for (const PrimExpr& e : *shape) define_bare(e);
      }
      break;
    case NodeKind::kTupleSInfo:
      for (const StructInfo& f : static_cast<const TupleSInfoNode&>(*sinfo).fields()) {
        DefineTirVars(f, span, depth + 1);
      }
      break;
    case NodeKind::kFuncSInfo: {
      const auto& f = static_cast<const FuncSInfoNode&>(*sinfo);
      if (f.params()) {
        for (const StructInfo& p : *f.params()) DefineTirVars(p, span, depth + 1);
      }
      DefineTirVars(f.ret(), span, depth + 1);
      break;
    }
    case NodeKind::kObjectSInfo:
    PIPESPLIT_KINDS_OUTSIDE_STRUCT_INFO:
      break;
  }
}

void WellFormedChecker::CheckTirVars(const StructInfo& sinfo, Span context, int depth) {
  if (sinfo == nullptr || depth > kMaxCheckDepth) return;
  Span span = Pick(sinfo->span(), context);
  switch (sinfo->kind()) {
    case NodeKind::kPrimSInfo:
      CheckTirVars(static_cast<const PrimSInfoNode&>(*sinfo).value(), span);
      break;
    case NodeKind::kShapeSInfo:
      if (const auto& values = static_cast<const ShapeSInfoNode&>(*sinfo).values()) {
        for (const PrimExpr& e : *values) CheckTirVars(e, span);
      }
      break;
    case NodeKind::kTensorSInfo: {
      const auto& tensor = static_cast<const TensorSInfoNode&>(*sinfo);
      // The var holding the shape must be in scope, as any use of it.
      if (tensor.shape_var()) UseVar(*tensor.shape_var(), span);
      if (const auto& shape = tensor.shape()) {
        for (const PrimExpr& e : *shape) CheckTirVars(e, span);
      }
      break;
    }
    case NodeKind::kTupleSInfo:
      for (const StructInfo& f : static_cast<const TupleSInfoNode&>(*sinfo).fields()) {
        CheckTirVars(f, span, depth + 1);
      }
      break;
    case NodeKind::kFuncSInfo: {
      // A callable's params define the symbolic vars they mention (as in TVM's checker). Those
      // vars are bound by the signature itself, so they are scoped to it and are not owned by
      // the function that mentions the callable (a dispatcher naming its stage functions).
      const auto& f = static_cast<const FuncSInfoNode&>(*sinfo);
      size_t tir_mark = TirMark();
      ++callable_depth_;
      if (f.params()) {
        for (const StructInfo& p : *f.params()) DefineTirVars(p, span, depth + 1);
        for (const StructInfo& p : *f.params()) CheckTirVars(p, span, depth + 1);
      }
      CheckTirVars(f.ret(), span, depth + 1);
      --callable_depth_;
      PopTirScope(tir_mark);
      break;
    }
    case NodeKind::kObjectSInfo:
    PIPESPLIT_KINDS_OUTSIDE_STRUCT_INFO:
      break;
  }
}

void WellFormedChecker::CheckTirVars(const PrimExpr& expr, Span context) {
  if (expr == nullptr || expr->kind() == NodeKind::kIntImm) return;  // most dims: no vars
  VisitTirVars(expr, [&](const TirVar& var) { UseTirVar(var.get(), context); });
}

}  // namespace pipesplit::analysis
