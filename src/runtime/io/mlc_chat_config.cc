// mlc-chat-config.json (mlc_chat_config.h).
#include "pipesplit/runtime/io/mlc_chat_config.h"

#include <fmt/format.h>

#include <limits>

#include "src/runtime/io/json_document.h"

namespace pipesplit::runtime {
namespace {

// A size: a positive integer, or -1 (MLC's "not set").
std::optional<int64_t> ReadSize(const JsonValue& object, const char* key) {
  std::optional<JsonValue> value = object.Find(key);
  if (!value || value->IsNull()) return std::nullopt;
  const int64_t n = value->Int();
  if (n < -1 || n == 0)
    value->Fail(fmt::format("'{}' must be positive or -1, got {}", value->Label(), n));
  return n;
}

std::optional<double> ReadNumber(const JsonValue& object, const char* key) {
  std::optional<JsonValue> value = object.Find(key);
  if (!value || value->IsNull()) return std::nullopt;
  return value->Number();
}

int32_t TokenId(const JsonValue& value) {
  const int64_t id = value.Int();
  if (id < 0 || id > std::numeric_limits<int32_t>::max()) {
    value.Fail(fmt::format("'{}' must be a token id, got {}", value.Label(), id));
  }
  return static_cast<int32_t>(id);
}

// A list of token ids; with `allow_single`, one id stands for a list of it.
std::vector<int32_t> ReadTokenIds(const JsonValue& object, const char* key, bool allow_single) {
  std::optional<JsonValue> value = object.Find(key);
  std::vector<int32_t> ids;
  if (!value || value->IsNull()) return ids;
  if (allow_single && value->json().is_number()) return {TokenId(*value)};
  for (size_t i = 0, n = value->ArraySize(); i < n; ++i) ids.push_back(TokenId(value->At(i)));
  return ids;
}

}  // namespace

MlcChatConfig ReadMlcChatConfig(const std::string& path) {
  std::shared_ptr<const JsonDocument> doc = JsonDocument::Load(path);
  JsonValue root = doc->root();
  if (!root.IsObject()) root.Fail("mlc-chat-config.json must be an object");
  MlcChatConfig config;
  config.path = path;
  config.context_window_size = ReadSize(root, "context_window_size");
  config.prefill_chunk_size = ReadSize(root, "prefill_chunk_size");
  if (std::optional<JsonValue> model = root.Find("model_config")) {
    if (!model->IsNull()) config.max_batch_size = ReadSize(*model, "max_batch_size");
    if (std::optional<JsonValue> rope =
            model->IsNull() ? std::nullopt : model->Find("rope_scaling");
        rope && !rope->IsNull()) {
      std::optional<JsonValue> kind = rope->IsObject() ? rope->Find("rope_type") : std::nullopt;
      config.rope_scaling_type = kind ? kind->String() : std::string("unknown");
    }
  }
  if (std::optional<JsonValue> conv = root.Find("conv_template")) {
    if (!conv->IsNull() && !conv->json().is_string()) {  // a template's name, or the template
      config.stop_token_ids = ReadTokenIds(*conv, "stop_token_ids", /*allow_single=*/false);
    }
  }
  config.eos_token_ids = ReadTokenIds(root, "eos_token_id", /*allow_single=*/true);
  config.temperature = ReadNumber(root, "temperature");
  config.top_p = ReadNumber(root, "top_p");
  if (std::optional<JsonValue> files = root.Find("tokenizer_files")) {
    for (size_t i = 0, n = files->ArraySize(); i < n; ++i) {
      config.tokenizer_files.push_back(files->At(i).String());
    }
  }
  return config;
}

}  // namespace pipesplit::runtime
