// Pass `auto-pipeline-stages{stages=S,memory=...,bandwidth=...,assume=n:2048,replace=...}`:
// places the stage boundaries of unmarked pipeline-parallel functions automatically, so that
// `auto-pipeline-stages{stages=4},pipeline-parallel-rewrite` splits an unmarked module. The
// cost model and the partitioner are in analysis (cost_model.h, auto_partition.h); the
// partition is left in the PassContext (analysis::PartitionResult) for `opt --stage-report`.
//
// Preconditions: each function to partition (`funcs`; by default the functions taking
// `packed_params` last that carry `pipeline_parallel_stages`, as MLC marks the ones it splits,
// or every function taking `packed_params` last when none does) has `num_input` and a body of
// one dataflow block and a returned var; it has no stage boundaries unless replace=true. The
// functions read the same weights.
// Steps:
//  1. check each function; with replace=true remove its boundaries (and their unpacking), the
//     uses of boundary vars going back to the values they carry;
//  2. move every weight read (`w = packed_params[i]`) to just before its first use, so that no
//     weight crosses a cut and each stage reads the weights it uses;
//  3. profile every function (symbolic dims at `assume`, `tir_var_upper_bound`, else, for the
//     vars the function declares `tir_non_negative_var` such as MLC's vocab_size, at 1: the
//     module says nothing more of them, and a bound guessed larger would be as arbitrary, so
//     such tensors are costed by their other dims; any other unbound var is a located error);
//  4. find the transformer layers (auto_pipeline_layers.h: weights named `layers_<l>_` /
//     `layers.<l>.`); when the weights name layers, only the cuts between layers remain cut
//     points, in every function, and S may not exceed the number of layers L; without layers
//     every cut point of the cost model stays;
//  5. partition the functions jointly (exact, see auto_partition.h): a common cut reads the
//     same weights before it in every function, so all cut functions split the same layers;
//  6. insert a boundary at each cut, carrying the values live across it (a tuple boundary
//     unpacked field by field when there are several), later uses renamed to what it carries;
//  7. set `pipeline_parallel_stages = S`; with layers, set the layer partition
//     [0, l_1, ..., L] (l_g the first layer of stage g) as the second shape argument of
//     `vm.builtin.paged_attention_kv_cache_create`, so each group's cache holds its own layers.
#include <cmath>
#include <optional>
#include <stdexcept>
#include <unordered_set>

#include "pipesplit/analysis/auto_partition.h"
#include "pipesplit/ir/attr_names.h"
#include "pipesplit/ir/functor.h"
#include "pipesplit/ir/name_supply.h"
#include "pipesplit/ir/protocol.h"
#include "pipesplit/support/diagnostic.h"
#include "pipesplit/support/quantity.h"
#include "src/transform/auto_pipeline_layers.h"
#include "src/transform/passes.h"

namespace pipesplit::transform {
namespace {

using ir::Binding;
using ir::Var;

// Rewrites uses through a remap the pass fills as it goes.
class Renamer : public ir::ExprMutator {
 public:
  void Remap(const ir::VarNode* from, const Var& to) { var_remap_[from] = to; }
  Var Current(const Var& v) const {
    auto it = var_remap_.find(v.get());
    return it == var_remap_.end() ? v : it->second;
  }
};

const ir::CallNode* BoundaryCall(const Binding& b) {
  return ir::IsExternCall(b->value(), ir::protocol::kCallPurePacked, ir::protocol::kStageBoundary);
}

ir::Function Rebuild(const ir::Function& func, std::vector<Binding> bindings, ir::Expr result,
                     ir::AttrMap attrs) {
  const auto* seq = ir::As<ir::SeqExprNode>(func->body());
  auto block = ir::Make<ir::BindingBlockNode>(std::move(bindings), true, seq->blocks()[0]->span());
  auto body = ir::Make<ir::SeqExprNode>(std::vector<ir::BindingBlock>{block}, std::move(result),
                                        seq->struct_info(), seq->span());
  return ir::Make<ir::FunctionNode>(func->params(), body, func->ret_struct_info(), func->is_pure(),
                                    std::move(attrs), func->span());
}

class AutoPipelineStagesPass : public Pass {
 public:
  AutoPipelineStagesPass(analysis::PartitionOptions options, bool replace,
                         std::vector<std::string> funcs, Span span)
      : options_(std::move(options)), replace_(replace), funcs_(std::move(funcs)), span_(span) {}

  std::string name() const override { return "auto-pipeline-stages"; }

  ir::IRModule Run(const ir::IRModule& mod, PassContext& ctx) const override {
    std::vector<const ir::IRModule::Member*> members = Select(mod);
    std::vector<analysis::FunctionProfile> profiles;
    ir::IRModule staged = mod;
    for (const ir::IRModule::Member* member : members) {
      ir::Function func = SinkWeightReads(Check(*member));
      staged.Update(member->gvar, func);
      profiles.push_back(analysis::ProfileFunction(staged, member->gvar, func, options_));
      if (profiles.back().weight_bytes != profiles.front().weight_bytes) {
        ThrowError(span_, "auto-pipeline-stages: '" + member->gvar->name_hint() + "' and '" +
                              profiles.front().gvar->name_hint() +
                              "' read different packed_params and cannot share a partition "
                              "(partition them separately with funcs=)");
      }
    }
    std::vector<LayerCuts> layers = RestrictToLayers(profiles);
    analysis::PartitionResult result;
    try {
      result = analysis::PartitionFunctions(profiles, options_);
    } catch (const std::invalid_argument& e) {
      ThrowError(span_, std::string("auto-pipeline-stages: ") + e.what());
    }
    ir::IRModule out = mod;
    for (size_t f = 0; f < profiles.size(); ++f) {
      out.Update(profiles[f].gvar, InsertBoundaries(profiles[f], result.cuts[f]));
    }
    if (!layers.empty())
      out = SetKvCacheLayerPartition(out, LayerPartition(profiles, layers, result));
    ctx.Set(result);
    return out;
  }

 private:
  std::vector<const ir::IRModule::Member*> Select(const ir::IRModule& mod) const {
    std::vector<const ir::IRModule::Member*> out;
    if (!funcs_.empty()) {
      for (const std::string& name : funcs_) {
        const ir::IRModule::Member* m = mod.Find(name);
        if (m == nullptr || !ir::Cast<ir::FunctionNode>(m->func)) {
          ThrowError(span_,
                     "auto-pipeline-stages: the module has no Relax function named '" + name + "'");
        }
        out.push_back(m);
      }
      return out;
    }
    std::vector<const ir::IRModule::Member*> marked;
    for (const auto& m : mod.members()) {
      auto func = ir::Cast<ir::FunctionNode>(m.func);
      if (func && !func->params().empty() &&
          func->params().back()->name_hint() == ir::protocol::kPackedParams) {
        out.push_back(&m);
        if (func->GetAttr(ir::attr::kPipelineParallelStages) != nullptr) marked.push_back(&m);
      }
    }
    if (!marked.empty()) return marked;
    if (out.empty()) {
      ThrowError(span_,
                 "auto-pipeline-stages: no function to partition (none has a 'packed_params' "
                 "parameter; name them with funcs=)");
    }
    return out;
  }

  // Step 4: the layer boundaries of each function (empty when the weights name no layer), the
  // other cut points dropped.
  std::vector<LayerCuts> RestrictToLayers(std::vector<analysis::FunctionProfile>& profiles) const {
    std::vector<LayerCuts> layers;
    int num_layers = 0;
    size_t widest = 0;
    for (size_t f = 0; f < profiles.size(); ++f) {
      layers.push_back(FindLayerCuts(profiles[f]));
      if (layers[f].num_layers > num_layers) {
        num_layers = layers[f].num_layers;
        widest = f;
      }
    }
    if (num_layers == 0) return {};
    for (size_t f = 0; f < profiles.size(); ++f) {
      if (layers[f].num_layers == 0) {
        ThrowError(profiles[f].func->span(), "auto-pipeline-stages: function '" +
                                                 profiles[f].gvar->name_hint() +
                                                 "' reads no transformer layer's weights while '" +
                                                 profiles[widest].gvar->name_hint() + "' reads " +
                                                 std::to_string(num_layers) +
                                                 " layers; name the functions to cut with funcs=");
      }
    }
    if (options_.stages > num_layers) {
      ThrowError(span_, "auto-pipeline-stages: cannot make " + std::to_string(options_.stages) +
                            " stages of a model with " + std::to_string(num_layers) +
                            " transformer layer" + (num_layers == 1 ? "" : "s") +
                            " (stages are cut only between layers)");
    }
    for (size_t f = 0; f < profiles.size(); ++f) {
      for (size_t c = 0; c < profiles[f].cut_point.size(); ++c) {
        if (layers[f].layer_after[c] < 0) profiles[f].cut_point[c] = false;
      }
    }
    for (LayerCuts& l : layers) l.num_layers = num_layers;
    return layers;
  }

  // Step 7: [0, l_1, ..., L], the same in every function.
  static std::vector<int64_t> LayerPartition(const std::vector<analysis::FunctionProfile>& profiles,
                                             const std::vector<LayerCuts>& layers,
                                             const analysis::PartitionResult& result) {
    std::vector<int64_t> partition{0};
    for (int cut : result.cuts[0]) partition.push_back(layers[0].layer_after[cut] + 1);
    partition.push_back(layers[0].num_layers);
    for (size_t f = 1; f < profiles.size(); ++f) {
      for (size_t k = 0; k < result.cuts[f].size(); ++k) {
        if (layers[f].layer_after[result.cuts[f][k]] + 1 != partition[k + 1]) {
          ThrowError(profiles[f].func->span(),
                     "auto-pipeline-stages: '" + profiles[f].gvar->name_hint() +
                         "' would be cut after layer " +
                         std::to_string(layers[f].layer_after[result.cuts[f][k]]) + " where '" +
                         profiles[0].gvar->name_hint() + "' is cut after layer " +
                         std::to_string(partition[k + 1] - 1) +
                         "; the functions must split the same layers (name them with funcs=)");
        }
      }
    }
    return partition;
  }

  // Step 1.
  ir::Function Check(const ir::IRModule::Member& member) const {
    auto func = ir::Cast<ir::FunctionNode>(member.func);
    const std::string name = member.gvar->name_hint();
    auto fail = [&](Span span, const std::string& what) {
      ThrowError(span, "auto-pipeline-stages: function '" + name + "' " + what);
    };
    if (func->GetAttr(ir::attr::kNumInput) == nullptr) fail(func->span(), "has no num_input");
    if (func->params().empty() ||
        func->params().back()->name_hint() != ir::protocol::kPackedParams) {
      fail(func->span(), "does not take 'packed_params' last");
    }
    const auto* seq = ir::As<ir::SeqExprNode>(func->body());
    if (seq == nullptr || seq->blocks().size() != 1 || !seq->blocks()[0]->is_dataflow() ||
        ir::As<ir::VarNode>(seq->body()) == nullptr) {
      fail(func->span(), "is not one dataflow block followed by 'return <var>'");
    }
    Renamer renamer;
    std::unordered_map<const ir::VarNode*, const ir::CallNode*> tuples;
    std::vector<Binding> kept;
    bool had_markers = false;
    for (const Binding& b : seq->blocks()[0]->bindings()) {
      if (const ir::CallNode* call = BoundaryCall(b)) {
        if (!replace_) {
          fail(b->span(), "already has stage boundary '" + b->var()->name_hint() +
                              "' (use replace=true to place them anew)");
        }
        had_markers = true;
        if (call->args().size() == 2) {
          if (auto v = ir::Cast<ir::VarNode>(call->args()[1])) {
            renamer.Remap(b->var().get(), renamer.Current(v));
          }
        } else {
          tuples[b->var().get()] = call;
        }
        continue;
      }
      if (const auto* get = ir::As<ir::TupleGetItemNode>(b->value())) {
        auto it = tuples.find(ir::As<ir::VarNode>(get->tuple()));
        if (it != tuples.end() && get->index() + 1 < static_cast<int>(it->second->args().size())) {
          if (auto v = ir::Cast<ir::VarNode>(it->second->args()[get->index() + 1])) {
            renamer.Remap(b->var().get(), renamer.Current(v));
          }
          continue;
        }
      }
      kept.push_back(renamer.VisitBinding(b));
    }
    if (!had_markers) return func;
    return Rebuild(func, std::move(kept), renamer.VisitExpr(seq->body()),
                   ir::WithAttr(func->attrs(), ir::attr::kPipelineParallelStages, int64_t{1}));
  }

  // Step 2.
  static ir::Function SinkWeightReads(const ir::Function& func) {
    const auto* seq = ir::As<ir::SeqExprNode>(func->body());
    const ir::VarNode* packed = func->params().back().get();
    const std::vector<Binding>& bindings = seq->blocks()[0]->bindings();
    std::unordered_map<const ir::VarNode*, Binding> pending;  // weight reads not yet placed
    std::vector<Binding> out;
    struct Uses : ir::ExprVisitor {
      std::vector<const ir::VarNode*> vars;
      void VisitExpr_(const ir::VarNode& v) override { vars.push_back(&v); }
    };
    for (const Binding& b : bindings) {
      const auto* get = ir::As<ir::TupleGetItemNode>(b->value());
      if (get != nullptr && get->tuple().get() == packed) {
        pending[b->var().get()] = b;
        continue;
      }
      Uses uses;
      uses.VisitExpr(b->value());
      for (const ir::VarNode* v : uses.vars) {
        auto it = pending.find(v);
        if (it == pending.end()) continue;
        out.push_back(it->second);
        pending.erase(it);
      }
      out.push_back(b);
    }
    // Reads never used (or only returned) stay at the end, in their original order.
    for (const Binding& b : bindings) {
      if (pending.count(b->var().get())) out.push_back(b);
    }
    return Rebuild(func, std::move(out), seq->body(), func->attrs());
  }

  // Steps 6 and 7 (the attribute).
  ir::Function InsertBoundaries(const analysis::FunctionProfile& p,
                                const std::vector<int>& cuts) const {
    const auto* seq = ir::As<ir::SeqExprNode>(p.func->body());
    ir::NameSupply names;
    for (const Var& param : p.func->params()) names.Reserve(param->name_hint());
    for (const Binding& b : p.bindings) names.Reserve(b->var()->name_hint());
    Renamer renamer;
    std::vector<Binding> out;
    size_t next_cut = 0;
    for (size_t i = 0; i < p.size(); ++i) {
      out.push_back(renamer.VisitBinding(p.bindings[i]));
      if (next_cut >= cuts.size() || cuts[next_cut] != static_cast<int>(i) + 1) continue;
      std::vector<Var> crossing = p.CrossingValues(cuts[next_cut]);
      ++next_cut;
      std::vector<ir::Expr> args;
      std::vector<ir::StructInfo> fields;
      for (const Var& v : crossing) {
        args.push_back(renamer.Current(v));
        fields.push_back(v->struct_info());
      }
      ir::StructInfo sinfo = crossing.size() == 1 ? fields[0] : ir::TupleSInfo(fields);
      ir::Expr call = ir::MakeExternCall(ir::protocol::kCallPurePacked,
                                         ir::protocol::kStageBoundary, args, {sinfo}, sinfo);
      std::string base = "stage" + std::to_string(next_cut) + "_in";
      if (crossing.size() == 1) {
        Var b =
            ir::MakeVar(names.FreshName(crossing[0]->name_hint() + "_s" + std::to_string(next_cut)),
                        sinfo, crossing[0]->is_dataflow());
        out.push_back(ir::Make<ir::VarBindingNode>(b, call));
        renamer.Remap(crossing[0].get(), b);
        continue;
      }
      Var tuple = ir::MakeVar(names.FreshName(base), sinfo, true);
      out.push_back(ir::Make<ir::VarBindingNode>(tuple, call));
      for (size_t k = 0; k < crossing.size(); ++k) {
        Var field =
            ir::MakeVar(names.FreshName(crossing[k]->name_hint() + "_s" + std::to_string(next_cut)),
                        fields[k], crossing[k]->is_dataflow());
        out.push_back(ir::Make<ir::VarBindingNode>(
            field, ir::Make<ir::TupleGetItemNode>(tuple, static_cast<int>(k), fields[k])));
        renamer.Remap(crossing[k].get(), field);
      }
    }
    return Rebuild(
        p.func, std::move(out), renamer.VisitExpr(seq->body()),
        ir::WithAttr(p.func->attrs(), ir::attr::kPipelineParallelStages, int64_t{options_.stages}));
  }

  analysis::PartitionOptions options_;
  bool replace_;
  std::vector<std::string> funcs_;
  Span span_;
};

// "25e9", "24GB", "1.5GiB", "512MB": a positive quantity with an optional decimal (k, M, G, T)
// or binary (Ki, Mi, Gi, Ti) prefix and an optional unit ("B", "B/s", "FLOP/s").
double ParseQuantity(const PassOptions& options, const std::string& key, double fallback) {
  if (!options.Has(key)) return fallback;
  std::string text = options.GetString(key);
  std::optional<double> value = pipesplit::ParseQuantity(text, {"B", "B/s", "FLOP/s"});
  if (!value) {
    ThrowError(options.SpanOf(key), "auto-pipeline-stages: option '" + key +
                                        "' expects a positive quantity such as 24GB, 1.5GiB or "
                                        "25e9, got '" +
                                        text + "'");
  }
  return *value;
}

}  // namespace

PassInfo AutoPipelineStagesPassInfo() {
  using T = PassOptionSpec::Type;
  return {
      "auto-pipeline-stages",
      "place stage boundaries automatically (balanced, exact) and set "
      "pipeline_parallel_stages",
      {{"stages", T::kInt, "number of pipeline stages (>= 2)", true},
       {"memory", T::kString, "memory limit per group: weights + activations (24GB, 1.5GiB)",
        false},
       {"bandwidth", T::kString, "bytes/s between groups (default 25GB)", false},
       {"compute", T::kString, "FLOP/s of a group (default 100T)", false},
       {"memory-bandwidth", T::kString, "bytes/s of a group's memory (default 1TB)", false},
       {"assume", T::kStringList, "bounds of symbolic vars, e.g. n:2048;m:128", false},
       {"max-crossing", T::kInt, "at most this many values cross a boundary (default 4)", false},
       {"replace", T::kBool, "replace existing stage boundaries (default false)", false},
       {"funcs", T::kStringList,
        "functions to partition jointly (default: those taking packed_params that carry "
        "pipeline_parallel_stages, else all taking packed_params)",
        false}},
      [](const PassOptions& options) -> std::unique_ptr<Pass> {
        analysis::PartitionOptions o;
        int64_t stages = options.GetInt("stages");
        if (stages < 2) {
          ThrowError(
              options.SpanOf("stages"),
              "auto-pipeline-stages: stages must be at least 2, got " + std::to_string(stages));
        }
        o.stages = static_cast<int>(stages);
        if (options.Has("memory")) {
          o.memory_limit = static_cast<int64_t>(ParseQuantity(options, "memory", 0));
        }
        o.bandwidth = ParseQuantity(options, "bandwidth", o.bandwidth);
        o.compute_rate = ParseQuantity(options, "compute", o.compute_rate);
        o.memory_rate = ParseQuantity(options, "memory-bandwidth", o.memory_rate);
        o.max_crossing = static_cast<int>(options.GetInt("max-crossing", o.max_crossing));
        if (o.max_crossing < 1) {
          ThrowError(options.SpanOf("max-crossing"),
                     "auto-pipeline-stages: max-crossing must be at least 1");
        }
        for (const std::string& item : options.GetStringList("assume")) {
          size_t colon = item.find(':');
          int64_t value = 0;
          bool ok = colon != std::string::npos && colon > 0;
          if (ok) {
            try {
              size_t used = 0;
              value = std::stoll(item.substr(colon + 1), &used);
              ok = used == item.size() - colon - 1 && value > 0;
            } catch (const std::exception&) {
              ok = false;
            }
          }
          if (!ok) {
            ThrowError(options.SpanOf("assume"),
                       "auto-pipeline-stages: assume expects var:value entries with a "
                       "positive value (n:2048), got '" +
                           item + "'");
          }
          o.assume[item.substr(0, colon)] = value;
        }
        return std::make_unique<AutoPipelineStagesPass>(
            o, options.GetBool("replace"), options.GetStringList("funcs"), options.pass_span());
      }};
}

}  // namespace pipesplit::transform
