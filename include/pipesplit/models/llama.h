// The Llama in high-level ops (`pipesplit example llama`, `pipesplit.models.llama(form="high")`): a
// tiny Llama-style model as runnable Relax with high-level ops (embedding, RMSNorm, attention with
// rotary embedding and a causal mask, SwiGLU MLP, final norm, LM head), stage markers,
// pipeline_parallel_stages, num_input and packed_params, plus seeded random weights and inputs.
#ifndef PIPESPLIT_MODELS_LLAMA_H_
#define PIPESPLIT_MODELS_LLAMA_H_

#include <cstdint>
#include <string>
#include <vector>

#include "pipesplit/runtime/io/safetensors.h"

namespace pipesplit::models {

struct LlamaConfig {
  int layers = 4;
  int hidden = 64;
  int heads = 4;
  int kv_heads = 0;  // serving only (GQA); 0: heads / 2 when heads is even, else heads
  int ffn = 128;
  int vocab = 256;
  int seq = 16;
  int stages = 2;
  uint64_t seed = 0;
  // Workers of a group the model is written for (MLC's tensor_parallel_shards): above 1, each
  // layer's attention heads and FFN columns are split among them (per-shard shapes), partial
  // results are summed with R.ccl.allreduce after the attention output and the down projection,
  // the token ids (and serving's logit positions) come from R.ccl.broadcast_from_worker0, and a
  // `_metadata` function gives each weight's shard_strategy. Weights are written unsharded, the
  // same bits as the model with tensor_parallel 1.
  int tensor_parallel = 1;
};

struct LlamaExample {
  std::string module_text;                       // TVMScript (classic syntax)
  std::vector<runtime::NamedTensor> weights;     // packed_params order
  std::vector<runtime::NamedTensor> inputs;      // named as the entry's parameters
  runtime::SafetensorsMetadata weight_metadata;  // __metadata__["packed_params"]
};

// Throws std::invalid_argument (lowercase, naming the flag) when one of the model sizes both
// generators take (layers, hidden, heads, ffn, vocab, stages) is below 1.
void CheckModelSizes(const LlamaConfig& config);

// Throws std::invalid_argument (naming the flags) when config.tensor_parallel is below 1 or does
// not divide the heads, the FFN size and (serving) the KV heads.
void CheckTensorParallel(const LlamaConfig& config, int kv_heads);

// The `_metadata` function of a tensor-parallel model (config.tensor_parallel > 1), as MLC's
// exporter writes it (model_type, tensor_parallel_shards, pipeline_parallel_stages, params with
// name, per-shard shape, dtype and, for sharded ones, a shard_strategy {name, dim, segs}).
// `params_json` is the JSON list of params.
std::string TensorParallelMetadataFunction(const LlamaConfig& config,
                                           const std::string& params_json);

// Throws std::invalid_argument with a lowercase message for impossible configurations.
LlamaExample GenerateLlamaExample(const LlamaConfig& config);

}  // namespace pipesplit::models

#endif  // PIPESPLIT_MODELS_LLAMA_H_
