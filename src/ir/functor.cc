#include "pipesplit/ir/functor.h"

#include "pipesplit/ir/map_on_change.h"
#include "pipesplit/support/check.h"

namespace pipesplit::ir {

// ---------------------------------------------------------------------------------------------
// ExprVisitor

void ExprVisitor::VisitExpr(const Expr& expr) {
  switch (expr->kind()) {
    case NodeKind::kVar:
    case NodeKind::kDataflowVar:
      return VisitExpr_(static_cast<const VarNode&>(*expr));
    case NodeKind::kGlobalVar:
      return VisitExpr_(static_cast<const GlobalVarNode&>(*expr));
    case NodeKind::kConstant:
      return VisitExpr_(static_cast<const ConstantNode&>(*expr));
    case NodeKind::kTuple:
      return VisitExpr_(static_cast<const TupleNode&>(*expr));
    case NodeKind::kTupleGetItem:
      return VisitExpr_(static_cast<const TupleGetItemNode&>(*expr));
    case NodeKind::kShapeExpr:
      return VisitExpr_(static_cast<const ShapeExprNode&>(*expr));
    case NodeKind::kPrimValue:
      return VisitExpr_(static_cast<const PrimValueNode&>(*expr));
    case NodeKind::kStringImm:
      return VisitExpr_(static_cast<const StringImmNode&>(*expr));
    case NodeKind::kDataTypeImm:
      return VisitExpr_(static_cast<const DataTypeImmNode&>(*expr));
    case NodeKind::kOp:
      return VisitExpr_(static_cast<const OpNode&>(*expr));
    case NodeKind::kExternFunc:
      return VisitExpr_(static_cast<const ExternFuncNode&>(*expr));
    case NodeKind::kCall:
      return VisitExpr_(static_cast<const CallNode&>(*expr));
    case NodeKind::kIf:
      return VisitExpr_(static_cast<const IfNode&>(*expr));
    case NodeKind::kSeqExpr:
      return VisitExpr_(static_cast<const SeqExprNode&>(*expr));
    case NodeKind::kFunction:
      return VisitExpr_(static_cast<const FunctionNode&>(*expr));
    case NodeKind::kPrimFunc:
      return VisitExpr_(static_cast<const PrimFuncNode&>(*expr));
    PIPESPLIT_KINDS_OUTSIDE_EXPR:
      PS_UNREACHABLE();
  }
}

void ExprVisitor::VisitBinding(const Binding& binding) {
  VisitExpr(binding->value());
  if (const auto* mc = As<MatchCastNode>(binding)) VisitStructInfo(mc->struct_info());
  VisitVarDef(binding->var());
}

void ExprVisitor::VisitBindingBlock(const BindingBlock& block) {
  for (const Binding& b : block->bindings()) VisitBinding(b);
}

void ExprVisitor::VisitVarDef(const Var& var) {
  if (var->struct_info()) VisitStructInfo(var->struct_info());
}

void ExprVisitor::VisitStructInfo(const StructInfo& sinfo) {
  // Visit each PrimExpr once per occurrence.
  struct Collector {
    ExprVisitor* self;
    void Visit(const StructInfo& s) {
      switch (s->kind()) {
        case NodeKind::kPrimSInfo:
          if (const auto& v = static_cast<const PrimSInfoNode&>(*s).value()) self->VisitPrimExpr(v);
          break;
        case NodeKind::kShapeSInfo:
          if (const auto& vs = static_cast<const ShapeSInfoNode&>(*s).values()) {
            for (const PrimExpr& e : *vs) self->VisitPrimExpr(e);
          }
          break;
        case NodeKind::kTensorSInfo:
          if (const auto& vs = static_cast<const TensorSInfoNode&>(*s).shape()) {
            for (const PrimExpr& e : *vs) self->VisitPrimExpr(e);
          }
          break;
        case NodeKind::kTupleSInfo:
          for (const StructInfo& f : static_cast<const TupleSInfoNode&>(*s).fields()) Visit(f);
          break;
        case NodeKind::kFuncSInfo: {
          const auto& f = static_cast<const FuncSInfoNode&>(*s);
          if (f.params()) {
            for (const StructInfo& p : *f.params()) Visit(p);
          }
          Visit(f.ret());
          break;
        }
        case NodeKind::kObjectSInfo:
        PIPESPLIT_KINDS_OUTSIDE_STRUCT_INFO:
          break;
      }
    }
  };
  Collector{this}.Visit(sinfo);
}

void ExprVisitor::VisitExpr_(const TupleNode& node) {
  for (const Expr& f : node.fields()) VisitExpr(f);
}

void ExprVisitor::VisitExpr_(const TupleGetItemNode& node) { VisitExpr(node.tuple()); }

void ExprVisitor::VisitExpr_(const ShapeExprNode& node) {
  for (const PrimExpr& e : node.values()) VisitPrimExpr(e);
}

void ExprVisitor::VisitExpr_(const PrimValueNode& node) { VisitPrimExpr(node.value()); }

void ExprVisitor::VisitExpr_(const CallNode& node) {
  VisitExpr(node.op());
  for (const Expr& a : node.args()) VisitExpr(a);
  for (const StructInfo& s : node.sinfo_args()) VisitStructInfo(s);
}

void ExprVisitor::VisitExpr_(const IfNode& node) {
  VisitExpr(node.cond());
  VisitExpr(node.true_branch());
  VisitExpr(node.false_branch());
}

void ExprVisitor::VisitExpr_(const SeqExprNode& node) {
  for (const BindingBlock& b : node.blocks()) VisitBindingBlock(b);
  VisitExpr(node.body());
}

void ExprVisitor::VisitExpr_(const FunctionNode& node) {
  for (const Var& p : node.params()) VisitVarDef(p);
  VisitExpr(node.body());
  VisitStructInfo(node.ret_struct_info());
}

// ---------------------------------------------------------------------------------------------
// ExprMutator

namespace {

template <typename T>
Ptr<T> Down(const Expr& e) {
  return std::static_pointer_cast<const T>(e);
}

}  // namespace

Expr ExprMutator::VisitExpr(const Expr& expr) {
  switch (expr->kind()) {
    case NodeKind::kVar:
    case NodeKind::kDataflowVar:
      return VisitExpr_(Down<VarNode>(expr));
    case NodeKind::kGlobalVar:
      return VisitExpr_(Down<GlobalVarNode>(expr));
    case NodeKind::kConstant:
      return VisitExpr_(Down<ConstantNode>(expr));
    case NodeKind::kTuple:
      return VisitExpr_(Down<TupleNode>(expr));
    case NodeKind::kTupleGetItem:
      return VisitExpr_(Down<TupleGetItemNode>(expr));
    case NodeKind::kShapeExpr:
      return VisitExpr_(Down<ShapeExprNode>(expr));
    case NodeKind::kPrimValue:
      return VisitExpr_(Down<PrimValueNode>(expr));
    case NodeKind::kStringImm:
      return VisitExpr_(Down<StringImmNode>(expr));
    case NodeKind::kDataTypeImm:
      return VisitExpr_(Down<DataTypeImmNode>(expr));
    case NodeKind::kOp:
      return VisitExpr_(Down<OpNode>(expr));
    case NodeKind::kExternFunc:
      return VisitExpr_(Down<ExternFuncNode>(expr));
    case NodeKind::kCall:
      return VisitExpr_(Down<CallNode>(expr));
    case NodeKind::kIf:
      return VisitExpr_(Down<IfNode>(expr));
    case NodeKind::kSeqExpr:
      return VisitExpr_(Down<SeqExprNode>(expr));
    case NodeKind::kFunction:
      return VisitExpr_(Down<FunctionNode>(expr));
    case NodeKind::kPrimFunc:
      return VisitExpr_(Down<PrimFuncNode>(expr));
    PIPESPLIT_KINDS_OUTSIDE_EXPR:
      PS_UNREACHABLE();
  }
  return expr;
}

StructInfo ExprMutator::VisitStructInfo(const StructInfo& sinfo) {
  if (!sinfo) return sinfo;
  // Rebuild through Substitute-like mapping with VisitPrimExpr.
  struct Mapper {
    ExprMutator* self;
    // The mapped dims; allocated only from the first dim that changes (unchanged: empty).
    std::vector<PrimExpr> Map(const std::vector<PrimExpr>& in, bool* changed) {
      std::vector<PrimExpr> out;
      for (size_t i = 0; i < in.size(); ++i) {
        PrimExpr e = self->VisitPrimExpr(in[i]);
        if (!*changed) {
          if (e == in[i]) continue;
          *changed = true;
          out.reserve(in.size());
          out.assign(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(i));
        }
        out.push_back(std::move(e));
      }
      return out;
    }
    StructInfo Visit(const StructInfo& s) {
      switch (s->kind()) {
        case NodeKind::kPrimSInfo: {
          const auto& n = static_cast<const PrimSInfoNode&>(*s);
          if (!n.value()) return s;
          PrimExpr v = self->VisitPrimExpr(n.value());
          return v == n.value() ? s : Make<PrimSInfoNode>(n.dtype(), v, n.span());
        }
        case NodeKind::kShapeSInfo: {
          const auto& n = static_cast<const ShapeSInfoNode&>(*s);
          if (!n.values()) return s;
          bool changed = false;
          auto v = Map(*n.values(), &changed);
          return changed ? Make<ShapeSInfoNode>(std::move(v), n.span()) : s;
        }
        case NodeKind::kTensorSInfo: {
          const auto& n = static_cast<const TensorSInfoNode&>(*s);
          if (n.shape_var()) {  // a remapped shape var: the struct info follows it
            auto it = self->var_remap_.find(n.shape_var().get());
            if (it == self->var_remap_.end()) return s;
            return SubstituteShapeVars(s, [&](const VarNode&) { return it->second; });
          }
          if (!n.shape()) return s;
          bool changed = false;
          auto v = Map(*n.shape(), &changed);
          return changed ? Make<TensorSInfoNode>(std::move(v), n.dtype(), n.vdevice(), n.span())
                         : s;
        }
        case NodeKind::kTupleSInfo: {
          const auto& n = static_cast<const TupleSInfoNode&>(*s);
          bool changed = false;
          std::vector<StructInfo> fields;
          for (const StructInfo& f : n.fields()) {
            fields.push_back(Visit(f));
            changed |= fields.back() != f;
          }
          return changed ? Make<TupleSInfoNode>(std::move(fields), n.span()) : s;
        }
        case NodeKind::kFuncSInfo: {
          const auto& n = static_cast<const FuncSInfoNode&>(*s);
          bool changed = false;
          std::optional<std::vector<StructInfo>> params;
          if (n.params()) {
            params.emplace();
            for (const StructInfo& p : *n.params()) {
              params->push_back(Visit(p));
              changed |= params->back() != p;
            }
          }
          StructInfo ret = Visit(n.ret());
          changed |= ret != n.ret();
          return changed ? Make<FuncSInfoNode>(std::move(params), ret, n.is_pure(), n.span()) : s;
        }
        case NodeKind::kObjectSInfo:
        PIPESPLIT_KINDS_OUTSIDE_STRUCT_INFO:
          return s;
      }
      PS_UNREACHABLE();
    }
  };
  return Mapper{this}.Visit(sinfo);
}

Var ExprMutator::VisitVarDef(const Var& var) {
  StructInfo sinfo = VisitStructInfo(var->struct_info());
  if (sinfo == var->struct_info()) return var;
  Var fresh = MakeVar(var->name_hint(), sinfo, var->is_dataflow(), var->span());
  var_remap_[var.get()] = fresh;
  return fresh;
}

Binding ExprMutator::VisitBinding(const Binding& binding) {
  Expr value = VisitExpr(binding->value());
  if (const auto* mc = As<MatchCastNode>(binding)) {
    StructInfo target = VisitStructInfo(mc->struct_info());
    Var var = VisitVarDef(binding->var());
    if (value == binding->value() && target == mc->struct_info() && var == binding->var()) {
      return binding;
    }
    return Make<MatchCastNode>(var, value, target, binding->span());
  }
  Var var = VisitVarDef(binding->var());
  if (value == binding->value() && var == binding->var()) return binding;
  return Make<VarBindingNode>(var, value, binding->span());
}

BindingBlock ExprMutator::VisitBindingBlock(const BindingBlock& block) {
  std::vector<Binding> bindings;
  if (!MapOnChange(block->bindings(), &bindings,
                   [&](const Binding& b) { return VisitBinding(b); })) {
    return block;
  }
  return Make<BindingBlockNode>(std::move(bindings), block->is_dataflow(), block->span());
}

Expr ExprMutator::VisitExpr_(const Ptr<VarNode>& node) {
  auto it = var_remap_.find(node.get());
  return it == var_remap_.end() ? Expr(node) : Expr(it->second);
}


Expr ExprMutator::VisitExpr_(const Ptr<TupleNode>& node) {
  std::vector<Expr> fields;
  if (!MapOnChange(node->fields(), &fields, [&](const Expr& e) { return VisitExpr(e); })) {
    return node;
  }
  std::vector<StructInfo> sinfo;
  sinfo.reserve(fields.size());
  for (const Expr& f : fields) sinfo.push_back(f->struct_info());
  return Make<TupleNode>(std::move(fields), TupleSInfo(std::move(sinfo)), node->span());
}

Expr ExprMutator::VisitExpr_(const Ptr<TupleGetItemNode>& node) {
  Expr tuple = VisitExpr(node->tuple());
  if (tuple == node->tuple()) return node;
  StructInfo sinfo = node->struct_info();
  if (const auto* t = As<TupleSInfoNode>(tuple->struct_info())) {
    if (node->index() >= 0 && static_cast<size_t>(node->index()) < t->fields().size()) {
      sinfo = t->fields()[node->index()];
    }
  }
  return Make<TupleGetItemNode>(tuple, node->index(), sinfo, node->span());
}

Expr ExprMutator::VisitExpr_(const Ptr<ShapeExprNode>& node) {
  std::vector<PrimExpr> values;
  if (!MapOnChange(node->values(), &values, [&](const PrimExpr& e) { return VisitPrimExpr(e); })) {
    return node;
  }
  return Make<ShapeExprNode>(std::move(values), node->span());
}

Expr ExprMutator::VisitExpr_(const Ptr<PrimValueNode>& node) {
  PrimExpr v = VisitPrimExpr(node->value());
  if (v == node->value()) return node;
  return Make<PrimValueNode>(v, node->span());
}

Expr ExprMutator::VisitExpr_(const Ptr<CallNode>& node) {
  Expr op = VisitExpr(node->op());
  bool changed = op != node->op();
  std::vector<Expr> args;
  bool args_changed =
      MapOnChange(node->args(), &args, [&](const Expr& e) { return VisitExpr(e); });
  std::vector<StructInfo> sinfo_args;
  bool sinfo_args_changed = MapOnChange(node->sinfo_args(), &sinfo_args,
                                        [&](const StructInfo& s) { return VisitStructInfo(s); });
  StructInfo sinfo = VisitStructInfo(node->struct_info());
  changed |= args_changed || sinfo_args_changed || sinfo != node->struct_info();
  if (!changed) return node;
  return Make<CallNode>(op, args_changed ? std::move(args) : node->args(), node->attrs(),
                        sinfo_args_changed ? std::move(sinfo_args) : node->sinfo_args(), sinfo,
                        node->span());
}

Expr ExprMutator::VisitExpr_(const Ptr<IfNode>& node) {
  Expr cond = VisitExpr(node->cond());
  Expr t = VisitExpr(node->true_branch());
  Expr f = VisitExpr(node->false_branch());
  StructInfo sinfo = VisitStructInfo(node->struct_info());
  if (cond == node->cond() && t == node->true_branch() && f == node->false_branch() &&
      sinfo == node->struct_info()) {
    return node;
  }
  return Make<IfNode>(cond, t, f, sinfo, node->span());
}

Expr ExprMutator::VisitExpr_(const Ptr<SeqExprNode>& node) {
  bool changed = false;
  std::vector<BindingBlock> blocks;
  for (const BindingBlock& b : node->blocks()) {
    blocks.push_back(VisitBindingBlock(b));
    changed |= blocks.back() != b;
  }
  Expr body = VisitExpr(node->body());
  changed |= body != node->body();
  if (!changed) return node;
  return Make<SeqExprNode>(std::move(blocks), body, body->struct_info(), node->span());
}

Expr ExprMutator::VisitExpr_(const Ptr<FunctionNode>& node) {
  bool changed = false;
  std::vector<Var> params;
  for (const Var& p : node->params()) {
    params.push_back(VisitVarDef(p));
    changed |= params.back() != p;
  }
  Expr body = VisitExpr(node->body());
  StructInfo ret = VisitStructInfo(node->ret_struct_info());
  changed |= body != node->body() || ret != node->ret_struct_info();
  if (!changed) return node;
  return Make<FunctionNode>(std::move(params), body, ret, node->is_pure(), node->attrs(),
                            node->span());
}

}  // namespace pipesplit::ir
