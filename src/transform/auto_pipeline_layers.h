// Transformer layers for auto-pipeline-stages (private to that pass): where the layers of a
// profiled function end, so that stages are cut only between layers, and the KV cache's layer
// partition of the cut module.
//
// A layer is found from the names of the weights a function reads: a weight read
// `w = packed_params[i]` whose var is named `..._layers_<l>_...` (MLC binds each parameter to a
// var named after it: `model_layers_3_mlp_down_proj_weight7` for `model.layers.3.mlp...`)
// belongs to layer l; any other binding belongs to the latest layer among the bindings and
// weights it uses (so a residual add after `down_proj` belongs to its layer even where it reads
// no weight), or to none. The cut after layer l is the cut after the last binding of layers
// 0..l (the residual add after layer l's `down_proj` in a Llama), provided no binding before it
// belongs to a later layer. Bindings of no layer (the embedding before the layers) belong to
// the stage their place in the function gives them; the final norm and the head follow the
// last layer.
#ifndef PIPESPLIT_SRC_TRANSFORM_AUTO_PIPELINE_LAYERS_H_
#define PIPESPLIT_SRC_TRANSFORM_AUTO_PIPELINE_LAYERS_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "pipesplit/analysis/auto_partition.h"
#include "pipesplit/ir/module.h"
#include "pipesplit/support/source.h"

namespace pipesplit::transform {

// The layer a weight's name places it in: `layers.<l>.` (MLC's parameter names,
// `model.layers.3.mlp.down_proj.weight`) or `layers_<l>_` (the vars MLC binds them to), at the
// start of the name or after a `.` / `_`; nullopt for a weight outside the layers.
std::optional<int64_t> LayerOfWeightName(std::string_view name);

struct LayerCuts {
  int num_layers = 0;            // 1 + the largest layer the function reads; 0: no layer
  std::vector<int> layer_after;  // per cut c (0..m): l when c is the cut after layer l, else -1
};

// The layer boundaries of profiled function `p` (its weight reads sunk to their first use).
LayerCuts FindLayerCuts(const analysis::FunctionProfile& p);

// Sets the layer partition `layers` ([0, l_1, ..., L]) as the second shape argument of every
// `vm.builtin.paged_attention_kv_cache_create` call of `mod`'s Relax functions, whose partition
// must start at 0 and end at L (an error at the shape otherwise, naming both counts). Returns
// the module unchanged when it has no such call.
ir::IRModule SetKvCacheLayerPartition(const ir::IRModule& mod, const std::vector<int64_t>& layers);

}  // namespace pipesplit::transform

#endif  // PIPESPLIT_SRC_TRANSFORM_AUTO_PIPELINE_LAYERS_H_
