// What generate and serve share (serving_args.h).
#include "src/cli/serving_args.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pipesplit/analysis/well_formed.h"
#include "pipesplit/ir/functor.h"
#include "pipesplit/ir/protocol.h"
#include "pipesplit/models/mlc_llama_module.h"
#include "pipesplit/runtime/exec/pipeline_worker.h"
#include "pipesplit/runtime/exec/weight_table.h"
#include "pipesplit/runtime/launch/launch.h"
#include "pipesplit/script/parser.h"
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
      runtime::AnalyzeEntry(mod, serve::serve_fn::kBatchDecode).stages;
  if (!stages.empty()) {
    runtime::GroupShape shape = form(static_cast<int>(stages.size()));
    return {mod, shape.num_groups, shape.group_size};
  }
  ir::IRModule split = transform::RewritePipelineStages(mod);
  analysis::VerifyWellFormed(split);
  const int split_stages = std::max<int>(
      1,
      static_cast<int>(runtime::AnalyzeEntry(split, serve::serve_fn::kBatchDecode).stages.size()));
  const runtime::GroupShape shape = form(split_stages);
  if (shape.num_groups == 1) return {mod, 1, shape.group_size};
  if (shape.num_groups != split_stages) {
    throw runtime::RuntimeError(fmt::format(
        "the module has {} pipeline stage{}: {} on 1 or {} groups, not {}", split_stages,
        split_stages == 1 ? "" : "s", command, split_stages, shape.num_groups));
  }
  return {split, shape.num_groups, shape.group_size};
}

namespace {

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
  cmd->add_flag("--no-prefix-cache", args->no_prefix_cache,
                "compute every prompt whole: do not keep finished sequences in the KV cache for "
                "later requests that share their first pages, nor fork a running request's");
}

}  // namespace

void AddEngineOptions(CLI::App* cmd, EngineArgs* args, const EngineHelp& help) {
  cmd->add_option("--groups", args->groups, "worker groups (default: the module's stages)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--group-size", args->group_size,
                  "workers per group, each holding a shard of a tensor-parallel module (default: "
                  "the module's tensor_parallel_shards)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--transport", args->transport,
                  "threads (in-process, default) or mpi (one worker per rank, under mpirun" +
                      help.mpi_note + ")")
      ->check(CLI::IsMember({"threads", "mpi"}));
  cmd->add_option("--batches-in-flight", args->batches_in_flight,
                  "disjoint batches of requests kept in flight through the groups (default: 1, "
                  "MLC's schedule)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--max-batch-size", args->max_batch_size,
                  "requests running at once over all batches (default: an MLC folder's "
                  "model_config.max_batch_size, else " +
                      help.max_batch_size_default + ")")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  AddKvCacheOptions(cmd, &args->kv_cache, help.kv_cache_default);
  cmd->add_option("--threads-per-group", args->threads_per_group,
                  "kernel threads of each group, and OpenBLAS threads when given (default: cores "
                  "/ groups for the kernels, OpenBLAS left at 1 because its results depend on "
                  "its thread count)")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--timeout", args->timeout,
                  "seconds a worker waits for a message in a step before failing (default: 60)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--trace", args->trace, help.trace);
  cmd->add_option("--timeline", args->timeline, help.timeline);
  AddKernelOptions(cmd, &args->kernels);
}

serve::EngineOptions EngineOptionsOf(const EngineArgs& args, const ServingGroups& groups,
                                     const std::optional<runtime::MlcChatConfig>& config,
                                     int64_t default_max_batch_size) {
  serve::EngineOptions options;
  options.session.num_groups = groups.num_groups;
  options.session.group_size = groups.group_size;
  options.session.timeout = std::chrono::milliseconds(static_cast<int64_t>(args.timeout * 1000));
  options.session.kernels = LoadKernels(groups.module, args.kernels);
  ApplyThreadsPerGroup(args.threads_per_group, &options.session);
  options.batches_in_flight = args.batches_in_flight;
  options.max_batch_size = args.max_batch_size > 0 ? args.max_batch_size
                           : config && config->max_batch_size.value_or(-1) > 0
                               ? std::min<int64_t>(*config->max_batch_size, int64_t{1} << 20)
                               : default_max_batch_size;
  options.prefill_chunk_size =
      args.kv_cache.prefill_chunk_size > 0                    ? args.kv_cache.prefill_chunk_size
      : config && config->prefill_chunk_size.value_or(-1) > 0 ? *config->prefill_chunk_size
                                                              : serve::kDefaultPrefillChunkSize;
  if (config && config->context_window_size.value_or(-1) > 0) {
    options.context_window_size = *config->context_window_size;
  }
  options.kv_cache = KvCacheBudgetOf(args.kv_cache);
  options.prefix_cache = !args.kv_cache.no_prefix_cache;
  options.record_trace = !args.trace.empty() || !args.timeline.empty();
  return options;
}

serve::KvCacheBudget KvCacheBudgetOf(const KvCacheArgs& args) {
  serve::KvCacheBudget budget;
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

std::string DescribeKvCache(const serve::EngineInfo& info) {
  return fmt::format(
      "kv cache: {} pages of {} tokens ({} tokens), at most {} per group ({}); a sequence holds "
      "at most {} tokens",
      info.num_pages, info.page_size, info.num_pages * info.page_size,
      FormatBytes(info.bytes_per_group), info.budget, info.max_sequence_length);
}

std::unique_ptr<serve::text::Tokenizer> LoadTokenizer(
    const std::string& flag, const std::string& params,
    const std::optional<runtime::MlcChatConfig>& chat_config) {
  std::string path = flag;
  if (path.empty() && chat_config) {
    // A SentencePiece model when the folder has one (as before), else its tokenizer.json.
    for (const char* name : {"tokenizer.model", "tokenizer.json"}) {
      const std::vector<std::string>& files = chat_config->tokenizer_files;
      if (path.empty() && std::find(files.begin(), files.end(), name) != files.end()) {
        path = (std::filesystem::path(params) / name).string();
      }
    }
  }
  if (path.empty()) return nullptr;
  return serve::text::Tokenizer::Load(path);
}

ir::IRModule LoadServingModule(const std::string& module, WeightArgs* weights, int groups) {
  std::error_code ec;
  if (!std::filesystem::is_directory(module, ec)) {
    if (weights->params.empty()) {
      throw runtime::RuntimeError(
          "--params is required with a module file (or give an MLC model folder alone)");
    }
    return LoadModuleForWeights(module, *weights);
  }
  const std::filesystem::path config = std::filesystem::path(module) / "mlc-chat-config.json";
  if (!std::filesystem::exists(config)) {
    throw runtime::RuntimeError(
        fmt::format("{}: not an MLC model folder (no mlc-chat-config.json)", module));
  }
  if (!weights->params.empty() && !std::filesystem::equivalent(weights->params, module, ec)) {
    throw runtime::RuntimeError(
        fmt::format("--params {} with the folder {}: the folder alone gives its weights (or give "
                    "a module file and --params)",
                    weights->params, module));
  }
  weights->params = module;
  const std::string text = models::WriteMlcLlamaModule(
      models::ReadMlcLlamaModuleConfig(config.string()), std::max(groups, 1));
  return script::ParseModule(
      text, (std::filesystem::path(module) / "<module written by pipesplit>").string());
}

namespace {

// Whether a call of the paged KV cache's builtin in `mod` hands it a RoPE scaling (a string as its
// argument 11, where MLC passes rope ext factors).
class RopeScalingFinder : public ir::ExprVisitor {
 public:
  bool found = false;

 protected:
  void VisitExpr_(const ir::CallNode& call) override {
    ir::ExprVisitor::VisitExpr_(call);
    size_t first = 0;  // where the builtin's arguments start
    if (const ir::ExternFuncNode* callee = ir::PackedCallee(call);
        callee != nullptr && callee->global_symbol() == ir::protocol::kPagedKvCacheCreate) {
      first = 1;  // R.call_pure_packed("...create", args...)
    } else if (const auto* op = ir::As<ir::ExternFuncNode>(call.op());
               op == nullptr || op->global_symbol() != ir::protocol::kPagedKvCacheCreate) {
      return;
    }
    found = found || (call.args().size() > first + 11 &&
                      ir::As<ir::StringImmNode>(call.args()[first + 11]) != nullptr);
  }
};

}  // namespace

void RefuseUnappliedRopeScaling(const ir::IRModule& mod,
                                const std::optional<runtime::MlcChatConfig>& chat_config) {
  if (!chat_config || !chat_config->rope_scaling_type) return;
  RopeScalingFinder finder;
  for (const auto& member : mod.members()) {
    if (ir::As<ir::FunctionNode>(member.func) != nullptr) finder.VisitExpr(member.func);
  }
  if (finder.found) return;
  throw runtime::RuntimeError(fmt::format(
      "{}: the model scales RoPE (rope_scaling {}), which MLC's compiled module computes inside "
      "its attention kernels and pipesplit's KV cache does not run; give the folder alone "
      "(pipesplit then writes a module that hands the scaling to the cache)",
      chat_config->path, *chat_config->rope_scaling_type));
}

std::optional<serve::text::ConversationTemplate> LoadConversationTemplate(
    const std::string& flag, const std::optional<runtime::MlcChatConfig>& chat_config) {
  if (flag.empty()) {
    if (!chat_config) return std::nullopt;
    return serve::text::ReadConversationTemplate(chat_config->path);
  }
  if (std::optional<serve::text::ConversationTemplate> preset =
          serve::text::ConversationPreset(flag)) {
    return preset;
  }
  std::ifstream in(flag, std::ios::binary);
  if (!in) {
    throw runtime::RuntimeError(
        fmt::format("--conv-template: '{}' is neither a template pipesplit knows ({}) nor a "
                    "readable JSON file",
                    flag, fmt::join(serve::text::ConversationPresetNames(), ", ")));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return serve::text::ParseConversationTemplate(flag, text.str());
}

}  // namespace pipesplit::cli
