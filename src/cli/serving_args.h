// What `generate` and `serve` share: the module for the groups (split by the
// pipeline-parallel rewrite when it is not split yet) and the engine's flags, declared once
// (groups, transport, batches, threads, timeout, trace, the KV cache's sizes, kernels).
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
#include "pipesplit/serve/engine/engine.h"
#include "pipesplit/serve/text/conversation.h"
#include "pipesplit/serve/text/tokenizer.h"
#include "src/cli/cli_common.h"
#include "src/cli/weight_args.h"

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

// The KV cache's flags (--max-total-tokens, --kv-cache-memory, --prefill-chunk-size).
struct KvCacheArgs {
  int64_t max_total_tokens = 0;
  std::string kv_cache_memory;  // "1GiB"
  int64_t prefill_chunk_size = 0;
  bool no_prefix_cache = false;
};
// The budget of the flags (max_tokens_cap left 0); RuntimeError for a malformed size.
serve::KvCacheBudget KvCacheBudgetOf(const KvCacheArgs& args);

// The engine's flags, the same in `generate` and `serve`.
struct EngineArgs {
  int groups = 0;      // 0: the module's stages
  int group_size = 0;  // 0: the module's tensor_parallel_shards
  std::string transport = "threads";
  int batches_in_flight = 1;
  int64_t max_batch_size = 0;  // 0: an MLC folder's, else the command's default
  int threads_per_group = 0;   // 0: ThreadsPerGroup's default
  double timeout = 60;
  std::string trace;
  std::string timeline;
  KvCacheArgs kv_cache;
  KernelOptions kernels;
};
// What differs between the two commands' help.
struct EngineHelp {
  std::string max_batch_size_default;  // "all" / "64"
  std::string kv_cache_default;        // the default budget, in words
  std::string mpi_note;                // appended to mpi's description
  std::string trace;
  std::string timeline;
};
void AddEngineOptions(CLI::App* cmd, EngineArgs* args, const EngineHelp& help);

// The engine's options the flags give for `mod` on `groups` (from ServingModuleForGroups):
// the session (groups, workers, timeout, kernels, threads), batches in flight, the running
// requests (the flag, else `config`'s model_config.max_batch_size, else
// `default_max_batch_size`), the prefill chunk (the flag, else the config's, else
// kDefaultPrefillChunkSize), the context window (the config's), the KV cache's budget and
// whether to record a trace. RuntimeError for a malformed --kv-cache-memory.
serve::EngineOptions EngineOptionsOf(const EngineArgs& args, const ServingGroups& groups,
                                     const std::optional<runtime::MlcChatConfig>& config,
                                     int64_t default_max_batch_size);

// "kv cache: 1314 pages of 16 tokens (21024 tokens), at most 20.5 MiB per group (--max-total-
// tokens 21000)".
std::string DescribeKvCache(const serve::EngineInfo& info);

// The tokenizer of `serve` and `generate`: the SentencePiece model or tokenizer.json at `flag`
// (--tokenizer), else the tokenizer.model of the MLC folder `params` when its
// mlc-chat-config.json lists one, else its tokenizer.json; null when none gives one.
// RuntimeError naming the file when it cannot be read.
std::unique_ptr<serve::text::Tokenizer> LoadTokenizer(
    const std::string& flag, const std::string& params,
    const std::optional<runtime::MlcChatConfig>& chat_config);

// The module of `generate` and `serve`: the TVMScript file `module` (with `weights.params`,
// required then), or - `module` an MLC model folder - the module pipesplit writes from its
// mlc-chat-config.json (models/mlc_llama_module.h) with its layers in `groups` pipeline stages,
// the folder giving the weights (`weights.params` set to it).
ir::IRModule LoadServingModule(const std::string& module, WeightArgs* weights, int groups);

// An MLC folder whose config scales RoPE (rope_scaling, Llama 3.1's llama3) with a module that
// does not hand the scaling to the KV cache (MLC's compiled modules carry it inside attention
// kernels the cache does not run, so it would compute plain RoPE): refused, RuntimeError naming
// the way out (the folder alone: the module pipesplit writes passes it).
void RefuseUnappliedRopeScaling(const ir::IRModule& mod,
                                const std::optional<runtime::MlcChatConfig>& chat_config);

// The conversation template of `serve`: `flag` (--conv-template: one of MLC's preset names, or a
// JSON file holding a conv_template object), else the MLC folder's mlc-chat-config.json's; nullopt
// when none gives one. A flag that is neither is a RuntimeError listing the names; a faulty
// template a located error.
std::optional<serve::text::ConversationTemplate> LoadConversationTemplate(
    const std::string& flag, const std::optional<runtime::MlcChatConfig>& chat_config);

}  // namespace pipesplit::cli

#endif  // PIPESPLIT_SRC_CLI_SERVING_ARGS_H_
