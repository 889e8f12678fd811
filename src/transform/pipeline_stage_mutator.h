// StageMutator: the rewrite of one stage's bindings into the stage's own scope, for the
// pipeline-parallel rewrite (pipeline_parallel_rewrite.cc, step 2). Private to that pass.
#ifndef PIPESPLIT_SRC_TRANSFORM_PIPELINE_STAGE_MUTATOR_H_
#define PIPESPLIT_SRC_TRANSFORM_PIPELINE_STAGE_MUTATOR_H_

#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "pipesplit/ir/flat_expr.h"
#include "pipesplit/ir/functor.h"
#include "pipesplit/support/check.h"
#include "src/transform/pipeline_symbols.h"

namespace pipesplit::transform {

// Rewrites a stage's bindings into the stage's own scope: every symbolic var becomes the
// stage's own copy, and a Var definition gets a fresh Var when its struct info or its kind
// changes (dataflow unless it is an output); unchanged bindings are reused as they are.
class StageMutator : public ir::ExprMutator {
 public:
  using Expr = ir::Expr;
  using Var = ir::Var;

  StageMutator(ir::TirVarMap* symbols, const std::unordered_set<const ir::VarNode*>* outputs)
      : symbols_(symbols), outputs_(outputs) {}

  void Remap(const ir::VarNode* from, Var to) { SetRemap(from, std::move(to)); }
  void ReserveVars(size_t n) {  // no rehashing while the stage grows
    var_remap_.reserve(n);
    remapped_.reserve(n);
  }
  const Var& Lookup(const Var& var) const {
    auto it = var_remap_.find(var.get());
    PS_CHECK(it != var_remap_.end()) << "no stage value for " << var->name_hint();
    return it->second;
  }

  // The stage's copy of every symbolic var in `e` (created on first sight).
  ir::PrimExpr VisitPrimExpr(const ir::PrimExpr& e) override {
    if (e == nullptr || e->kind() == ir::NodeKind::kIntImm) return e;  // most dims
    if (const auto* var = ir::As<ir::TirVarNode>(e)) {  // most of the others: one lookup
      auto it = symbols_->find(var);
      if (it != symbols_->end()) return it->second;
    }
    ir::VisitTirVars(e, [&](const ir::TirVar& v) { Copy(v); });
    return ir::Substitute(e, *symbols_);
  }

  ir::StructInfo Rewrite(const ir::StructInfo& sinfo) { return VisitStructInfo(sinfo); }

  // The last mapping is remembered: a call_tir's struct info is its out_sinfo node, visited
  // right after it.
  ir::StructInfo VisitStructInfo(const ir::StructInfo& sinfo) override {
    if (NamesShapeVar(sinfo)) {
      // R.Tensor(s, ...): `s` is the stage's copy when the stage has one; a shape var of
      // another stage is erased to the rank. Not cached: the stage's vars grow as it is built.
      return ExprMutator::VisitStructInfo(ir::EraseToWellDefined(
          sinfo, [](const ir::TirVarNode&) { return true; },
          [&](const ir::VarNode& v) { return var_remap_.count(&v) != 0; }));
    }
    if (sinfo != last_sinfo_in_) {
      last_sinfo_out_ = ExprMutator::VisitStructInfo(sinfo);
      last_sinfo_in_ = sinfo;
    }
    return last_sinfo_out_;
  }

  // A binding belongs to exactly one stage, so its var is defined once in the output and is
  // kept when the stage's copy would be identical (same struct info, same dataflow kind).
  Var VisitVarDef(const Var& var) override {
    bool output = outputs_->count(var.get()) != 0;
    bool dataflow = !output && in_dataflow_;
    ir::StructInfo sinfo = VisitStructInfo(var->struct_info());
    if (output && NamesShapeVar(sinfo)) {
      // An output leaves the dataflow block: it cannot name a shape var that stays inside.
      sinfo = ir::EraseToWellDefined(
          sinfo, [](const ir::TirVarNode&) { return true; },
          [](const ir::VarNode& v) { return !v.is_dataflow(); });
    }
    if (sinfo == var->struct_info() && dataflow == var->is_dataflow()) {
      // A reused shape var is in the stage's scope for later R.Tensor(s, ...) (VisitStructInfo).
      if (ir::Is<ir::ShapeSInfoNode>(sinfo)) SetRemap(var.get(), var);
      return var;
    }
    Var fresh = ir::MakeVar(var->name_hint(), std::move(sinfo), dataflow, var->span());
    SetRemap(var.get(), fresh);
    return fresh;
  }

  // A call bound to an output whose shape var was erased (VisitVarDef) takes the output's
  // struct info, as an annotated call does in TVMScript: the printed stage parses back the same.
  ir::Binding VisitBinding(const ir::Binding& binding) override {
    ir::Binding out = ExprMutator::VisitBinding(binding);
    const auto* call = ir::As<ir::CallNode>(out->value());
    if (call == nullptr || out->kind() != ir::NodeKind::kVarBinding ||
        outputs_->count(binding->var().get()) == 0 ||
        call->struct_info() == out->var()->struct_info() || !NamesShapeVar(call->struct_info())) {
      return out;
    }
    Expr value = ir::Make<ir::CallNode>(call->op(), call->args(), call->attrs(), call->sinfo_args(),
                                        out->var()->struct_info(), call->span());
    return ir::Make<ir::VarBindingNode>(out->var(), value, out->span());
  }

  // VisitBinding's result, computed directly for the common binding of a static model (a
  // call_tir of vars): a var binding whose var keeps its kind and has a struct info without
  // symbolic parts, and whose value is built of vars, leaves, tuples and calls whose struct
  // infos have no symbolic parts either. Only var uses can change there, and they are looked
  // up as ExprMutator would. nullptr when the binding needs the full walk.
  ir::Binding FastVisitBinding(const ir::Binding& binding) {
    if (binding->kind() != ir::NodeKind::kVarBinding || !in_dataflow_) return nullptr;
    const ir::Var& var = binding->var();
    // Kept only when its kind stays (dataflow unless it is an output).
    if (var->is_dataflow() == (outputs_->count(var.get()) != 0)) return nullptr;
    const ir::StructInfo& sinfo = var->struct_info();
    // A kept shape var is recorded in the remap by VisitVarDef: left to the walk.
    if (ir::Is<ir::ShapeSInfoNode>(sinfo) || !IsStaticStructInfo(sinfo)) return nullptr;
    Expr built;
    const Expr* value = FastVisit(binding->value(), &built);
    if (value == nullptr) return nullptr;
    if (value->get() == binding->value().get()) return binding;
    return ir::Make<ir::VarBindingNode>(var, *value, binding->span());
  }

  void set_in_dataflow(bool v) { in_dataflow_ = v; }

 protected:
  ir::Expr VisitExpr_(const ir::Ptr<ir::FunctionNode>& node) override {
    bool saved = in_dataflow_;
    in_dataflow_ = false;  // a nested function's vars are its own
    ir::Expr out = ExprMutator::VisitExpr_(node);
    in_dataflow_ = saved;
    return out;
  }

 private:
  static bool NamesShapeVar(const ir::StructInfo& sinfo) {
    if (const auto* tensor = ir::As<ir::TensorSInfoNode>(sinfo)) {
      return tensor->shape_var() != nullptr;  // most struct infos: one test
    }
    if (!ir::Is<ir::TupleSInfoNode>(sinfo) && !ir::Is<ir::FuncSInfoNode>(sinfo)) return false;
    bool found = false;
    ir::VisitShapeVars(sinfo, [&](const ir::VarNode&) { found = true; });
    return found;
  }

  // ExprMutator::VisitExpr(e) for the expressions FastVisitBinding takes: `&e` when nothing
  // changes (no reference count is touched: stages are built side by side and share nodes),
  // the stage's var, or the rebuilt node stored in *built; nullptr when it needs the walk.
  const Expr* FastVisit(const Expr& e, Expr* built) {
    struct Fast {
      StageMutator* m;
      Expr* built;
      const Expr* Leaf(const Expr& e) { return &e; }
      const Expr* Var(const ir::VarNode& var, const Expr& e) {
        if (!m->remapped_.contains(&var)) return &e;  // most uses: one flat probe
        *built = m->var_remap_.find(&var)->second;
        return built;
      }
      const Expr* PrimValue(const ir::PrimValueNode& node, const Expr& e) {
        const ir::PrimExpr& value = node.value();
        return value == nullptr || value->kind() == ir::NodeKind::kIntImm ? &e : nullptr;
      }
      const Expr* ShapeExpr(const ir::ShapeExprNode& node, const Expr& e) {
        return AllConstDims(node.values()) ? &e : nullptr;
      }
      const Expr* Tuple(const ir::TupleNode& tuple, const Expr& e) {
        std::vector<Expr> fields;
        if (!m->FastVisitAll(tuple.fields(), &fields)) return nullptr;
        if (fields.empty()) return &e;
        std::vector<ir::StructInfo> sinfo;
        sinfo.reserve(fields.size());
        for (const Expr& f : fields) sinfo.push_back(f->struct_info());
        *built = ir::Make<ir::TupleNode>(std::move(fields), ir::TupleSInfo(std::move(sinfo)),
                                         tuple.span());
        return built;
      }
      const Expr* TupleGetItem(const ir::TupleGetItemNode&, const Expr&) { return nullptr; }
      const Expr* Call(const ir::CallNode& call, const Expr& e) {
        if (!IsStaticStructInfo(call.struct_info())) return nullptr;
        for (const ir::StructInfo& s : call.sinfo_args()) {
          if (!IsStaticStructInfo(s)) return nullptr;
        }
        Expr op_built;
        const Expr* op = m->FastVisit(call.op(), &op_built);
        if (op == nullptr) return nullptr;
        std::vector<Expr> args;
        if (!m->FastVisitAll(call.args(), &args)) return nullptr;
        if (op->get() == call.op().get() && args.empty()) return &e;
        *built =
            ir::Make<ir::CallNode>(*op, args.empty() ? call.args() : std::move(args), call.attrs(),
                                   call.sinfo_args(), call.struct_info(), call.span());
        return built;
      }
      // Nested scopes and branches: the full walk (as are tuple items).
      const Expr* Nested(const Expr&) { return nullptr; }
    };
    return ir::VisitFlat(e, Fast{this, built});
  }

  // Visits every item; false when one is not fast. `out` stays empty when none changed
  // (as MapOnChange), else holds every result.
  bool FastVisitAll(const std::vector<Expr>& in, std::vector<Expr>* out) {
    for (size_t i = 0; i < in.size(); ++i) {
      Expr built;
      const Expr* r = FastVisit(in[i], &built);
      if (r == nullptr) return false;
      if (out->empty()) {
        if (r->get() == in[i].get()) continue;
        out->reserve(in.size());
        out->assign(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(i));
      }
      out->push_back(*r);
    }
    return true;
  }

  // Every write of var_remap_ goes through here, so `remapped_` holds its keys.
  void SetRemap(const ir::VarNode* from, Var to) {
    var_remap_[from] = std::move(to);
    remapped_.insert(from);
  }

  void Copy(const ir::TirVar& v) {
    if (symbols_->count(v.get())) return;
    symbols_->emplace(v.get(), ir::Make<ir::TirVarNode>(v->name(), v->dtype(), v->is_size_var()));
  }

  ir::TirVarMap* symbols_;
  const std::unordered_set<const ir::VarNode*>* outputs_;
  bool in_dataflow_ = true;
  ir::StructInfo last_sinfo_in_, last_sinfo_out_;     // see VisitStructInfo
  absl::flat_hash_set<const ir::VarNode*> remapped_;  // the keys of var_remap_ (FastVisit)
};

}  // namespace pipesplit::transform

#endif  // PIPESPLIT_SRC_TRANSFORM_PIPELINE_STAGE_MUTATOR_H_
