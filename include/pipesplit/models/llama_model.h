// The Llama example in each of its forms, built as data: the module (parsed, and lowered by
// legalize-ops where the form asks), its weights and its inputs or prompts. The CLI's
// `example llama[-lowered] [--serving]` writes one to a folder; Python's
// `pipesplit.models.llama(...)` returns one as NumPy arrays.
//
// Forms:
//   high             high-level Relax ops (llama.h): `main(input_ids, packed_params)`
//   lowered          the high form after legalize-ops: every op an R.call_tir of a TIR kernel
//   serving          MLC-LLM's serving form (llama_serving.h): embed, prefill, decode,
//                    batch_prefill, batch_decode over the paged KV cache
//   serving-lowered  the serving form after legalize-ops
#ifndef PIPESPLIT_MODELS_LLAMA_MODEL_H_
#define PIPESPLIT_MODELS_LLAMA_MODEL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipesplit/ir/module.h"
#include "pipesplit/models/llama.h"
#include "pipesplit/models/llama_serving.h"
#include "pipesplit/runtime/io/safetensors.h"

namespace pipesplit::models {

enum class LlamaForm { kHigh, kLowered, kServing, kServingLowered };

// "high", "lowered", "serving", "serving-lowered"; nullopt for anything else.
std::optional<LlamaForm> ParseLlamaForm(std::string_view name);
std::string_view LlamaFormName(LlamaForm form);
// The names ParseLlamaForm takes, comma-separated (for messages).
std::string LlamaFormNames();

inline bool IsServing(LlamaForm form) {
  return form == LlamaForm::kServing || form == LlamaForm::kServingLowered;
}
inline bool IsLowered(LlamaForm form) {
  return form == LlamaForm::kLowered || form == LlamaForm::kServingLowered;
}

struct LlamaModel {
  LlamaForm form = LlamaForm::kHigh;
  ir::IRModule module;                           // parsed; legalized in the lowered forms
  std::vector<runtime::NamedTensor> weights;     // packed_params order
  runtime::SafetensorsMetadata weight_metadata;  // __metadata__ of params.safetensors
  std::vector<runtime::NamedTensor> inputs;      // high and lowered: the entry's inputs
  std::vector<std::vector<int64_t>> prompts;     // serving forms: token ids
  std::string prompts_json;                      // serving forms: prompts as prompts.json
  std::vector<int64_t> layer_partition;          // serving forms: MLC's layer partition
  int kv_heads = 0;                              // serving forms: resolved KV heads
};

// Builds the model. `requests` applies to the serving forms, config.seq to the others.
// Throws std::invalid_argument (lowercase, naming the option as the CLI flag `--layers`) for an
// impossible configuration.
LlamaModel BuildLlama(const LlamaConfig& config, LlamaForm form,
                      const ServingRequests& requests = {});

// The inputs of `count` requests of the high or lowered form: request k is the input of the
// model built with seed config.seed + k, each input named `<input>.<k>` (`run --microbatches`).
std::vector<runtime::NamedTensor> LlamaMicrobatches(const LlamaConfig& config, int count);

}  // namespace pipesplit::models

#endif  // PIPESPLIT_MODELS_LLAMA_MODEL_H_
