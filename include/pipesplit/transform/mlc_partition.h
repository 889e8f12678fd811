// The partition of a split module in the form MLC-LLM's loader and KV cache consume: the first
// transformer layer of each stage (`layer_partition`) and, per packed_params field, the stages
// that load it (MLC's per-parameter `pipeline_stages`). Both come from the split itself, not from
// MLC's formulas: MLC tags layer weights with stage `layer // (L // S)` while its boundaries sit
// every ceil(L / S) layers, which misplaces weights whenever S does not divide L.
//
// Layers. A layer is identified, in each stage function `<f>_stage<g>` of the split module, by
//  1. a KV-cache call naming it: a call of a `vm.builtin.attention_kv_cache_*` builtin (not
//     `_create`) whose argument after the cache is an integer R.prim_value, the global layer id
//     (`call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv",
//     (kv, R.prim_value(l), ...))`, MLC's serving form);
//  2. a KV-cache call on a field of a KV-cache tuple parameter (the 2023 form, no layer id):
//     `c = kv_cache[j]`, then `attention_kv_cache_append(c, ...)` / `_view(...)`, possibly on
//     the cache an append returned; field j is layer j / 2 (K at 2l, V at 2l + 1, as MLC's
//     2023 create_kv_cache makes them);
//  3. a weight read whose name (from `param_names`, when given) contains `layers.<l>.` or
//     `layers_<l>_` at the start or after a separator (`model.layers.<l>.`; the one reader of
//     layer numbers in names is auto-pipeline-stages' LayerOfWeightName).
// KV-cache calls that name no layer (get_query_positions, ...) are ignored. A layer belongs to
// the stage holding all of its evidence. It is an error (DiagnosticError) when a split function
// identifies no layer at all, a layer id in [0, L) is missing, a layer's evidence is in two
// stages (the layer straddles a boundary), layers are not in stage order, the split functions
// disagree on the partition or on the number of stages, or a stage function is missing.
//
// layer_partition is [l_0 = 0, l_1, ..., l_S = L], l_g the first layer of stage g or later; a
// stage without layers (possible when a model has fewer layers than stages, or a stage holds
// only the head) gets l_g = l_{g+1}.
//
// Parameter stages. Parameter i is loaded by the stages whose stage functions read it
// (ir::WeightReadsOf), over all split functions; a parameter an unsplit function reads (`embed`,
// which runs on every worker) is loaded by every stage. A parameter nothing reads has no stage.
#ifndef PIPESPLIT_TRANSFORM_MLC_PARTITION_H_
#define PIPESPLIT_TRANSFORM_MLC_PARTITION_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipesplit/ir/module.h"
#include "pipesplit/transform/pipeline_stage_plan.h"

namespace pipesplit::transform {

struct MlcParamStages {
  int64_t index = 0;        // packed_params field
  std::string name;         // empty when unknown
  std::vector<int> stages;  // ascending; empty when nothing reads it
};

struct MlcPartition {
  int pipeline_parallel_stages = 0;
  // Workers of each group (MLC's tensor_parallel_shards): the caller sets it from the module's
  // _metadata (the partition itself does not depend on it).
  int64_t tensor_parallel_shards = 1;
  std::vector<int64_t> layer_partition;  // S + 1 entries
  std::vector<MlcParamStages> params;    // one per packed_params field, by index
};

// The partition of `split`, the module pipeline-parallel-rewrite made with `plans`.
// `param_names` (optional) names packed_params field i at position i (MLC's named_parameters
// order, as __metadata__["packed_params"] lists them); when given, its size must be the number
// of packed_params fields. Throws DiagnosticError (see above).
MlcPartition ComputeMlcPartition(const ir::IRModule& split, const std::vector<StagePlan>& plans,
                                 const std::vector<std::string>& param_names = {});

// ComputeMlcPartition, or the message of the error it threw (for the stage report, which
// reports modules MLC's loader does not take too). A module that is not in MLC's form at all (no
// KV-cache call, no weight named 'layers.<i>.') gets a note saying so instead of an error: it
// has no layers to partition, and nothing is wrong with it.
struct MlcPartitionOrError {
  std::optional<MlcPartition> partition;
  std::string error;  // set when the partition failed
  std::string note;   // set when the module is not in MLC's form
};
MlcPartitionOrError TryComputeMlcPartition(const ir::IRModule& split,
                                           const std::vector<StagePlan>& plans,
                                           const std::vector<std::string>& param_names = {});

// {"pipeline_parallel_stages": S, "tensor_parallel_shards": K, "layer_partition": [...],
// "param_stages": {"<name or index>": [stages], ...}, "params": [{"index": i, "name": "..." (when
// known), "stages": [...]},
// ...]}.
nlohmann::ordered_json MlcPartitionJson(const MlcPartition& partition);
// A short text section: the layer partition, each stage's layers and parameter count, the
// parameters loaded by several stages and those loaded by none.
std::string MlcPartitionText(const MlcPartition& partition);

}  // namespace pipesplit::transform

#endif  // PIPESPLIT_TRANSFORM_MLC_PARTITION_H_
