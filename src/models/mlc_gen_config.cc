// A Hugging Face Llama config.json as MLC reads it (LlamaConfig), and the mlc-chat-config.json
// MLC's gen_config writes from it (mlc_convert.h).
//
// mlc-chat-config.json, in MLCChatConfig's field order:
//   1. model_config: the Llama config's fields, with the flags' overrides (context window,
//      prefill chunk, max batch size, tensor and pipeline shards) and MLC's rule that the
//      prefill chunk is at most the context window;
//   2. the top-level sizes from it (sliding window and attention sink -1: Llama has neither);
//   3. bos, eos, pad and sampling fields from generation_config.json, then config.json, then
//      MLC's system defaults;
//   4. tokenizer_files, tokenizer_info (from tokenizer.json's decoder and normalizer, as MLC's
//      DetectTokenizerInfo), active_vocab_size (tokenizer.json's tokens and added tokens);
//   5. the conversation template's JSON (serve/text/conversation.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "pipesplit/models/mlc_convert.h"
#include "pipesplit/runtime/tensor/tensor.h"
#include "pipesplit/serve/text/conversation.h"
#include "pipesplit/serve/text/hf_tokenizer.h"
#include "src/models/json_fields.h"
#include "src/runtime/io/json_document.h"

namespace pipesplit::models {
namespace {

namespace fs = std::filesystem;
using runtime::Json;
using runtime::JsonDocument;
using runtime::JsonValue;

constexpr int64_t kMaxPrefillChunk = 8192;

// An optional integer that MLC treats as unset when 0.
int64_t OptionalInt(const JsonValue& object, const char* key) {
  std::optional<JsonValue> v = object.Find(key);
  return v && !v->IsNull() ? v->Int() : 0;
}

// Step 4: MLC's DetectTokenizerInfo on a tokenizer.json.
Json TokenizerInfo(const fs::path& tokenizer_json) {
  std::string method = "byte_fallback";
  bool prepend = false, strip = false;
  if (fs::exists(tokenizer_json)) {
    const Json j = Json::parse(std::ifstream(tokenizer_json), nullptr, false);
    auto parts = [](const Json& component, const char* list) {
      std::vector<Json> out;
      if (!component.is_object()) return out;
      if (component.value("type", "") == "Sequence" && component.contains(list) &&
          component[list].is_array()) {
        for (const Json& c : component[list]) out.push_back(c);
      } else {
        out.push_back(component);
      }
      return out;
    };
    if (j.is_object() && j.contains("decoder")) {
      for (const Json& d : parts(j["decoder"], "decoders")) {
        const std::string type = d.is_object() ? d.value("type", "") : "";
        if (type == "ByteLevel") method = "byte_level";
        if (type == "ByteFallback") method = "byte_fallback";
        if (type == "Strip" && d.value("content", "") == " " && d.value("start", -1) == 1 &&
            d.value("stop", -1) == 0) {
          strip = true;
        }
      }
    }
    if (j.is_object() && j.contains("normalizer")) {
      for (const Json& n : parts(j["normalizer"], "normalizers")) {
        if (n.is_object() && n.value("type", "") == "Prepend" &&
            n.value("prepend", "") == "\xE2\x96\x81") {
          prepend = true;
          break;
        }
      }
    }
  }
  return {{"token_postproc_method", method},
          {"prepend_space_in_encode", prepend},
          {"strip_space_in_decode", strip}};
}

}  // namespace

HfLlamaConfig ReadHfLlamaConfig(const std::string& path) {
  std::shared_ptr<const JsonDocument> doc = JsonDocument::Load(path);
  const JsonValue root = doc->root();
  if (!root.IsObject()) root.Fail("config.json must be an object");
  HfLlamaConfig c;
  c.path = path;
  const JsonValue type = root.Field("model_type");
  c.model_type = type.String();
  if (c.model_type != "llama") {
    type.Fail(fmt::format("model_type '{}' is not one pipesplit converts (llama)", c.model_type));
  }
  c.hidden_size = PositiveIntField(root, "hidden_size");
  c.intermediate_size = PositiveIntField(root, "intermediate_size");
  c.num_attention_heads = PositiveIntField(root, "num_attention_heads");
  c.num_hidden_layers = PositiveIntField(root, "num_hidden_layers");
  c.vocab_size = PositiveIntField(root, "vocab_size");
  const JsonValue eps = root.Field("rms_norm_eps");
  eps.Number();  // a number
  c.rms_norm_eps_json = eps.json().dump();
  if (std::optional<JsonValue> tie = root.Find("tie_word_embeddings"); tie && !tie->IsNull()) {
    c.tie_word_embeddings = tie->Bool();
  }
  std::optional<JsonValue> base = root.Find("position_embedding_base");
  if (!base || base->IsNull() || base->Number() == 0) base = root.Find("rope_theta");
  if (base && !base->IsNull()) {
    base->Number();
    c.position_embedding_base_json = base->json().dump();
  }
  if (std::optional<JsonValue> rope = root.Find("rope_scaling"); rope && !rope->IsNull()) {
    if (!rope->IsObject()) rope->Fail("'rope_scaling' must be an object or null");
    if (std::optional<JsonValue> kind = rope->Find("rope_type")) {
      if (kind->String() != "llama3") {
        kind->Fail(
            fmt::format("rope_type '{}' is not supported for Llama (llama3)", kind->String()));
      }
      c.rope_scaling_json = rope->json().dump();
    }
  }
  c.context_window_size = OptionalInt(root, "context_window_size");
  for (const char* key : {"max_position_embeddings", "max_sequence_length"}) {
    if (c.context_window_size == 0) c.context_window_size = OptionalInt(root, key);
  }
  if (c.context_window_size <= 0) {
    root.Fail(
        "config.json gives no context window (context_window_size, "
        "max_position_embeddings or max_sequence_length)");
  }
  c.prefill_chunk_size = OptionalInt(root, "prefill_chunk_size");
  if (c.prefill_chunk_size == 0 || c.prefill_chunk_size > c.context_window_size) {
    c.prefill_chunk_size = std::min(c.context_window_size, kMaxPrefillChunk);
  }
  c.num_key_value_heads = OptionalInt(root, "num_key_value_heads");
  if (c.num_key_value_heads == 0) c.num_key_value_heads = c.num_attention_heads;
  c.head_dim = OptionalInt(root, "head_dim");
  if (c.head_dim == 0) c.head_dim = c.hidden_size / c.num_attention_heads;
  if (c.num_key_value_heads < 0 || c.num_attention_heads % c.num_key_value_heads != 0) {
    root.Field("num_key_value_heads")
        .Fail(fmt::format("{} attention heads do not divide into {} key-value heads",
                          c.num_attention_heads, c.num_key_value_heads));
  }
  return c;
}

std::string MlcChatConfigJson(const HfLlamaConfig& config, const ConvertOptions& options,
                              const std::vector<std::string>& tokenizer_files,
                              const std::string& tokenizer_dir) {
  // Step 1: the overrides, then MLC's prefill rule.
  const int64_t window = options.context_window_size.value_or(config.context_window_size);
  int64_t prefill = options.prefill_chunk_size.value_or(config.prefill_chunk_size);
  if (prefill == 0 || prefill > window) prefill = std::min(window, kMaxPrefillChunk);
  Json model = Json::object();
  model["hidden_size"] = config.hidden_size;
  model["intermediate_size"] = config.intermediate_size;
  model["num_attention_heads"] = config.num_attention_heads;
  model["num_hidden_layers"] = config.num_hidden_layers;
  model["rms_norm_eps"] = Json::parse(config.rms_norm_eps_json);
  model["vocab_size"] = config.vocab_size;
  model["tie_word_embeddings"] = config.tie_word_embeddings;
  model["position_embedding_base"] = Json::parse(config.position_embedding_base_json);
  model["rope_scaling"] = Json::parse(config.rope_scaling_json);
  model["context_window_size"] = window;
  model["prefill_chunk_size"] = prefill;
  model["num_key_value_heads"] = config.num_key_value_heads;
  model["head_dim"] = config.head_dim;
  model["tensor_parallel_shards"] = options.tensor_parallel_shards;
  model["pipeline_parallel_stages"] = options.pipeline_parallel_stages;
  model["max_batch_size"] = options.max_batch_size;
  model["disaggregation"] = false;

  // Step 3: generation_config.json, then config.json, fill what is unset.
  const char* from_generation[] = {
      "temperature", "presence_penalty", "frequency_penalty", "repetition_penalty",
      "top_p",       "pad_token_id",     "bos_token_id",      "eos_token_id"};
  std::map<std::string, Json> given;
  const fs::path dir = fs::path(config.path).parent_path();
  for (const char* file : {"generation_config.json", "config.json"}) {
    if (!fs::exists(dir / file)) continue;
    std::shared_ptr<const JsonDocument> doc = JsonDocument::Load((dir / file).string());
    if (!doc->root().IsObject()) continue;
    for (const char* key : from_generation) {
      auto it = given.find(key);
      if ((it == given.end() || it->second.is_null()) && doc->root().json().contains(key)) {
        given[key] = doc->root().json()[key];
      }
    }
  }
  const std::map<std::string, Json> defaults = {
      {"pad_token_id", 0},         {"bos_token_id", 1},
      {"eos_token_id", 2},         {"temperature", 1.0},
      {"presence_penalty", 0.0},   {"frequency_penalty", 0.0},
      {"repetition_penalty", 1.0}, {"top_p", 1.0}};
  auto field = [&](const char* key) {
    auto it = given.find(key);
    return it != given.end() && !it->second.is_null() ? it->second : defaults.at(key);
  };

  // Step 4: the tokenizer.
  const fs::path tokenizer_json = fs::path(tokenizer_dir) / "tokenizer.json";
  int64_t active_vocab = config.vocab_size;
  if (fs::exists(tokenizer_json)) {
    active_vocab = serve::HfTokenizer::FromFile(tokenizer_json.string()).vocab_size();
  }

  // Step 5: the template.
  const std::optional<serve::text::ConversationTemplate> conv =
      serve::text::ConversationPreset(options.conv_template);
  if (!conv) {
    throw runtime::RuntimeError(fmt::format(
        "--conv-template: '{}' is not a template pipesplit knows ({})", options.conv_template,
        fmt::join(serve::text::ConversationPresetNames(), ", ")));
  }

  Json j = Json::object();
  j["version"] = "0.1.0";
  j["model_type"] = config.model_type;
  j["quantization"] = std::string(MlcQuantizationName(options.quantization));
  j["model_config"] = std::move(model);
  j["vocab_size"] = config.vocab_size;
  j["context_window_size"] = window;
  j["sliding_window_size"] = -1;
  j["prefill_chunk_size"] = prefill;
  j["attention_sink_size"] = -1;
  j["tensor_parallel_shards"] = options.tensor_parallel_shards;
  j["pipeline_parallel_stages"] = options.pipeline_parallel_stages;
  j["active_vocab_size"] = active_vocab;
  for (const char* key :
       {"temperature", "presence_penalty", "frequency_penalty", "repetition_penalty", "top_p"}) {
    j[key] = field(key);
  }
  j["tokenizer_files"] = tokenizer_files;
  j["tokenizer_info"] = TokenizerInfo(tokenizer_json);
  j["conv_template"] = Json::parse(serve::text::ConversationTemplateJson(*conv, -1));
  for (const char* key : {"pad_token_id", "bos_token_id", "eos_token_id"}) j[key] = field(key);
  j["model_task"] = "chat";
  j["embedding_metadata"] = nullptr;
  return j.dump(2, ' ', /*ensure_ascii=*/true);
}

}  // namespace pipesplit::models
