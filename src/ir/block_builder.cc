#include "pipesplit/ir/block_builder.h"

#include "pipesplit/ir/map_on_change.h"
#include "pipesplit/ir/op.h"
#include "pipesplit/support/check.h"
#include "pipesplit/support/diagnostic.h"
#include "src/ir/op/op_families.h"

namespace pipesplit::ir {
namespace {

// Least upper bound of two struct infos, coarse: equal (as nodes or by IsBaseOf both ways)
// keeps it; tensors of one dtype and rank keep those; anything else is R.Object.
StructInfo Unify(const StructInfo& a, const StructInfo& b) {
  if (IsBaseOf(a, b)) return a;
  if (IsBaseOf(b, a)) return b;
  const auto* ta = As<TensorSInfoNode>(a);
  const auto* tb = As<TensorSInfoNode>(b);
  if (ta && tb) {
    DataType dtype = ta->dtype() == tb->dtype() ? ta->dtype() : DataType::Void();
    int ndim = ta->ndim() == tb->ndim() ? ta->ndim() : -1;
    return Make<TensorSInfoNode>(dtype, ndim);
  }
  const auto* tua = As<TupleSInfoNode>(a);
  const auto* tub = As<TupleSInfoNode>(b);
  if (tua && tub && tua->fields().size() == tub->fields().size()) {
    std::vector<StructInfo> fields;
    for (size_t i = 0; i < tua->fields().size(); ++i) {
      fields.push_back(Unify(tua->fields()[i], tub->fields()[i]));
    }
    return TupleSInfo(std::move(fields));
  }
  return ObjectSInfo();
}

// Binds symbolic vars of `param` (bare vars only) to the matching parts of `arg`.
void MatchParam(const StructInfo& param, const StructInfo& arg, TirVarMap* bindings) {
  auto bind_values = [&](const std::vector<PrimExpr>& ps, const std::vector<PrimExpr>& as) {
    if (ps.size() != as.size()) return;
    for (size_t i = 0; i < ps.size(); ++i) {
      if (const auto* v = As<TirVarNode>(ps[i])) bindings->try_emplace(v, as[i]);
    }
  };
  if (const auto* p = As<TensorSInfoNode>(param)) {
    const auto* a = As<TensorSInfoNode>(arg);
    if (a && p->shape() && a->shape()) bind_values(*p->shape(), *a->shape());
  } else if (const auto* p = As<ShapeSInfoNode>(param)) {
    const auto* a = As<ShapeSInfoNode>(arg);
    if (a && p->values() && a->values()) bind_values(*p->values(), *a->values());
  } else if (const auto* p = As<PrimSInfoNode>(param)) {
    const auto* a = As<PrimSInfoNode>(arg);
    if (a && p->value() && a->value()) bind_values({p->value()}, {a->value()});
  } else if (const auto* p = As<TupleSInfoNode>(param)) {
    const auto* a = As<TupleSInfoNode>(arg);
    if (a && a->fields().size() == p->fields().size()) {
      for (size_t i = 0; i < p->fields().size(); ++i) {
        MatchParam(p->fields()[i], a->fields()[i], bindings);
      }
    }
  }
}

std::string CalleeName(const Expr& op) {
  if (const auto* g = As<GlobalVarNode>(op)) return "cls." + g->name_hint();
  if (const auto* v = As<VarNode>(op)) return v->name_hint();
  return "callee";
}

}  // namespace

void BlockBuilder::BeginScope(const std::vector<Var>& params) {
  scopes_.emplace_back();
  for (const Var& p : params) {
    if (p->struct_info()) DefineTirVarsOf(p->struct_info());
  }
}

void BlockBuilder::EndScope() {
  PS_CHECK(!scopes_.empty()) << "EndScope without BeginScope";
  for (const TirVarNode* v : scopes_.back().defined) defined_tir_vars_.erase(v);
  scopes_.pop_back();
}

void BlockBuilder::DefineTirVar(const TirVar& var) {
  if (defined_tir_vars_.insert(var.get()).second && !scopes_.empty()) {
    scopes_.back().defined.push_back(var.get());
  }
}

bool BlockBuilder::IsDefined(const TirVarNode& var) const {
  return defined_tir_vars_.count(&var) != 0;
}

void BlockBuilder::DefineTirVarsOf(const StructInfo& sinfo) {
  VisitTirVars(sinfo, [&](const TirVar& v) { DefineTirVar(v); });
}

void BlockBuilder::BeginDataflowBlock(Span span) { blocks_.push_back({{}, true, span}); }
void BlockBuilder::BeginBindingBlock(Span span) { blocks_.push_back({{}, false, span}); }

BindingBlock BlockBuilder::EndBlock() {
  PS_CHECK(!blocks_.empty()) << "EndBlock without a block";
  BlockFrame frame = std::move(blocks_.back());
  blocks_.pop_back();
  if (!frame.span.valid() && !frame.bindings.empty()) {
    frame.span = Span::Merge(frame.bindings.front()->span(), frame.bindings.back()->span());
  }
  return Make<BindingBlockNode>(std::move(frame.bindings), frame.is_dataflow, frame.span);
}

Var BlockBuilder::Emit(const Expr& value, std::string name_hint, Span span) {
  PS_CHECK(in_block()) << "Emit outside a block";
  Expr normalized = Normalize(value);
  bool dataflow = in_dataflow_block();
  if (name_hint.empty()) name_hint = dataflow ? "lv" : "gv";
  Var var = MakeVar(names().FreshName(name_hint), normalized->struct_info(), dataflow, span);
  blocks_.back().bindings.push_back(Make<VarBindingNode>(var, normalized, span));
  return var;
}

Var BlockBuilder::EmitOutput(const Expr& value, std::string name_hint, Span span) {
  PS_CHECK(in_dataflow_block()) << "EmitOutput outside a dataflow block";
  Expr normalized = Normalize(value);
  if (name_hint.empty()) name_hint = "gv";
  Var var = MakeVar(names().FreshName(name_hint), normalized->struct_info(), false, span);
  blocks_.back().bindings.push_back(Make<VarBindingNode>(var, normalized, span));
  return var;
}

Var BlockBuilder::EmitMatchCast(const Expr& value, const StructInfo& sinfo, std::string name_hint,
                                Span span) {
  PS_CHECK(in_block()) << "EmitMatchCast outside a block";
  Expr normalized = Normalize(value);
  bool dataflow = in_dataflow_block();
  if (name_hint.empty()) name_hint = dataflow ? "lv" : "gv";
  Var var = MakeVar(names().FreshName(name_hint), sinfo, dataflow, span);
  DefineTirVarsOf(sinfo);
  blocks_.back().bindings.push_back(Make<MatchCastNode>(var, normalized, sinfo, span));
  return var;
}

void BlockBuilder::EmitNormalized(const Binding& binding) {
  PS_CHECK(in_block()) << "EmitNormalized outside a block";
  PS_CHECK(binding->var()->struct_info() != nullptr) << "binding var without struct info";
  if (const auto* mc = As<MatchCastNode>(binding)) DefineTirVarsOf(mc->struct_info());
  unreserved_.push_back(binding->var());
  blocks_.back().bindings.push_back(binding);
}

NameSupply& BlockBuilder::names() {
  for (const Var& var : unreserved_) names_.Reserve(var->name_hint());
  unreserved_.clear();
  return names_;
}

Expr BlockBuilder::NormalizeArgument(const Expr& arg) {
  Expr normalized = Normalize(arg);
  if (!in_block() || IsLeafExpr(normalized) || normalized->kind() == NodeKind::kTuple ||
      normalized->kind() == NodeKind::kFunction) {
    return normalized;
  }
  return Emit(normalized, "", normalized->span());
}

Expr BlockBuilder::Normalize(const Expr& expr) {
  switch (expr->kind()) {
    case NodeKind::kTuple: {
      const auto& node = static_cast<const TupleNode&>(*expr);
      const std::vector<Expr>& in = node.fields();
      std::vector<Expr> fields;
      const bool changed =
          MapOnChange(in, &fields, [&](const Expr& e) { return NormalizeArgument(e); });
      if (!changed && node.struct_info()) return expr;
      std::vector<StructInfo> sinfo;
      sinfo.reserve(in.size());
      for (const Expr& f : changed ? fields : in) sinfo.push_back(f->struct_info());
      StructInfo tuple_sinfo = TupleSInfo(std::move(sinfo));
      if (!changed) {
        SetStructInfoOnce(node, tuple_sinfo);
        return expr;
      }
      return Make<TupleNode>(std::move(fields), tuple_sinfo, node.span());
    }
    case NodeKind::kTupleGetItem: {
      const auto& node = static_cast<const TupleGetItemNode&>(*expr);
      if (node.struct_info()) return expr;
      Expr tuple = NormalizeArgument(node.tuple());
      const auto* t = As<TupleSInfoNode>(tuple->struct_info());
      StructInfo sinfo;
      if (t != nullptr) {
        if (node.index() < 0 || static_cast<size_t>(node.index()) >= t->fields().size()) {
          ThrowError(node.span(), "tuple index " + std::to_string(node.index()) +
                                      " is out of range for a tuple of " +
                                      std::to_string(t->fields().size()) + " fields");
        }
        sinfo = t->fields()[node.index()];
      } else if (tuple->struct_info()->kind() == NodeKind::kObjectSInfo) {
        sinfo = ObjectSInfo();
      } else {
        ThrowError(node.span(), "indexing a value that is not a tuple");
      }
      if (tuple == node.tuple()) {
        SetStructInfoOnce(node, sinfo);
        return expr;
      }
      return Make<TupleGetItemNode>(tuple, node.index(), sinfo, node.span());
    }
    case NodeKind::kCall: {
      const auto& node = static_cast<const CallNode&>(*expr);
      if (node.struct_info()) return expr;
      const std::vector<Expr>& in = node.args();
      std::vector<Expr> args;
      const bool changed =
          MapOnChange(in, &args, [&](const Expr& e) { return NormalizeArgument(e); });
      if (!changed) {
        SetStructInfoOnce(node, InferCallStructInfo(node));
        return expr;
      }
      auto call = Make<CallNode>(node.op(), std::move(args), node.attrs(), node.sinfo_args(),
                                 nullptr, node.span());
      SetStructInfoOnce(*call, InferCallStructInfo(*call));
      return call;
    }
    case NodeKind::kIf: {
      const auto& node = static_cast<const IfNode&>(*expr);
      if (node.struct_info()) return expr;
      Expr t = Normalize(node.true_branch());
      Expr f = Normalize(node.false_branch());
      StructInfo sinfo = Unify(t->struct_info(), f->struct_info());
      if (t == node.true_branch() && f == node.false_branch()) {
        SetStructInfoOnce(node, sinfo);
        return expr;
      }
      return Make<IfNode>(node.cond(), t, f, sinfo, node.span());
    }
    case NodeKind::kSeqExpr: {
      const auto& node = static_cast<const SeqExprNode&>(*expr);
      if (node.struct_info()) return expr;
      Expr body = Normalize(node.body());
      // A shape var bound by the sequence's own bindings goes out of scope with it.
      auto bound_outside = [&](const VarNode& v) {
        for (const BindingBlock& block : node.blocks()) {
          for (const Binding& b : block->bindings()) {
            if (b->var().get() == &v) return false;
          }
        }
        return true;
      };
      StructInfo sinfo = EraseToWellDefined(
          body->struct_info(), [&](const TirVarNode& v) { return scopes_.empty() || IsDefined(v); },
          bound_outside);
      if (body == node.body()) {
        SetStructInfoOnce(node, sinfo);
        return expr;
      }
      return Make<SeqExprNode>(node.blocks(), body, sinfo, node.span());
    }
    PIPESPLIT_LEAF_EXPR_KINDS:
    case NodeKind::kFunction:
    case NodeKind::kPrimFunc:
    PIPESPLIT_KINDS_OUTSIDE_EXPR:
      PS_CHECK(expr->struct_info() != nullptr)
          << "node of kind " << static_cast<int>(expr->kind()) << " has no struct info";
      return expr;
  }
  PS_UNREACHABLE();
}

StructInfo BlockBuilder::InferCallStructInfo(const CallNode& call) {
  const Expr& op = call.op();
  if (const auto* op_node = As<OpNode>(op)) {
    const OpInfo* info = op_node->info();
    if (info == nullptr || !info->infer) {
      ThrowError(call.span(), "cannot infer the result type of " + OpDisplayName(call) +
                                  (info == nullptr ? " (unknown op)" : " (no inference rule)") +
                                  "; annotate the binding");
    }
    try {
      return info->infer(call);
    } catch (const InferError& e) {
      ThrowError(call.span(), e.message);
    }
  }
  if (op->kind() == NodeKind::kExternFunc) {
    if (call.sinfo_args().empty()) return ObjectSInfo();
    return call.sinfo_args().size() == 1 ? call.sinfo_args()[0] : TupleSInfo(call.sinfo_args());
  }
  const auto* func = As<FuncSInfoNode>(op->struct_info());
  if (func == nullptr) {
    if (op->struct_info() && op->struct_info()->kind() == NodeKind::kObjectSInfo) {
      return ObjectSInfo();
    }
    ThrowError(call.span(), CalleeName(op) + " is not callable");
  }
  if (func->params()) {
    if (func->params()->size() != call.args().size()) {
      ThrowError(call.span(), CalleeName(op) + " takes " + std::to_string(func->params()->size()) +
                                  " arguments, got " + std::to_string(call.args().size()));
    }
    TirVarMap bindings;
    for (size_t i = 0; i < call.args().size(); ++i) {
      MatchParam((*func->params())[i], call.args()[i]->struct_info(), &bindings);
    }
    StructInfo ret = Substitute(func->ret(), bindings);
    return EraseToWellDefined(ret,
                              [&](const TirVarNode& v) { return scopes_.empty() || IsDefined(v); });
  }
  return func->ret();
}

}  // namespace pipesplit::ir
