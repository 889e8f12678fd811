// Symbolic variables of the pipeline stages (step 5 of BuildStagePlan; see
// pipeline_stage_plan.cc for the whole algorithm).
//
// A stage is a new function scope, so every symbolic var it mentions must be bound inside
// it: by `s` (vars the dispatcher has: those of the non-weight parameters), by a match_cast
// of the stage itself, by a weight read (R.Object + match_cast), or by a received tensor
// (received with unknown dims, then match_cast). A var born by a match_cast in an earlier
// stage that no received tensor carries is re-derived by forwarding the tensor that
// match_cast produced.
#include "src/transform/pipeline_symbols.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "pipesplit/ir/flat_expr.h"
#include "pipesplit/ir/functor.h"
#include "pipesplit/support/check.h"

namespace pipesplit::transform {

using ir::TirVar;
using ir::TirVarNode;

bool AllConstDims(const std::vector<ir::PrimExpr>& dims) {
  for (const ir::PrimExpr& d : dims) {
    if (d == nullptr || d->kind() != ir::NodeKind::kIntImm) return false;
  }
  return true;
}

bool IsStaticStructInfo(const ir::StructInfo& sinfo) {
  if (sinfo == nullptr) return true;
  switch (sinfo->kind()) {
    case ir::NodeKind::kObjectSInfo:
      return true;
    case ir::NodeKind::kTensorSInfo:
      return !static_cast<const ir::TensorSInfoNode&>(*sinfo).has_symbolic_shape();
    case ir::NodeKind::kPrimSInfo: {
      const ir::PrimExpr& value = static_cast<const ir::PrimSInfoNode&>(*sinfo).value();
      return value == nullptr || value->kind() == ir::NodeKind::kIntImm;
    }
    case ir::NodeKind::kShapeSInfo: {
      const auto& values = static_cast<const ir::ShapeSInfoNode&>(*sinfo).values();
      return !values || AllConstDims(*values);
    }
    case ir::NodeKind::kTupleSInfo:
      for (const ir::StructInfo& f : static_cast<const ir::TupleSInfoNode&>(*sinfo).fields()) {
        if (!IsStaticStructInfo(f)) return false;
      }
      return true;
    default:
      return false;
  }
}

std::vector<TirVar> SymbolsOf(const ir::StructInfo& sinfo) {
  if (IsStaticStructInfo(sinfo)) return {};  // most struct infos
  std::vector<TirVar> out;  // a struct info mentions a handful of vars: linear dedupe
  ir::VisitTirVars(sinfo, [&](const TirVar& v) {
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  });
  return out;
}

namespace {

void VisitAttrSymbols(const ir::AttrValue& value, std::vector<TirVar>* out);

class SymbolCollector : public ir::ExprVisitor {
 public:
  explicit SymbolCollector(std::vector<TirVar>* out) : out_(out) {}

  void VisitPrimExpr(const ir::PrimExpr& e) override {
    if (e == nullptr || e->kind() == ir::NodeKind::kIntImm) return;  // most dims
    ir::VisitTirVars(e, [&](const TirVar& v) {
      if (!nested_bound_.count(v.get())) out_->push_back(v);
    });
  }

 protected:
  void VisitExpr_(const ir::CallNode& call) override {
    ExprVisitor::VisitExpr_(call);
    for (const auto& [key, value] : call.attrs()) VisitAttrSymbols(value, out_);
  }
  void VisitExpr_(const ir::FunctionNode& func) override {
    // A nested function binds the vars of its own signature.
    std::vector<const TirVarNode*> added;
    for (const ir::Var& p : func.params()) {
      ir::VisitTirVars(p->struct_info(), [&](const TirVar& v) {
        if (nested_bound_.insert(v.get()).second) added.push_back(v.get());
      });
    }
    ExprVisitor::VisitExpr_(func);
    for (const TirVarNode* v : added) nested_bound_.erase(v);
  }

 private:
  std::vector<TirVar>* out_;
  std::unordered_set<const TirVarNode*> nested_bound_;
};

// SymbolCollector::VisitExpr(e) with the flat part of the walk (vars, leaves, tuples, calls,
// static struct infos) done by ir::ForEachFlat; prim values, shapes, nested functions,
// branches and symbolic struct infos go to the collector, in the same order, so the result is
// the same.
void CollectFlat(const ir::Expr& e, SymbolCollector* collector, std::vector<TirVar>* out) {
  struct Flat {
    SymbolCollector* collector;
    std::vector<TirVar>* out;
    void OnVar(const ir::VarNode&) {}
    void OnPrims(const ir::Expr& e) { collector->VisitExpr(e); }
    void OnNested(const ir::Expr& e) { collector->VisitExpr(e); }
    void AfterCall(const ir::CallNode& call) {
      for (const ir::StructInfo& s : call.sinfo_args()) {
        if (!IsStaticStructInfo(s)) collector->VisitStructInfo(s);
      }
      for (const auto& [key, value] : call.attrs()) VisitAttrSymbols(value, out);
    }
  };
  Flat flat{collector, out};
  ir::ForEachFlat(e, flat);
}

void VisitAttrSymbols(const ir::AttrValue& value, std::vector<TirVar>* out) {
  if (const ir::PrimExpr* e = value.as_prim_expr()) {
    ir::VisitTirVars(*e, [&](const TirVar& v) { out->push_back(v); });
  } else if (const ir::AttrList* list = value.as_list()) {
    for (const ir::AttrValue& item : *list) VisitAttrSymbols(item, out);
  } else if (const ir::AttrMap* map = value.as_map()) {
    for (const auto& [k, v] : *map) VisitAttrSymbols(v, out);
  }
}

bool IsBareDim(const ir::StructInfo& sinfo, const TirVarNode* var) {
  const auto* tensor = ir::As<ir::TensorSInfoNode>(sinfo);
  if (tensor == nullptr || !tensor->shape()) return false;
  return std::any_of(tensor->shape()->begin(), tensor->shape()->end(),
                     [&](const ir::PrimExpr& d) { return d.get() == var; });
}

struct CastSite {
  ir::Binding binding;
  int stage;
};

class SymbolPlanner {
 public:
  SymbolPlanner(StagePlan& plan, DiagnosticList* errors) : plan_(plan), errors_(errors) {
    name_ = "'" + plan.gvar->name_hint() + "'";
  }

  void Run(std::vector<std::vector<BindingSymbols>> symbols) {
    symbols_ = std::move(symbols);  // read in order by the planning below
    PS_CHECK(symbols_.size() == plan_.stages.size()) << "binding symbols of another plan";
    const ir::Function& func = plan_.func;
    for (const ir::Var& p : func->params()) {
      if (p == plan_.packed_params) continue;
      for (const TirVar& v : SymbolsOf(p->struct_info())) dispatcher_.insert(v.get());
    }
    // Where each var not bound by the signature is first bound by a match_cast.
    std::unordered_set<const TirVarNode*> bound = dispatcher_;
    for (const TirVar& v : SymbolsOf(plan_.packed_params->struct_info())) bound.insert(v.get());
    for (const Stage& stage : plan_.stages) {
      for (size_t i = 0; i < stage.bindings.size(); ++i) {
        const ir::Binding& b = stage.bindings[i];
        if (!ir::Is<ir::MatchCastNode>(b)) continue;
        for (const TirVar& v : symbols_[stage.index][i].cast_targets) {
          if (bound.insert(v.get()).second) cast_sites_[v.get()] = {b, stage.index};
        }
      }
    }
    for (int s = static_cast<int>(plan_.stages.size()) - 1; s >= 0; --s) PlanStage(s);
  }

 private:
  void PlanStage(int s) {
    Stage& stage = plan_.stages[s];
    defined_.clear();
    if (s > 0) {
      // Index loop: Need may append transfers.
      std::vector<TirVar> underivable;
      for (size_t i = 0; i < plan_.transfers[s - 1].size(); ++i) {
        for (const TirVar& v : MarkReceive(plan_.transfers[s - 1][i])) underivable.push_back(v);
      }
      for (const TirVar& v : underivable) Need(v, s, plan_.boundaries[s - 1]);
    }
    const std::vector<BindingSymbols>& binding_symbols = symbols_[s];
    for (size_t i = 0; i < stage.bindings.size(); ++i) {
      const ir::Binding& b = stage.bindings[i];
      if (IsWeightRead(b)) {
        bool cast = false;
        for (const TirVar& v : SymbolsOf(b->var()->struct_info())) {
          if (dispatcher_.count(v.get()) || defined_.count(v.get())) continue;
          defined_.insert(v.get());
          stage.weight_shape_vars.push_back(v);
          cast = true;
        }
        if (cast) stage.cast_weight_reads.push_back(b.get());
        continue;
      }
      const BindingSymbols& symbols = binding_symbols[i];
      for (const TirVar& v : symbols.uses) {
        if (std::find(symbols.cast_targets.begin(), symbols.cast_targets.end(), v) !=
            symbols.cast_targets.end()) {
          continue;  // bound by this match_cast itself
        }
        Need(v, s, b);
      }
      for (const TirVar& v : symbols.cast_targets) defined_.insert(v.get());
    }
    // `s`: the dispatcher's vars the stage mentions, in order of first appearance.
    // An R.Shape holds int64 values only: a var of another dtype (an `R.Prim(value="n")`
    // parameter with n = T.int32()) cannot be passed that way and is reported where the stage
    // first needs it.
    std::unordered_set<const TirVarNode*> seen;
    std::unordered_set<const TirVarNode*> in_params;  // bound by the stage's own parameters
    for (const ir::Var& p : stage.params) {
      for (const TirVar& v : SymbolsOf(p->struct_info())) in_params.insert(v.get());
    }
    auto take = [&](const TirVar& v, const Span& at) {
      if (!dispatcher_.count(v.get()) || !seen.insert(v.get()).second) return;
      if (v->dtype() != DataType::Int(64)) {
        if (in_params.count(v.get())) return;
        errors_->Error(at, "stage " + std::to_string(s) + " of " + name_ +
                               " needs symbolic variable '" + v->name() +
                               "' from its caller, but it is " + v->dtype().ToString() +
                               " and stages receive symbolic variables in an R.Shape (int64 "
                               "only); compute what the stage needs in stage 0, or declare it "
                               "T.int64()");
        return;
      }
      stage.shape_vars.push_back(v);
    };
    for (const ir::Var& p : stage.params) {
      for (const TirVar& v : SymbolsOf(p->struct_info())) take(v, p->span());
    }
    if (s > 0) {
      for (const Transfer& t : plan_.transfers[s - 1]) {
        for (const TirVar& v : SymbolsOf(t.receiver->struct_info())) take(v, t.value->span());
      }
    }
    for (size_t i = 0; i < stage.bindings.size(); ++i) {
      const ir::Binding& b = stage.bindings[i];
      bool weight_read = IsWeightRead(b);
      for (const TirVar& v : binding_symbols[i].uses) take(v, b->span());
      // A plain binding's uses already end with the symbols of its var's struct info.
      if (!weight_read && !ir::Is<ir::MatchCastNode>(b)) continue;
      for (const TirVar& v : SymbolsOf(b->var()->struct_info())) take(v, b->span());
    }
  }

  bool IsWeightRead(const ir::Binding& b) const {
    const auto* item = ir::As<ir::TupleGetItemNode>(b->value());
    return item != nullptr && ir::Is<ir::VarBindingNode>(b) && item->tuple() == plan_.packed_params;
  }

  // A received tensor whose type mentions vars the caller cannot pass is received with
  // unknown dims and cast back, which binds the vars that are whole dims. Returns the others
  // (mentioned only inside expressions such as `m * 2`), which must be bound elsewhere.
  std::vector<TirVar> MarkReceive(Transfer& t) {
    std::vector<TirVar> others;
    for (const TirVar& v : SymbolsOf(t.receiver->struct_info())) {
      if (dispatcher_.count(v.get())) continue;
      t.erase_shape = true;
      if (IsBareDim(t.receiver->struct_info(), v.get())) {
        defined_.insert(v.get());
      } else if (!defined_.count(v.get())) {
        others.push_back(v);
      }
    }
    return others;
  }

  void Need(const TirVar& v, int s, const ir::Binding& at) {
    if (dispatcher_.count(v.get()) || defined_.count(v.get())) return;
    auto site = cast_sites_.find(v.get());
    if (site != cast_sites_.end() && site->second.stage < s) {
      const ir::Var& carrier = site->second.binding->var();
      if (IsBareDim(carrier->struct_info(), v.get())) {
        plan_.ForwardValue(carrier, site->second.stage, s);
        for (Transfer& t : plan_.transfers[s - 1]) {
          if (t.value == carrier) MarkReceive(t);
        }
        defined_.insert(v.get());
        return;
      }
      Diagnostic& d = errors_->Error(
          at->span(), "symbolic variable '" + v->name() + "' used in stage " + std::to_string(s) +
                          " of " + name_ + " is bound in stage " +
                          std::to_string(site->second.stage) +
                          " and no tensor passed between the stages carries it as a dimension");
      d.AddNote(site->second.binding->span(), "'" + v->name() + "' is bound here");
      defined_.insert(v.get());  // report once per stage
      return;
    }
    errors_->Error(at->span(), "symbolic variable '" + v->name() + "' used in stage " +
                                   std::to_string(s) + " of " + name_ +
                                   " is not bound there: bind it with a weight read or a "
                                   "match_cast before its first use");
    defined_.insert(v.get());
  }

  StagePlan& plan_;
  DiagnosticList* errors_;
  std::string name_;
  std::unordered_set<const TirVarNode*> dispatcher_;
  std::unordered_map<const TirVarNode*, CastSite> cast_sites_;
  std::unordered_set<const TirVarNode*> defined_;     // bound so far in the current stage
  std::vector<std::vector<BindingSymbols>> symbols_;  // [stage][binding]
};

}  // namespace

BindingSymbols CollectBindingSymbols(const ir::Binding& binding) {
  BindingSymbols out;
  SymbolCollector uses(&out.uses);
  CollectFlat(binding->value(), &uses, &out.uses);
  if (const auto* mc = ir::As<ir::MatchCastNode>(binding)) {
    out.cast_targets = SymbolsOf(mc->struct_info());
  } else {
    for (const TirVar& v : SymbolsOf(binding->var()->struct_info())) out.uses.push_back(v);
  }
  return out;
}

void PlanSymbols(StagePlan& plan, DiagnosticList* errors,
                 std::vector<std::vector<BindingSymbols>> symbols) {
  SymbolPlanner(plan, errors).Run(std::move(symbols));
}

}  // namespace pipesplit::transform
