// `pipesplit example llama --serving`: a tiny Llama in MLC-LLM's serving form (the functions
// MLC's `get_default_spec` exports with param_mode packed): embed, prefill, decode,
// batch_prefill, batch_decode over MLC's paged KV cache (attention through
// vm.builtin.attention_kv_cache_attention_with_fused_qkv) and create_paged_kv_cache calling
// vm.builtin.paged_attention_kv_cache_create; MLC's weight names and order, its layer partition
// and stage markers; float32 seeded weights and random prompts.
#ifndef PIPESPLIT_MODELS_LLAMA_SERVING_H_
#define PIPESPLIT_MODELS_LLAMA_SERVING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "pipesplit/models/llama.h"
#include "pipesplit/runtime/io/safetensors.h"

namespace pipesplit::models {

struct ServingRequests {
  int requests = 4;    // prompts.json: this many prompts
  int prompt_len = 8;  // of this many token ids each
};

struct LlamaServingExample {
  std::string module_text;                       // TVMScript (classic syntax)
  std::vector<runtime::NamedTensor> weights;     // packed_params order (MLC's named_parameters)
  runtime::SafetensorsMetadata weight_metadata;  // packed_params and serving_config
  std::vector<std::vector<int64_t>> prompts;
  std::string prompts_json;  // prompts as a JSON list of lists of ints
  std::vector<int64_t> layer_partition;
  int kv_heads = 0;  // resolved
};

// MLC's layer partition: ceil(layers / stages) layers per stage, the last stage the rest.
std::vector<int64_t> ServingLayerPartition(int layers, int stages);

// Throws std::invalid_argument with a lowercase message for impossible configurations
// (config.seq is not used).
LlamaServingExample GenerateLlamaServing(const LlamaConfig& config,
                                         const ServingRequests& requests);

}  // namespace pipesplit::models

#endif  // PIPESPLIT_MODELS_LLAMA_SERVING_H_
