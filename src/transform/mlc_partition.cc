// The MLC-LLM partition of a split module: layer_partition and per-parameter stages, read from
// the stage functions themselves (see mlc_partition.h).
#include "pipesplit/transform/mlc_partition.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "pipesplit/ir/functor.h"
#include "pipesplit/ir/protocol.h"
#include "pipesplit/support/diagnostic.h"
#include "src/transform/auto_pipeline_layers.h"

namespace pipesplit::transform {
namespace {

constexpr std::string_view kKvCachePrefix = "vm.builtin.attention_kv_cache_";
// KV caches per layer in the 2023 form (K and V).
constexpr int64_t kCachesPerLayer = 2;

std::string JoinInts(const std::vector<int64_t>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out;
}

// The symbol and the arguments after the callee of a packed call: `R.call_packed(f, a...)`,
// `op(f, a...)` for a packing op, `call_dps_packed(f, (a...))`. nullptr symbol when `call`
// calls no packed function.
const ir::ExternFuncNode* PackedArgs(const ir::CallNode& call, std::vector<ir::Expr>* args) {
  if (const auto* callee = ir::As<ir::ExternFuncNode>(call.op())) {
    *args = call.args();
    return callee;
  }
  const ir::ExternFuncNode* callee = ir::PackedCallee(call);
  if (callee == nullptr) return nullptr;
  args->assign(call.args().begin() + 1, call.args().end());
  if ((call.IsOp(ir::protocol::kCallDpsPacked) || call.IsOp(ir::protocol::kCallBuiltinWithCtx)) &&
      !args->empty()) {
    if (const auto* tuple = ir::As<ir::TupleNode>((*args)[0])) {
      std::vector<ir::Expr> fields = tuple->fields();
      *args = std::move(fields);
    }
  }
  return callee;
}

bool IsKvCacheCall(const ir::ExternFuncNode& callee) {
  const std::string& symbol = callee.global_symbol();
  return symbol.rfind(kKvCachePrefix, 0) == 0 && symbol != ir::protocol::kKvCacheCreate;
}

struct Evidence {
  int64_t layer;
  std::string what;
};

// The layers the KV-cache calls of `func` name (forms 1 and 2 of mlc_partition.h).
std::vector<Evidence> KvCacheLayers(const ir::FunctionNode& func) {
  struct Finder : ir::ExprVisitor {
    std::unordered_set<const ir::VarNode*> params;
    std::unordered_map<const ir::VarNode*, ir::Expr> values;
    std::vector<Evidence> found;

    void VisitBinding(const ir::Binding& binding) override {
      values[binding->var().get()] = binding->value();
      ExprVisitor::VisitBinding(binding);
    }

    // Follows a cache value back to `param[j]`, through the caches KV-cache calls return.
    std::optional<std::pair<const ir::VarNode*, int64_t>> CacheField(ir::Expr expr) const {
      for (int depth = 0; depth < 64 && expr; ++depth) {
        if (const auto* item = ir::As<ir::TupleGetItemNode>(expr)) {
          const auto* tuple = ir::As<ir::VarNode>(item->tuple());
          if (tuple == nullptr || params.count(tuple) == 0) return std::nullopt;
          return std::make_pair(tuple, static_cast<int64_t>(item->index()));
        }
        if (const auto* call = ir::As<ir::CallNode>(expr)) {
          std::vector<ir::Expr> args;
          const ir::ExternFuncNode* callee = PackedArgs(*call, &args);
          if (callee == nullptr || !IsKvCacheCall(*callee) || args.empty()) return std::nullopt;
          expr = args[0];
          continue;
        }
        const auto* var = ir::As<ir::VarNode>(expr);
        auto it = var != nullptr ? values.find(var) : values.end();
        if (it == values.end()) return std::nullopt;
        expr = it->second;
      }
      return std::nullopt;
    }

    void VisitExpr_(const ir::CallNode& call) override {
      std::vector<ir::Expr> args;
      const ir::ExternFuncNode* callee = PackedArgs(call, &args);
      if (callee != nullptr && IsKvCacheCall(*callee) && !args.empty()) {
        const auto* id = args.size() > 1 ? ir::As<ir::PrimValueNode>(args[1]) : nullptr;
        std::optional<int64_t> layer = id != nullptr ? ir::AsConstInt(id->value()) : std::nullopt;
        if (layer) {
          found.push_back(
              {*layer, fmt::format("{} names layer {}", callee->global_symbol(), *layer)});
        } else if (auto field = CacheField(args[0])) {
          found.push_back({field->second / kCachesPerLayer,
                           fmt::format("{} on {}[{}]", callee->global_symbol(),
                                       field->first->name_hint(), field->second)});
        }
      }
      ExprVisitor::VisitExpr_(call);
    }
  } finder;
  for (const ir::Var& p : func.params()) finder.params.insert(p.get());
  finder.VisitExpr(func.body());
  return finder.found;
}

// Whether any function of `mod` calls a KV-cache builtin (other than the cache's creation).
bool CallsKvCache(const ir::IRModule& mod) {
  struct Finder : ir::ExprVisitor {
    bool found = false;
    void VisitExpr_(const ir::CallNode& call) override {
      std::vector<ir::Expr> args;
      const ir::ExternFuncNode* callee = PackedArgs(call, &args);
      if (callee != nullptr && IsKvCacheCall(*callee)) found = true;
      if (!found) ExprVisitor::VisitExpr_(call);
    }
  } finder;
  for (const auto& member : mod.members()) {
    if (const auto* func = ir::As<ir::FunctionNode>(member.func)) finder.VisitExpr(func->body());
    if (finder.found) return true;
  }
  return false;
}

int64_t NumParams(const std::vector<StagePlan>& plans) {
  int64_t count = 0;
  for (const StagePlan& plan : plans) {
    if (!plan.packed_params) continue;
    if (const auto* t = ir::As<ir::TupleSInfoNode>(plan.packed_params->struct_info())) {
      count = std::max(count, static_cast<int64_t>(t->fields().size()));
    }
  }
  return count;
}

}  // namespace

MlcPartition ComputeMlcPartition(const ir::IRModule& split, const std::vector<StagePlan>& plans,
                                 const std::vector<std::string>& param_names) {
  if (plans.empty()) ThrowError(Span(), "mlc partition: no function was split into stages");
  MlcPartition out;
  out.pipeline_parallel_stages = plans[0].num_stages;
  const int num_stages = plans[0].num_stages;
  std::map<int64_t, std::set<int>> param_stages;
  std::unordered_set<std::string> split_names;
  const StagePlan* first = nullptr;
  for (const StagePlan& plan : plans) {
    const std::string& fname = plan.gvar->name_hint();
    const Span span = plan.func->span();
    if (plan.num_stages != num_stages) {
      ThrowError(span, fmt::format("mlc partition: '{}' has {} stages but '{}' has {}", fname,
                                   plan.num_stages, plans[0].gvar->name_hint(), num_stages));
    }
    split_names.insert(fname);
    // layer -> stage -> the first evidence placing it there.
    std::map<int64_t, std::map<int, std::string>> layers;
    for (int g = 0; g < num_stages; ++g) {
      const std::string stage_name = fname + "_stage" + std::to_string(g);
      split_names.insert(stage_name);
      ir::Function func = split.LookupFunction(stage_name);
      if (!func) {
        ThrowError(span, fmt::format("mlc partition: the split module has no stage function '{}'",
                                     stage_name));
      }
      for (const ir::WeightRead& read : ir::WeightReadsOf(*func)) {
        param_stages[read.index].insert(g);
        if (read.index < 0 || static_cast<size_t>(read.index) >= param_names.size()) continue;
        const std::string& name = param_names[read.index];
        if (auto layer = LayerOfWeightName(name)) {
          layers[*layer].emplace(
              g, fmt::format("weight '{}' (packed_params[{}]) is read", name, read.index));
        }
      }
      for (Evidence& e : KvCacheLayers(*func)) layers[e.layer].emplace(g, std::move(e.what));
    }
    if (layers.empty()) {
      ThrowError(span, fmt::format("mlc partition: cannot identify the transformer layers of '{}': "
                                   "no KV-cache call of its stages names a layer "
                                   "(vm.builtin.attention_kv_cache_* with R.prim_value(<layer>) "
                                   "or on a field of a KV-cache tuple parameter) and no weight "
                                   "read is named 'layers.<i>.'",
                                   fname));
    }
    if (layers.begin()->first < 0) {
      ThrowError(span, fmt::format("mlc partition: '{}' names layer {}, a negative layer id", fname,
                                   layers.begin()->first));
    }
    const int64_t num_layers = layers.rbegin()->first + 1;
    std::vector<int> stage_of(num_layers, -1);
    for (int64_t l = 0; l < num_layers; ++l) {
      auto it = layers.find(l);
      if (it == layers.end()) {
        ThrowError(span, fmt::format("mlc partition: layer {} of '{}' is not found (its stages "
                                     "name layers up to {})",
                                     l, fname, num_layers - 1));
      }
      const auto& where = it->second;
      if (where.size() > 1) {
        auto a = where.begin(), b = std::next(a);
        ThrowError(span, fmt::format("mlc partition: layer {} straddles stages {} and {} of '{}': "
                                     "in stage {} {}, in stage {} {}",
                                     l, a->first, b->first, fname, a->first, a->second, b->first,
                                     b->second));
      }
      stage_of[l] = where.begin()->first;
      if (l > 0 && stage_of[l] < stage_of[l - 1]) {
        ThrowError(span, fmt::format("mlc partition: layer {} is in stage {} of '{}' but layer {} "
                                     "in stage {}: layers are not in stage order",
                                     l, stage_of[l], fname, l - 1, stage_of[l - 1]));
      }
    }
    std::vector<int64_t> partition(num_stages + 1, num_layers);
    partition[0] = 0;
    for (int g = 1; g < num_stages; ++g) {
      auto at = std::find_if(stage_of.begin(), stage_of.end(), [g](int s) { return s >= g; });
      partition[g] = at - stage_of.begin();
    }
    if (first == nullptr) {
      first = &plan;
      out.layer_partition = partition;
    } else if (partition != out.layer_partition) {
      ThrowError(span, fmt::format("mlc partition: '{}' and '{}' place the layers differently: "
                                   "[{}] and [{}]",
                                   first->gvar->name_hint(), fname, JoinInts(out.layer_partition),
                                   JoinInts(partition)));
    }
  }
  // Unsplit functions reading packed_params (embed) run on every worker.
  for (const ir::IRModule::Member& member : split.members()) {
    auto func = ir::Cast<ir::FunctionNode>(member.func);
    if (!func || split_names.count(member.gvar->name_hint()) != 0) continue;
    for (const ir::WeightRead& read : ir::WeightReadsOf(*func)) {
      for (int g = 0; g < num_stages; ++g) param_stages[read.index].insert(g);
    }
  }
  int64_t num_params = NumParams(plans);
  if (!param_stages.empty()) num_params = std::max(num_params, param_stages.rbegin()->first + 1);
  if (!param_names.empty() && static_cast<int64_t>(param_names.size()) != num_params) {
    ThrowError(plans[0].func->span(),
               fmt::format("mlc partition: {} parameter names for {} packed_params fields",
                           param_names.size(), num_params));
  }
  for (int64_t i = 0; i < num_params; ++i) {
    MlcParamStages p;
    p.index = i;
    if (!param_names.empty()) p.name = param_names[i];
    auto it = param_stages.find(i);
    if (it != param_stages.end()) p.stages.assign(it->second.begin(), it->second.end());
    out.params.push_back(std::move(p));
  }
  return out;
}

MlcPartitionOrError TryComputeMlcPartition(const ir::IRModule& split,
                                           const std::vector<StagePlan>& plans,
                                           const std::vector<std::string>& param_names) {
  MlcPartitionOrError out;
  const bool named_layers = std::any_of(param_names.begin(), param_names.end(),
                                        [](const std::string& n) { return LayerOfWeightName(n); });
  if (!plans.empty() && !named_layers && !CallsKvCache(split)) {
    out.note =
        fmt::format("not an MLC-form model (no KV-cache call, {}): no layer partition to report",
                    param_names.empty() ? "weights not named" : "no weight named 'layers.<i>.'");
    return out;
  }
  try {
    out.partition = ComputeMlcPartition(split, plans, param_names);
  } catch (const DiagnosticError& e) {
    out.error = e.diagnostics().empty() ? e.what() : e.diagnostics()[0].message;
  }
  return out;
}

nlohmann::ordered_json MlcPartitionJson(const MlcPartition& partition) {
  nlohmann::ordered_json j;
  j["pipeline_parallel_stages"] = partition.pipeline_parallel_stages;
  j["tensor_parallel_shards"] = partition.tensor_parallel_shards;
  j["layer_partition"] = partition.layer_partition;
  j["param_stages"] = nlohmann::ordered_json::object();
  j["params"] = nlohmann::ordered_json::array();
  for (const MlcParamStages& p : partition.params) {
    j["param_stages"][p.name.empty() ? std::to_string(p.index) : p.name] = p.stages;
    nlohmann::ordered_json pj;
    pj["index"] = p.index;
    if (!p.name.empty()) pj["name"] = p.name;
    pj["stages"] = p.stages;
    j["params"].push_back(std::move(pj));
  }
  return j;
}

std::string MlcPartitionText(const MlcPartition& partition) {
  const int num_stages = partition.pipeline_parallel_stages;
  std::string out = fmt::format(
      "mlc partition ({} stages{})\n  layer_partition [{}]\n", num_stages,
      partition.tensor_parallel_shards > 1
          ? fmt::format(", {} tensor-parallel shards each", partition.tensor_parallel_shards)
          : "",
      JoinInts(partition.layer_partition));
  std::vector<int> params_of(num_stages, 0);
  std::string shared, unread;
  for (const MlcParamStages& p : partition.params) {
    for (int g : p.stages) {
      if (g >= 0 && g < num_stages) ++params_of[g];
    }
    std::string label = p.name.empty() ? fmt::format("packed_params[{}]", p.index) : p.name;
    if (p.stages.size() > 1) {
      std::string stages;
      for (int g : p.stages) stages += (stages.empty() ? "" : ", ") + std::to_string(g);
      shared += fmt::format("  {} in stages {}\n", label, stages);
    } else if (p.stages.empty()) {
      unread += fmt::format("  {} read by no stage\n", label);
    }
  }
  for (int g = 0; g < num_stages && g + 1 < static_cast<int>(partition.layer_partition.size());
       ++g) {
    int64_t begin = partition.layer_partition[g], end = partition.layer_partition[g + 1];
    out += fmt::format(
        "  stage {}: {}, {} params\n", g,
        begin == end ? std::string("no layers") : fmt::format("layers {}-{}", begin, end - 1),
        params_of[g]);
  }
  return out + shared + unread;
}

}  // namespace pipesplit::transform
