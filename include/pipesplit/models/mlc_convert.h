// `pipesplit convert`: an MLC weight folder from a Hugging Face one, as MLC-LLM writes it with
// `mlc_llm convert_weight` and `mlc_llm gen_config` (MLC-LLM 79d603f): the same shards, byte for
// byte, the same tensor-cache.json and an mlc-chat-config.json with the same fields.
//
// Supported: `model_type` llama (Llama 2 and 3, TinyLlama, tied embeddings or not, rope_scaling
// llama3), float32, bfloat16 and float16 safetensors, one file or sharded with
// model.safetensors.index.json; quantizations q0f32, q0f16 and q4f16_1.
//
// Steps of ConvertHuggingFace:
//   1. Read config.json into the Llama config MLC derives from it (ReadHfLlamaConfig), and the
//      weights' index: model.safetensors.index.json's weight_map in its order, or else the names
//      of model.safetensors sorted (the order MLC's loader takes them in then).
//   2. MLC's parameters: q/k/v fused into qkv_proj and gate/up into gate_up_proj (concatenated
//      along rows), each cast to the quantization's model dtype (float32 or float16, rounding to
//      nearest even); lm_head only when the embeddings are not tied. Every parameter is checked
//      against its source tensors' shapes before anything is written.
//   3. Their order: for each source file in the index's order of first appearance, for each of
//      its tensors, the MLC parameters built from it, each at its first use.
//   4. q4f16_1: every linear weight and the embedding table group-quantized (QuantizeQ4F16); the
//      norms are float16.
//   5. The tensor cache (tensor_cache_writer.h) with MLC's metadata (parameters, bytes, bits per
//      source parameter - counted per file load, as MLC's loader counts them).
//   6. mlc-chat-config.json (MlcChatConfigJson) and the tokenizer files copied.
// Faults in the input (a missing file or tensor, a wrong shape or dtype, an unsupported model)
// are RuntimeErrors naming the file and the tensor.
#ifndef PIPESPLIT_MODELS_MLC_CONVERT_H_
#define PIPESPLIT_MODELS_MLC_CONVERT_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pipesplit/models/tensor_cache_writer.h"

namespace pipesplit::models {

enum class MlcQuantization { kQ0F32, kQ0F16, kQ4F16_1 };
std::optional<MlcQuantization> ParseMlcQuantization(std::string_view name);
std::string_view MlcQuantizationName(MlcQuantization q);

// config.json of a Llama-family model, with MLC's defaults and derived fields (LlamaConfig).
struct HfLlamaConfig {
  std::string path;
  std::string model_type;
  int64_t hidden_size = 0;
  int64_t intermediate_size = 0;
  int64_t num_attention_heads = 0;
  int64_t num_hidden_layers = 0;
  int64_t vocab_size = 0;
  bool tie_word_embeddings = false;
  // JSON texts of values MLC writes back as it read them.
  std::string rms_norm_eps_json;
  std::string position_embedding_base_json = "10000";  // rope_theta
  std::string rope_scaling_json = "null";              // the object (it has a rope_type), or null
  int64_t context_window_size = 0;                     // max_position_embeddings
  int64_t prefill_chunk_size = 0;                      // min(context window, 8192) unless given
  int64_t num_key_value_heads = 0;
  int64_t head_dim = 0;
};

// Reads `path`; RuntimeError naming the file and field for a missing or invalid one.
HfLlamaConfig ReadHfLlamaConfig(const std::string& path);

// One tensor of the Hugging Face checkpoint: where it is and what it is.
struct HfTensorInfo {
  std::string name;
  std::string file;  // relative to the folder
  std::vector<int64_t> shape;
  std::string dtype;  // "float32", "bfloat16", "float16"
};

// q4f16_1's group quantization of a [rows, cols] float16 weight (bits) along cols, as MLC's
// GroupQuantize computes it in float16: per group of 32 columns the scale max|w| / 7, each
// element round(w / scale + 7) (ties to even) clamped to [0, 14], eight 4-bit values per uint32
// (element j at bits 4j), a last partial group padded with zeros.
struct Q4Weight {
  std::vector<uint32_t> q_weight;  // [rows, groups * 4]
  std::vector<uint16_t> q_scale;   // [rows, groups], float16 bits
  int64_t groups = 0;
};
Q4Weight QuantizeQ4F16(std::span<const uint16_t> weight, int64_t rows, int64_t cols);

struct ConvertOptions {
  MlcQuantization quantization = MlcQuantization::kQ4F16_1;
  std::string conv_template = "LM";  // one of MLC's preset names
  std::optional<int64_t> context_window_size;
  std::optional<int64_t> prefill_chunk_size;
  int64_t max_batch_size = 128;
  int64_t tensor_parallel_shards = 1;
  int64_t pipeline_parallel_stages = 1;
};

struct ConvertReport {
  std::vector<TensorCacheShard> shards;
  TensorCacheMetadata metadata;
  std::vector<std::string> tokenizer_files;
};

// Writes the MLC folder `out_dir` from the Hugging Face folder `hf_dir`.
ConvertReport ConvertHuggingFace(const std::string& hf_dir, const std::string& out_dir,
                                 const ConvertOptions& options);

// The records and metadata ConvertHuggingFace writes for a checkpoint holding `tensors` (in the
// index's order), without reading or writing any data.
ConvertReport PlanConversion(const HfLlamaConfig& config, const std::vector<HfTensorInfo>& tensors,
                             MlcQuantization quantization);

// mlc-chat-config.json as gen_config writes it for `config` (indent 2, MLC's field order).
// `tokenizer_dir` holds the tokenizer files already copied (listed in MLC's order; tokenizer.json
// gives tokenizer_info and active_vocab_size).
std::string MlcChatConfigJson(const HfLlamaConfig& config, const ConvertOptions& options,
                              const std::vector<std::string>& tokenizer_files,
                              const std::string& tokenizer_dir);

}  // namespace pipesplit::models

#endif  // PIPESPLIT_MODELS_MLC_CONVERT_H_
