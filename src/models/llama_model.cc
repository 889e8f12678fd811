// The Llama example's forms (see llama_model.h): the generators write canonical TVMScript,
// which is parsed here (and legalized for the lowered forms), so every consumer gets the
// module the CLI prints.
#include "pipesplit/models/llama_model.h"

#include <array>
#include <utility>

#include "pipesplit/script/parser.h"
#include "pipesplit/transform/pass.h"

namespace pipesplit::models {
namespace {

constexpr std::array<std::pair<LlamaForm, std::string_view>, 4> kForms = {{
    {LlamaForm::kHigh, "high"},
    {LlamaForm::kLowered, "lowered"},
    {LlamaForm::kServing, "serving"},
    {LlamaForm::kServingLowered, "serving-lowered"},
}};

ir::IRModule ParseGenerated(const std::string& text, bool lowered) {
  ir::IRModule mod = script::ParseModule(text, "<generated llama>");
  if (!lowered) return mod;
  transform::PassContext ctx;
  return transform::ParsePipeline("legalize-ops")->Run(mod, ctx);
}

}  // namespace

std::optional<LlamaForm> ParseLlamaForm(std::string_view name) {
  for (const auto& [form, spelling] : kForms) {
    if (spelling == name) return form;
  }
  return std::nullopt;
}

std::string_view LlamaFormName(LlamaForm form) {
  for (const auto& [f, spelling] : kForms) {
    if (f == form) return spelling;
  }
  return "?";
}

std::string LlamaFormNames() {
  std::string out;
  for (const auto& [form, spelling] : kForms)
    out += (out.empty() ? "" : ", ") + std::string(spelling);
  return out;
}

LlamaModel BuildLlama(const LlamaConfig& config, LlamaForm form, const ServingRequests& requests) {
  LlamaModel out;
  out.form = form;
  if (IsServing(form)) {
    LlamaServingExample example = GenerateLlamaServing(config, requests);
    out.module = ParseGenerated(example.module_text, IsLowered(form));
    out.weights = std::move(example.weights);
    out.weight_metadata = std::move(example.weight_metadata);
    out.prompts = std::move(example.prompts);
    out.prompts_json = std::move(example.prompts_json);
    out.layer_partition = std::move(example.layer_partition);
    out.kv_heads = example.kv_heads;
    return out;
  }
  LlamaExample example = GenerateLlamaExample(config);
  out.module = ParseGenerated(example.module_text, IsLowered(form));
  out.weights = std::move(example.weights);
  out.weight_metadata = std::move(example.weight_metadata);
  out.inputs = std::move(example.inputs);
  return out;
}

std::vector<runtime::NamedTensor> LlamaMicrobatches(const LlamaConfig& config, int count) {
  std::vector<runtime::NamedTensor> requests;
  for (int k = 0; k < count; ++k) {
    LlamaConfig request = config;
    request.seed = config.seed + static_cast<uint64_t>(k);
    for (auto& [name, t] : GenerateLlamaExample(request).inputs) {
      requests.emplace_back(name + "." + std::to_string(k), t);
    }
  }
  return requests;
}

}  // namespace pipesplit::models
