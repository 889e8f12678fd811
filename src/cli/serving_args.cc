// What generate and serve share (serving_args.h).
#include "src/cli/serving_args.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "pipesplit/analysis/well_formed.h"
#include "pipesplit/runtime/exec/pipeline_worker.h"
#include "pipesplit/runtime/exec/weight_table.h"
#include "pipesplit/runtime/launch/launch.h"
#include "pipesplit/support/quantity.h"
#include "pipesplit/transform/pipeline_parallel_rewrite.h"

namespace pipesplit::cli {

ServingGroups ServingModuleForGroups(const ir::IRModule& mod, int requested_groups,
                                     int requested_group_size, const runtime::Launcher& launcher,
                                     const std::string& command) {
  // A tensor-parallel module runs on groups of as many workers as it has shards.
  const runtime::TensorParallelPlan plan = runtime::TensorParallelPlanOf(mod);
  int group_size = requested_group_size;
  if (group_size == 0) {
    group_size =
        launcher.name() == "mpi" && requested_groups > 0 ? 0 : static_cast<int>(plan.shards);
  }
  auto form = [&](int stages) {
    runtime::GroupShape shape = launcher.FormGroups({requested_groups, group_size}, stages);
    runtime::CheckGroupSize(plan, shape.group_size);
    return shape;
  };
  std::vector<std::string> stages =
      runtime::AnalyzeEntry(mod, runtime::serve_fn::kBatchDecode).stages;
  if (!stages.empty()) {
    runtime::GroupShape shape = form(static_cast<int>(stages.size()));
    return {mod, shape.num_groups, shape.group_size};
  }
  ir::IRModule split = transform::RewritePipelineStages(mod);
  analysis::VerifyWellFormed(split);
  const int split_stages = std::max<int>(
      1, static_cast<int>(
             runtime::AnalyzeEntry(split, runtime::serve_fn::kBatchDecode).stages.size()));
  const runtime::GroupShape shape = form(split_stages);
  if (shape.num_groups == 1) return {mod, 1, shape.group_size};
  if (shape.num_groups != split_stages) {
    throw runtime::RuntimeError(fmt::format(
        "the module has {} pipeline stage{}: {} on 1 or {} groups, not {}", split_stages,
        split_stages == 1 ? "" : "s", command, split_stages, shape.num_groups));
  }
  return {split, shape.num_groups, shape.group_size};
}

void AddKvCacheOptions(CLI::App* cmd, KvCacheArgs* args, const std::string& default_phrase) {
  cmd->add_option("--max-total-tokens", args->max_total_tokens,
                  "tokens the KV cache holds, all sequences together, in pages of 16 tokens "
                  "(default: " +
                      default_phrase + ")")
      ->check(CLI::Range(int64_t{16}, int64_t{1} << 40));
  cmd->add_option("--kv-cache-memory", args->kv_cache_memory,
                  "memory of each group's KV cache, such as 1GiB or 512MB (instead of "
                  "--max-total-tokens)")
      ->excludes("--max-total-tokens");
  cmd->add_option("--prefill-chunk-size", args->prefill_chunk_size,
                  "tokens one step takes at most; a longer prompt is prefilled in chunks "
                  "between the decode steps of running requests (default: an MLC folder's "
                  "prefill_chunk_size, else 512)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
}

runtime::KvCacheBudget KvCacheBudgetOf(const KvCacheArgs& args) {
  runtime::KvCacheBudget budget;
  budget.max_total_tokens = args.max_total_tokens;
  if (!args.kv_cache_memory.empty()) {
    std::optional<double> bytes = ParseQuantity(args.kv_cache_memory, {"B"});
    if (!bytes || *bytes >= 9e18) {
      throw runtime::RuntimeError("--kv-cache-memory expects a size such as 1GiB or 512MB, got '" +
                                  args.kv_cache_memory + "'");
    }
    budget.memory_bytes = static_cast<int64_t>(std::llround(*bytes));
  }
  return budget;
}

std::string DescribeKvCache(const runtime::EngineInfo& info) {
  return fmt::format(
      "kv cache: {} pages of {} tokens ({} tokens), at most {} per group ({}); a sequence holds "
      "at most {} tokens",
      info.num_pages, info.page_size, info.num_pages * info.page_size,
      FormatBytes(info.bytes_per_group), info.budget, info.max_sequence_length);
}

std::unique_ptr<runtime::text::Tokenizer> LoadTokenizer(
    const std::string& flag, const std::string& params,
    const std::optional<runtime::MlcChatConfig>& chat_config) {
  std::string path = flag;
  if (path.empty() && chat_config) {
    for (const std::string& file : chat_config->tokenizer_files) {
      if (file == "tokenizer.model") path = (std::filesystem::path(params) / file).string();
    }
  }
  if (path.empty()) return nullptr;
  return runtime::text::Tokenizer::Load(path);
}

}  // namespace pipesplit::cli
