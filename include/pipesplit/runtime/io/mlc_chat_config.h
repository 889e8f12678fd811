// mlc-chat-config.json, the serving configuration `mlc_llm gen_config` writes into a model
// folder: the fields pipesplit's generation uses or will use.
#ifndef PIPESPLIT_RUNTIME_IO_MLC_CHAT_CONFIG_H_
#define PIPESPLIT_RUNTIME_IO_MLC_CHAT_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pipesplit::runtime {

struct MlcChatConfig {
  std::string path;
  // The longest sequence (prompt and generated tokens) the model serves; -1 when unbounded.
  std::optional<int64_t> context_window_size;
  // The most tokens one prefill step takes.
  std::optional<int64_t> prefill_chunk_size;
  // model_config.max_batch_size: the most sequences running at once.
  std::optional<int64_t> max_batch_size;
  // conv_template.stop_token_ids and eos_token_id (an id or a list of ids). Generation does not
  // stop on them yet (a later change adds stop tokens); they are read so it can.
  std::vector<int32_t> stop_token_ids;
  std::vector<int32_t> eos_token_ids;
  // MLC's default sampling (generate stays greedy unless --temperature is given).
  std::optional<double> temperature;
  std::optional<double> top_p;
  std::vector<std::string> tokenizer_files;
  // model_config.rope_scaling, when it is not null (its rope_type, e.g. "llama3").
  std::optional<std::string> rope_scaling_type;
};

// Reads `path`. Every field is optional; one of the wrong type (or a negative size, a token id
// outside int32) is a located error in the file (`path:line:col: error: ...`), as is malformed
// JSON; RuntimeError when the file cannot be read.
MlcChatConfig ReadMlcChatConfig(const std::string& path);

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_IO_MLC_CHAT_CONFIG_H_
