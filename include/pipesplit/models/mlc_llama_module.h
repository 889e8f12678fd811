// The serving module of an MLC model folder, written from its mlc-chat-config.json alone: what
// `pipesplit generate FOLDER` and `pipesplit serve FOLDER` run when no module is given (MLC
// compiles it on the user's machine; pipesplit writes it).
//
// The module is in the form MLC's exporter gives (phase 0 of `mlc_llm compile`): `embed`,
// `prefill`, `decode`, `batch_prefill`, `batch_decode` of high-level Relax ops over MLC's paged KV
// cache (the attention with fused QKV and RoPE inside the cache) and `create_paged_kv_cache`;
// logits cast to float32; `_metadata` naming MLC's parameters, so the folder's shards bind by name
// unchanged. Each linear layer is one TIR kernel as MLC's fusion writes it (phase 3): for
// q4f16_1 the 4-bit values of the uint32 words, minus 7, times the group's float16 scale, then
// the product with the weight read transposed (NT); the embedding dequantizes only the rows it
// takes. pipesplit's legalize-ops lowers the rest; its fast path runs the products in one pass
// over the packed weights, with the arithmetic it gives MLC's compiled modules (the same tokens
// as MLC's phase-5 dumps of the corpus folders).
//
// Supported: model_type llama (Llama 2, Llama 3 and 3.1 - rope_scaling llama3 - TinyLlama, tied
// embeddings or not), quantization q0f32, q0f16 and q4f16_1, no tensor parallelism. Anything else
// is a located error in mlc-chat-config.json naming the field.
#ifndef PIPESPLIT_MODELS_MLC_LLAMA_MODULE_H_
#define PIPESPLIT_MODELS_MLC_LLAMA_MODULE_H_

#include <cstdint>
#include <string>

namespace pipesplit::models {

struct MlcLlamaModuleConfig {
  std::string path;          // the mlc-chat-config.json read
  std::string quantization;  // q0f32, q0f16, q4f16_1
  int64_t hidden_size = 0;
  int64_t intermediate_size = 0;
  int64_t num_attention_heads = 0;
  int64_t num_key_value_heads = 0;
  int64_t head_dim = 0;
  int64_t num_hidden_layers = 0;
  int64_t vocab_size = 0;
  double rms_norm_eps = 1e-5;
  double rope_theta = 10000;
  bool tie_word_embeddings = false;
  // rope_scaling's JSON (rope_type llama3), "" for plain RoPE: handed to the KV cache where MLC
  // passes rope ext factors (runtime/exec/paged_kv_cache.h: Llama3Rope).
  std::string rope_scaling_json;
};

// Reads the model of `chat_config_path`; located errors for what the module cannot be written
// for.
MlcLlamaModuleConfig ReadMlcLlamaModuleConfig(const std::string& chat_config_path);

// The module's TVMScript, its layers cut into `stages` pipeline stages at MLC's layer partition
// (stage markers and the pipeline_parallel_stages attribute when stages > 1).
std::string WriteMlcLlamaModule(const MlcLlamaModuleConfig& config, int stages = 1);

}  // namespace pipesplit::models

#endif  // PIPESPLIT_MODELS_MLC_LLAMA_MODULE_H_
