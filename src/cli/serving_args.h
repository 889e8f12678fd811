// What `generate` and `serve` share: the module for the groups (split by the
// pipeline-parallel rewrite when it is not split yet) and the KV cache's flags
// (--max-total-tokens, --kv-cache-memory, --prefill-chunk-size).
#ifndef PIPESPLIT_SRC_CLI_SERVING_ARGS_H_
#define PIPESPLIT_SRC_CLI_SERVING_ARGS_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "pipesplit/ir/module.h"
#include "pipesplit/runtime/io/mlc_chat_config.h"
#include "pipesplit/runtime/serve/engine.h"
#include "pipesplit/runtime/text/tokenizer.h"

namespace pipesplit::runtime {
class Launcher;
}

namespace pipesplit::cli {

// The module to run on the groups `launcher` forms for `requested_groups` (0: the module's
// stages) of `requested_group_size` workers (0: the module's tensor_parallel_shards), and the
// groups' shape. RuntimeError when the groups do not fit the module's stages; a group size
// other than the module's shards is a located error (runtime::CheckGroupSize).
struct ServingGroups {
  ir::IRModule module;  // split when it runs on more than one group
  int num_groups = 1;
  int group_size = 1;
};
ServingGroups ServingModuleForGroups(const ir::IRModule& mod, int requested_groups,
                                     int requested_group_size, const runtime::Launcher& launcher,
                                     const std::string& command);

struct KvCacheArgs {
  int64_t max_total_tokens = 0;
  std::string kv_cache_memory;  // "1GiB"
  int64_t prefill_chunk_size = 0;
};
void AddKvCacheOptions(CLI::App* cmd, KvCacheArgs* args, const std::string& default_phrase);
// The budget of the flags (max_tokens_cap left 0); RuntimeError for a malformed size.
runtime::KvCacheBudget KvCacheBudgetOf(const KvCacheArgs& args);

// "kv cache: 1314 pages of 16 tokens (21024 tokens), at most 20.5 MiB per group (--max-total-
// tokens 21000)".
std::string DescribeKvCache(const runtime::EngineInfo& info);

// The tokenizer of `serve` and `generate`: the SentencePiece model at `flag` (--tokenizer),
// else the tokenizer.model of the MLC folder `params` when its mlc-chat-config.json lists one;
// null when neither gives one. RuntimeError naming the file when it cannot be read.
std::unique_ptr<runtime::text::Tokenizer> LoadTokenizer(
    const std::string& flag, const std::string& params,
    const std::optional<runtime::MlcChatConfig>& chat_config);

}  // namespace pipesplit::cli

#endif  // PIPESPLIT_SRC_CLI_SERVING_ARGS_H_
