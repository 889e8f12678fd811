// BuildStagePlan: checks a function marked for pipeline parallelism and decides what each
// stage gets. The rewrite (pipeline_parallel_rewrite.cc) only executes the plan.
//
// Preconditions: the module is well-formed (vars defined before use).
// Steps:
//  1. Read the attributes: pipeline_parallel_stages (N), num_input; check the signature
//     (num_input + 1 params, the last named packed_params).
//  2. Find misplaced stage boundaries (outside the dataflow block, inside nested functions
//     or branches) and check the body shape (one dataflow block, then `return <var>`).
//  3. Cut the block at the N - 1 boundaries: each binding goes to its stage; boundary vars
//     and unpacked tuple fields become aliases of the values they carry.
//  4. Value flow: every use in stage s of a value defined in an earlier stage is made
//     available in s: through the boundary that passes it, else forwarded through every
//     boundary in between (the uses are collected for the stages side by side, then
//     resolved in binding order). Parameters are passed by the caller (in their original
//     order, or by first use as MLC's rewrite orders them: StagePlanOptions); weights are
//     read from packed_params.
//  5. Symbolic vars: each stage gets from its caller (`s`) the symbolic vars the dispatcher
//     has (those of the non-weight parameters); vars born inside an earlier stage are
//     re-derived from a received tensor (received with unknown dims, then match_cast),
//     forwarding a tensor that carries them if needed; vars of weight types are bound by
//     the weight read (R.Object + match_cast).
// Every problem found is reported (all of them, not just the first) with the function and
// binding at fault.
#include "pipesplit/transform/pipeline_stage_plan.h"

#include <algorithm>
#include <unordered_map>

#include "absl/container/flat_hash_map.h"
#include "pipesplit/ir/attr_names.h"
#include "pipesplit/ir/flat_expr.h"
#include "pipesplit/ir/functor.h"
#include "pipesplit/ir/protocol.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/check.h"
#include "pipesplit/support/diagnostic.h"
#include "pipesplit/support/thread_pool.h"
#include "src/transform/pipeline_symbols.h"

namespace pipesplit::transform {

using ir::As;
using ir::Binding;
using ir::Var;

namespace {

bool IsBoundaryCall(const ir::Expr& value) {
  // Most bindings are calls whose first argument is no extern function (call_tir's is a
  // GlobalVar): two compares instead of the name compares.
  const auto* call = As<ir::CallNode>(value);
  if (call == nullptr || call->args().empty() ||
      call->args()[0]->kind() != ir::NodeKind::kExternFunc) {
    return false;
  }
  return ir::IsExternCall(*call, ir::protocol::kCallPurePacked, ir::protocol::kStageBoundary);
}

// The vars `e` uses, in order of appearance, appended to `out` as raw pointers (the nodes are
// owned by the function being planned). Flat expressions (vars, leaves, prim values, shapes,
// tuples, calls) are walked by ir::ForEachFlat; nested functions and branches by a visitor, in
// the same order.
void CollectVarUses(const ir::Expr& e, std::vector<const ir::VarNode*>* out) {
  struct Flat {
    std::vector<const ir::VarNode*>* out;
    void OnVar(const ir::VarNode& var) { out->push_back(&var); }
    void OnPrims(const ir::Expr&) {}  // symbolic vars only, never a Var
    void AfterCall(const ir::CallNode&) {}
    void OnNested(const ir::Expr& e) {
      struct Collector : ir::ExprVisitor {
        std::vector<const ir::VarNode*>* out;
        void VisitExpr_(const ir::VarNode& var) override { out->push_back(&var); }
        // Struct info mentions symbolic vars only, never a Var.
        void VisitStructInfo(const ir::StructInfo&) override {}
      };
      Collector collector;
      collector.out = out;
      collector.VisitExpr(e);
    }
  };
  Flat flat{out};
  ir::ForEachFlat(e, flat);
}

std::string Quote(const std::string& name) { return "'" + name + "'"; }

class PlanBuilder {
 public:
  PlanBuilder(const ir::GlobalVar& gvar, const ir::Function& func, const StagePlanOptions& options)
      : options_(options) {
    plan_.gvar = gvar;
    plan_.func = func;
    name_ = Quote(gvar->name_hint());
  }

  std::optional<StagePlan> Build() {
    const ir::AttrValue* stages_attr = plan_.func->GetAttr(ir::attr::kPipelineParallelStages);
    if (stages_attr == nullptr) return std::nullopt;
    std::optional<int64_t> stages = stages_attr->ToInt();
    if (!stages || *stages < 1) {
      ThrowError(plan_.func->span(),
                 "pipeline_parallel_stages of " + name_ + " must be a positive integer");
    }
    if (*stages == 1) return std::nullopt;
    if (*stages > 4096) {
      ThrowError(plan_.func->span(), "pipeline_parallel_stages of " + name_ + " is " +
                                         std::to_string(*stages) + ", more than 4096");
    }
    plan_.num_stages = static_cast<int>(*stages);
    CheckSignature();
    FindMisplacedBoundaries(plan_.func->body(), /*top_level=*/true);
    errors_.ThrowIfAny();
    CutStages();
    errors_.ThrowIfAny();
    FlowValues();
    errors_.ThrowIfAny();
    PlanSymbols(plan_, &errors_, std::move(binding_symbols_));
    errors_.ThrowIfAny();
    return std::move(plan_);
  }

 private:
  // Step 1.
  void CheckSignature() {
    const ir::Function& func = plan_.func;
    const ir::AttrValue* num_input = func->GetAttr(ir::attr::kNumInput);
    if (num_input == nullptr) {
      errors_.Error(func->span(), name_ + " is marked for " + std::to_string(plan_.num_stages) +
                                      " pipeline stages but has no 'num_input' attribute");
      return;
    }
    std::optional<int64_t> k = num_input->ToInt();
    if (!k || *k < 0) {
      errors_.Error(func->span(), "'num_input' of " + name_ + " must be a non-negative integer");
      return;
    }
    plan_.num_input = *k;
    size_t expected = static_cast<size_t>(*k) + 1;
    if (func->params().size() != expected) {
      errors_.Error(func->span(), name_ + " has " + std::to_string(func->params().size()) +
                                      " parameters but num_input is " + std::to_string(*k) +
                                      ": expected the inputs followed by one 'packed_params'");
      return;
    }
    const Var& last = func->params().back();
    if (last->name_hint() != ir::protocol::kPackedParams) {
      errors_.Error(last->span(), "the last parameter of " + name_ +
                                      " must be 'packed_params', found " +
                                      Quote(last->name_hint()));
      return;
    }
    plan_.packed_params = last;
  }

  // Step 2: boundaries anywhere but the top level of the dataflow block are errors.
  void FindMisplacedBoundaries(const ir::Expr& expr, bool top_level) {
    const auto* seq = As<ir::SeqExprNode>(expr);
    if (seq == nullptr) return;
    for (const ir::BindingBlock& block : seq->blocks()) {
      for (const Binding& binding : block->bindings()) {
        const ir::Expr& value = binding->value();
        if (IsBoundaryCall(value)) {
          if (!top_level) {
            errors_.Error(binding->span(), "stage boundary " + Quote(binding->var()->name_hint()) +
                                               " in " + name_ +
                                               " is nested inside a function or a branch");
          } else if (!block->is_dataflow()) {
            errors_.Error(binding->span(), "stage boundary " + Quote(binding->var()->name_hint()) +
                                               " is outside the dataflow block of " + name_);
          }
        }
        if (const auto* if_node = As<ir::IfNode>(value)) {
          FindMisplacedBoundaries(if_node->true_branch(), false);
          FindMisplacedBoundaries(if_node->false_branch(), false);
        } else if (const auto* inner = As<ir::FunctionNode>(value)) {
          FindMisplacedBoundaries(inner->body(), false);
        }
      }
    }
  }

  // Step 3.
  void CutStages() {
    const ir::Function& func = plan_.func;
    const auto* seq = As<ir::SeqExprNode>(func->body());
    if (seq == nullptr || seq->blocks().size() != 1 || !seq->blocks()[0]->is_dataflow()) {
      // Point at the first block that breaks the rule.
      Span at = func->span();
      if (seq != nullptr && !seq->blocks().empty()) {
        const ir::BindingBlock& bad =
            seq->blocks()[0]->is_dataflow() ? seq->blocks()[1] : seq->blocks()[0];
        at = bad->bindings().empty() ? bad->span() : bad->bindings()[0]->span();
      }
      errors_.Error(
          at, "the body of " + name_ + " must be a single dataflow block followed by 'return'");
      return;
    }
    const auto* result = As<ir::VarNode>(seq->body());
    if (result == nullptr) {
      errors_.Error(seq->body()->span(), name_ + " must return a variable");
      return;
    }
    plan_.result = ir::Cast<ir::VarNode>(seq->body());

    const ir::BindingBlock& block = seq->blocks()[0];
    vars_.reserve(block->bindings().size() + func->params().size());
    plan_.stages.resize(1);
    // Tuple boundaries (m > 1) whose fields must be unpacked: var -> (binding, unpacked?).
    struct TupleBoundary {
      Binding binding;
      std::vector<bool> unpacked;
    };
    std::unordered_map<const ir::VarNode*, TupleBoundary> tuple_boundaries;
    std::vector<Binding> boundaries;

    for (const Binding& binding : block->bindings()) {
      const ir::Expr& value = binding->value();
      if (IsBoundaryCall(value)) {
        const auto& call = static_cast<const ir::CallNode&>(*value);
        std::vector<Var> sent;
        if (call.args().size() < 2) {
          errors_.Error(binding->span(), "stage boundary " + Quote(binding->var()->name_hint()) +
                                             " in " + name_ + " passes no value");
        }
        for (size_t i = 1; i < call.args().size(); ++i) {
          auto arg = ir::Cast<ir::VarNode>(call.args()[i]);
          if (!arg) {
            errors_.Error(call.args()[i]->span().valid() ? call.args()[i]->span() : binding->span(),
                          "argument " + std::to_string(i) + " of stage boundary " +
                              Quote(binding->var()->name_hint()) + " in " + name_ +
                              " is not a variable: '" + script::PrintExpr(call.args()[i]) + "'");
            continue;
          }
          sent.push_back(arg);
          // The boundary's declared type of this value (its struct info, or the field of its
          // tuple) is what the next stage receives: it must describe the value passed.
          ir::StructInfo declared = binding->var()->struct_info();
          if (call.args().size() > 2) {
            const auto* tuple = ir::As<ir::TupleSInfoNode>(declared);
            declared = tuple != nullptr && i - 1 < tuple->fields().size() ? tuple->fields()[i - 1]
                                                                          : nullptr;
          }
          if (declared && arg->struct_info() && !ir::IsBaseOf(declared, arg->struct_info()) &&
              !ir::IsBaseOf(arg->struct_info(), declared)) {
            Diagnostic& d = errors_.Error(
                binding->span(), "stage boundary " + Quote(binding->var()->name_hint()) + " in " +
                                     name_ + " declares value " + std::to_string(i) + " as " +
                                     script::PrintStructInfo(declared) + " but passes " +
                                     Quote(arg->name_hint()) + " of type " +
                                     script::PrintStructInfo(arg->struct_info()));
            if (arg->span().valid())
              d.AddNote(arg->span(), Quote(arg->name_hint()) + " is defined here");
          }
        }
        if (plan_.stages.back().bindings.empty()) {
          errors_.Error(binding->span(), "stage " + std::to_string(plan_.stages.size() - 1) +
                                             " of " + name_ +
                                             " is empty: nothing before stage boundary " +
                                             Quote(binding->var()->name_hint()));
        }
        boundaries.push_back(binding);
        plan_.boundaries.push_back(binding);
        std::vector<Transfer> transfers;
        if (sent.size() == 1 && call.args().size() == 2) {
          plan_.aliases[binding->var().get()] = sent[0];
          transfers.push_back({sent[0], binding->var(), false, false});
        } else {
          tuple_boundaries[binding->var().get()] = {binding, std::vector<bool>(sent.size())};
          for (const Var& v : sent) transfers.push_back({v, nullptr, false, false});
        }
        plan_.transfers.push_back(std::move(transfers));
        plan_.stages.emplace_back();
        plan_.stages.back().index = static_cast<int>(plan_.stages.size() - 1);
        continue;
      }
      if (const auto* item = As<ir::TupleGetItemNode>(value)) {
        const auto* tuple_var = As<ir::VarNode>(item->tuple());
        auto it = tuple_var ? tuple_boundaries.find(tuple_var) : tuple_boundaries.end();
        if (it != tuple_boundaries.end()) {
          size_t k = static_cast<size_t>(
              std::find(boundaries.begin(), boundaries.end(), it->second.binding) -
              boundaries.begin());
          int index = item->index();
          if (index < 0 || static_cast<size_t>(index) >= it->second.unpacked.size()) {
            errors_.Error(binding->span(), "stage boundary " + Quote(tuple_var->name_hint()) +
                                               " has no field " + std::to_string(index));
            continue;
          }
          Transfer& transfer = plan_.transfers[k][index];
          plan_.aliases[binding->var().get()] = transfer.value;
          if (!transfer.receiver) transfer.receiver = binding->var();
          it->second.unpacked[index] = true;
          continue;
        }
      }
      plan_.stages.back().bindings.push_back(binding);
      vars_[binding->var().get()].def = {static_cast<int>(plan_.stages.size() - 1),
                                         &binding->var()};
    }

    int found = static_cast<int>(boundaries.size());
    if (found != plan_.num_stages - 1) {
      // Too many: point at the first one too many; too few: at the function.
      Diagnostic& d = errors_.Error(
          found > plan_.num_stages - 1 ? boundaries[plan_.num_stages - 1]->span() : func->span(),
          name_ + " is marked for " + std::to_string(plan_.num_stages) +
              " pipeline stages but has " + std::to_string(found) + " stage boundar" +
              (found == 1 ? "y" : "ies") + "; expected " + std::to_string(plan_.num_stages - 1));
      for (const Binding& b : boundaries) d.AddNote(b->span(), "stage boundary here");
      return;
    }
    if (plan_.stages.back().bindings.empty()) {
      errors_.Error(boundaries.back()->span(), "stage " + std::to_string(plan_.stages.size() - 1) +
                                                   " of " + name_ +
                                                   " is empty: nothing after stage boundary " +
                                                   Quote(boundaries.back()->var()->name_hint()));
    }
    for (const auto& [var, tuple] : tuple_boundaries) {
      for (size_t i = 0; i < tuple.unpacked.size(); ++i) {
        if (!tuple.unpacked[i]) {
          errors_.Error(tuple.binding->span(),
                        "field " + std::to_string(i) + " of stage boundary " +
                            Quote(var->name_hint()) + " in " + name_ + " is never unpacked (" +
                            var->name_hint() + "[" + std::to_string(i) + "])");
        }
      }
      vars_[var].tuple_boundary = true;
    }
    for (const auto& [alias, value] : plan_.aliases) vars_[alias].alias_of = &value;
  }

  // Step 4.
  void FlowValues() {
    const ir::Function& func = plan_.func;
    const size_t num_params = func->params().size() - 1;  // packed_params excluded
    for (size_t i = 0; i < num_params; ++i) {
      vars_[func->params()[i].get()].param = static_cast<int>(i);
    }
    // params_used[s][i]: stage s uses parameter i.
    std::vector<std::vector<bool>> params_used(plan_.stages.size(), std::vector<bool>(num_params));
    first_use_.assign(plan_.stages.size(), {});
    // The var uses of each stage's bindings, collected side by side (each walk only reads its
    // binding), then required in binding order: the same plan for every thread count.
    std::vector<StageUses> stage_uses(plan_.stages.size());
    // The symbols of each binding (step 5) are collected in the same walk, while the binding
    // is in the cache.
    binding_symbols_.resize(plan_.stages.size());
    support::CompileParallelFor(static_cast<int64_t>(plan_.stages.size()), [&](int64_t s) {
      CollectStageUses(plan_.stages[s], &stage_uses[s], &binding_symbols_[s]);
    });

    for (Stage& stage : plan_.stages) {
      int s = stage.index;
      const StageUses& uses = stage_uses[s];
      for (size_t i = 0; i < stage.bindings.size(); ++i) {
        const Binding& binding = stage.bindings[i];
        if (uses.is_weight[i]) {
          stage.weights.push_back(uses.weight_index[i]);
          continue;
        }
        for (uint32_t k = uses.begin[i]; k < uses.begin[i + 1]; ++k) {
          Require(uses.vars[k], s, binding, &params_used[s]);
        }
      }
      if (s + 1 < plan_.num_stages) {
        // Index loop: Require may append forwarded transfers (which it then finds carried).
        for (size_t i = 0; i < plan_.transfers[s].size(); ++i) {
          const ir::VarNode* value = plan_.transfers[s][i].value.get();
          if (value) Require(value, s, plan_.boundaries[s], &params_used[s]);
        }
      }
    }
    Require(plan_.result.get(), plan_.num_stages - 1, nullptr, &params_used.back());

    for (Stage& stage : plan_.stages) {
      if (options_.param_order == StageParamOrder::kFirstUse) {
        for (int i : first_use_[stage.index]) stage.params.push_back(func->params()[i]);
      } else {
        for (size_t i = 0; i < num_params; ++i) {
          if (params_used[stage.index][i]) stage.params.push_back(func->params()[i]);
        }
      }
      std::sort(stage.weights.begin(), stage.weights.end());
      stage.weights.erase(std::unique(stage.weights.begin(), stage.weights.end()),
                          stage.weights.end());
    }
    // Only tensors travel between groups.
    for (size_t k = 0; k < plan_.transfers.size(); ++k) {
      for (const Transfer& t : plan_.transfers[k]) {
        const Var& shown = t.receiver ? t.receiver : t.value;
        if (!ir::Is<ir::TensorSInfoNode>(shown->struct_info())) {
          errors_.Error(t.forwarded ? shown->span() : plan_.boundaries[k]->span(),
                        Quote(shown->name_hint()) + " cannot be passed from stage " +
                            std::to_string(k) + " to stage " + std::to_string(k + 1) + " of " +
                            name_ + ": only tensors can be sent between groups, its type is " +
                            script::PrintStructInfo(shown->struct_info()));
        }
      }
    }
  }

  // The var uses of a stage's bindings: those of binding i are vars[begin[i], begin[i + 1]);
  // a weight read (is_weight[i]) lists no uses and reads packed_params[weight_index[i]]. The
  // bindings' symbols (CollectBindingSymbols, for step 5) go to `symbols`, in the same walk.
  struct StageUses {
    std::vector<const ir::VarNode*> vars;
    std::vector<uint32_t> begin;
    std::vector<bool> is_weight;
    std::vector<int> weight_index;
  };
  void CollectStageUses(const Stage& stage, StageUses* out,
                        std::vector<BindingSymbols>* symbols) const {
    symbols->reserve(stage.bindings.size());
    out->begin.reserve(stage.bindings.size() + 1);
    out->is_weight.reserve(stage.bindings.size());
    out->weight_index.reserve(stage.bindings.size());
    for (const Binding& binding : stage.bindings) {
      symbols->push_back(CollectBindingSymbols(binding));
      out->begin.push_back(static_cast<uint32_t>(out->vars.size()));
      const auto* item = As<ir::TupleGetItemNode>(binding->value());
      bool weight = item != nullptr && item->tuple() == plan_.packed_params;
      out->is_weight.push_back(weight);
      out->weight_index.push_back(weight ? item->index() : 0);
      if (weight) continue;
      CollectVarUses(binding->value(), &out->vars);
    }
    out->begin.push_back(static_cast<uint32_t>(out->vars.size()));
  }

  StagePlanOptions options_;
  std::vector<std::vector<int>> first_use_;  // per stage: the params it uses, by first use
  // Makes the value `use` stands for available in stage `s`.
  void Require(const ir::VarNode* use, int s, const Binding& at, std::vector<bool>* params_used) {
    const Span& where = at ? at->span() : use->span();
    if (use == plan_.packed_params.get()) {
      errors_.Error(where, "packed_params may only be read as packed_params[i] in " + name_ +
                               ", which is split into stages");
      return;
    }
    const VarFacts* facts = FindVar(use);
    if (facts == nullptr) return;  // defined in a nested scope of the binding
    if (facts->tuple_boundary) {
      errors_.Error(where, "stage boundary tuple " + Quote(use->name_hint()) +
                               " may only be used through " + use->name_hint() + "[i]");
      return;
    }
    while (facts != nullptr && facts->alias_of != nullptr) {  // StagePlan::Resolve
      facts = FindVar(facts->alias_of->get());
    }
    if (facts == nullptr) return;
    if (facts->param >= 0) {
      if (!(*params_used)[facts->param]) first_use_[s].push_back(facts->param);
      (*params_used)[facts->param] = true;
      return;
    }
    if (facts->def.var == nullptr) return;  // defined in a nested scope of the binding
    int t = facts->def.stage;
    if (t > s) {
      errors_.Error(where, Quote(use->name_hint()) + " is used in stage " + std::to_string(s) +
                               " of " + name_ + " before its definition in stage " +
                               std::to_string(t));
      return;
    }
    plan_.ForwardValue(*facts->def.var, t, s);
  }

  // What the plan knows of a var of the function, in one flat lookup per use.
  struct VarFacts {
    struct Def {
      int stage = -1;
      const Var* var = nullptr;     // the binding's own var (owned by the function)
    } def;                          // set for a var bound in a stage
    const Var* alias_of = nullptr;  // set for an alias (StagePlan::aliases)
    int param = -1;                 // set for a parameter other than packed_params
    bool tuple_boundary = false;    // a stage boundary carrying a tuple
  };

  StagePlan plan_;
  std::string name_;
  DiagnosticList errors_;
  const VarFacts* FindVar(const ir::VarNode* var) const {
    auto it = vars_.find(var);
    return it == vars_.end() ? nullptr : &it->second;
  }
  absl::flat_hash_map<const ir::VarNode*, VarFacts> vars_;
  std::vector<std::vector<BindingSymbols>> binding_symbols_;  // [stage][binding], for step 5
};

}  // namespace

std::optional<StagePlan> BuildStagePlan(const ir::GlobalVar& gvar, const ir::Function& func,
                                        const StagePlanOptions& options) {
  return PlanBuilder(gvar, func, options).Build();
}

}  // namespace pipesplit::transform
