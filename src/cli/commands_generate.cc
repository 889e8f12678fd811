// pipesplit generate: token generation from a module in MLC's serving form on worker groups
// (runtime/serve/generate.h), optionally proven against the unsplit module (--verify).
//
// Steps:
//   1. Load the module; split it with the pipeline-parallel rewrite when it is not split yet
//      and runs on more than one group; form the groups.
//   2. Read the weights (a safetensors file, or an MLC folder whose mlc-chat-config.json gives
//      defaults) and the prompts (a JSON list of lists of token ids, or a safetensors file of
//      int32 tensors in file order; or texts, encoded by the tokenizer of --tokenizer or of the
//      MLC folder).
//   3. Generate (with --verify: then unsplit on one group, on the process holding the outputs,
//      and compare token ids and logits bit for bit); print the statistics (and, with a
//      tokenizer, each request's text); write the tokens.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <thread>

#include "pipesplit/runtime/exec/weight_table.h"
#include "pipesplit/runtime/io/npy.h"
#include "pipesplit/runtime/io/safetensors.h"
#include "pipesplit/runtime/launch/launch.h"
#include "pipesplit/runtime/serve/generate.h"
#include "pipesplit/runtime/text/tokenizer.h"
#include "pipesplit/support/check.h"
#include "pipesplit/support/diagnostic.h"
#include "src/cli/cli_common.h"
#include "src/cli/serving_args.h"
#include "src/cli/weight_args.h"

namespace pipesplit::cli {
namespace {

struct GenerateArgs {
  std::string module;
  WeightArgs weights;
  std::string prompts;
  std::vector<std::string> prompt_texts;  // --prompt
  std::string tokenizer;
  std::string output;
  std::string dump_logits;
  int max_new_tokens = 16;
  int groups = 0;
  int group_size = 0;  // 0: the module's tensor_parallel_shards
  std::string transport = "threads";
  std::string unsharded;  // --verify: also against the unsharded model
  double tolerance = 1e-5;
  int batches_in_flight = 1;
  int max_batch_size = 0;
  double temperature = 0;
  double top_p = 1;
  uint64_t seed = 0;
  int threads_per_group = 1;
  double timeout = 60;
  std::string trace;
  std::string timeline;
  bool verify = false;
  KernelOptions kernels;
  KvCacheArgs kv_cache;
  // Whether the flag was given (else an MLC folder's config gives the default).
  bool max_batch_size_given = false;
  bool top_p_given = false;
};

// Step 2: the prompts of a JSON or safetensors file.
std::vector<std::vector<int32_t>> LoadPrompts(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw runtime::RuntimeError("cannot open prompts " + path);
  char first = 0;
  in >> first;
  if (first != '[') {
    runtime::SafetensorsFile file = runtime::SafetensorsFile::Open(path);
    std::vector<std::vector<int32_t>> prompts;
    for (const std::string& name : file.names()) {
      runtime::Tensor t = file.Get(name);
      if (t.dtype() != DataType::Int(32) || t.ndim() > 2 || (t.ndim() == 2 && t.shape()[0] != 1)) {
        throw runtime::RuntimeError(
            fmt::format("{}: prompt '{}' is {}, not an int32 [n] or [1, n] tensor of token ids",
                        path, name, t.ToString()));
      }
      prompts.emplace_back(t.data<int32_t>(), t.data<int32_t>() + t.numel());
    }
    return prompts;
  }
  in.seekg(0);
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw runtime::RuntimeError(path + ": not valid JSON (" + e.what() + ")");
  }
  std::vector<std::vector<int32_t>> prompts;
  for (size_t r = 0; r < json.size(); ++r) {
    const nlohmann::json& p = json[r];
    if (!p.is_array()) {
      throw runtime::RuntimeError(path + ": prompt " + std::to_string(r) +
                                  " is not a list of token ids");
    }
    std::vector<int32_t>& ids = prompts.emplace_back();
    for (const nlohmann::json& id : p) {
      if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > INT32_MAX) {
        throw runtime::RuntimeError(path + ": prompt " + std::to_string(r) + " has " + id.dump() +
                                    ", not a token id");
      }
      ids.push_back(id.get<int32_t>());
    }
  }
  return prompts;
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw runtime::RuntimeError("cannot write " + path);
}

// Step 3: what the run measured.
void PrintStats(const runtime::GenerateResult& r, int groups) {
  int64_t tokens = 0;
  double ttft_sum = 0, ttft_max = 0;
  for (const runtime::RequestOutput& o : r.requests) {
    tokens += static_cast<int64_t>(o.tokens.size());
    ttft_sum += o.first_token_seconds;
    ttft_max = std::max(ttft_max, o.first_token_seconds);
  }
  std::printf("generated %lld tokens for %zu requests in %.3f s: %.1f tokens/s\n",
              static_cast<long long>(tokens), r.requests.size(), r.seconds,
              static_cast<double>(tokens) / std::max(r.seconds, 1e-9));
  std::printf("time to first token: mean %.1f ms, max %.1f ms\n",
              1e3 * ttft_sum / static_cast<double>(r.requests.size()), 1e3 * ttft_max);
  std::printf("decode: %lld tokens in %lld steps, %.1f tokens/s; %lld prefill steps\n",
              static_cast<long long>(r.decode_tokens), static_cast<long long>(r.decode_steps),
              static_cast<double>(r.decode_tokens) / std::max(r.decode_seconds, 1e-9),
              static_cast<long long>(r.prefill_steps));
  if (r.preemptions > 0) {
    std::printf("preemptions: %lld (requests recomputed when the kv cache ran out of pages)\n",
                static_cast<long long>(r.preemptions));
  }
  runtime::RunSummary summary = runtime::Summarize(r.trace);
  std::string bubbles;
  for (int g = 0; g < groups && g < static_cast<int>(summary.utilization.size()); ++g) {
    bubbles +=
        fmt::format("{}group {} {:.1f}%", g ? ", " : "", g, 100.0 * (1.0 - summary.utilization[g]));
  }
  std::printf("bubble fraction: %s\n", bubbles.c_str());
}

std::string ResultJson(const runtime::GenerateResult& r,
                       const std::vector<std::vector<int32_t>>& prompts,
                       const runtime::text::Tokenizer* tokenizer) {
  nlohmann::json requests = nlohmann::json::array();
  for (size_t i = 0; i < r.requests.size(); ++i) {
    requests.push_back({{"prompt_tokens", prompts[i].size()},
                        {"tokens", r.requests[i].tokens},
                        {"first_token_seconds", r.requests[i].first_token_seconds}});
    if (tokenizer != nullptr) requests.back()["text"] = tokenizer->Decode(r.requests[i].tokens);
  }
  nlohmann::json out = {{"requests", requests},
                        {"seconds", r.seconds},
                        {"decode_tokens", r.decode_tokens},
                        {"decode_seconds", r.decode_seconds},
                        {"prefill_steps", r.prefill_steps},
                        {"preemptions", r.preemptions},
                        {"decode_steps", r.decode_steps}};
  return out.dump(1) + "\n";
}

// Step 2: the defaults an MLC folder's mlc-chat-config.json gives: the running requests
// (model_config.max_batch_size) and the KV cache's sizes (context window, prefill chunk), and
// top_p for sampling (generation stays greedy unless --temperature is given). Its stop tokens
// are not used yet: generation stops after --max-new-tokens.
void ApplyChatConfig(const runtime::MlcChatConfig& config, const GenerateArgs& args,
                     runtime::GenerateOptions* options) {
  if (!args.max_batch_size_given && config.max_batch_size.value_or(-1) > 0) {
    options->max_batch_size = static_cast<int>(std::min<int64_t>(*config.max_batch_size, 1 << 20));
  }
  if (config.context_window_size.value_or(-1) > 0) {
    options->context_window_size = *config.context_window_size;
  }
  if (config.prefill_chunk_size.value_or(-1) > 0) {
    options->prefill_chunk_size = *config.prefill_chunk_size;
  }
  if (!args.top_p_given && config.top_p && *config.top_p > 0 && *config.top_p <= 1) {
    options->sampling.top_p = *config.top_p;
  }
}

// Step 3: the logits each step sampled from, float32 [requests, steps, vocab]; a request with
// fewer steps than the longest is padded with NaN.
runtime::Tensor LogitsTensor(const runtime::GenerateResult& r) {
  int64_t steps = 0;
  int64_t vocab = 0;
  for (const runtime::RequestOutput& o : r.requests) {
    steps = std::max<int64_t>(steps, static_cast<int64_t>(o.logits.size()));
    if (!o.logits.empty()) vocab = static_cast<int64_t>(o.logits[0].size());
  }
  const int64_t requests = static_cast<int64_t>(r.requests.size());
  runtime::TensorBuilder builder(DataType::Float(32), {requests, steps, vocab});
  float* out = builder.data<float>();
  std::fill(out, out + builder.numel(), std::numeric_limits<float>::quiet_NaN());
  for (int64_t q = 0; q < requests; ++q) {
    const std::vector<std::vector<float>>& logits = r.requests[q].logits;
    for (size_t t = 0; t < logits.size(); ++t) {
      PS_CHECK(static_cast<int64_t>(logits[t].size()) == vocab) << "logits of varying width";
      std::copy(logits[t].begin(), logits[t].end(),
                out + (q * steps + static_cast<int64_t>(t)) * vocab);
    }
  }
  return std::move(builder).Publish();
}

// generate --verify --unsharded: generates with the unsharded model on one worker (options as
// `single`'s) and requires the same token ids and logits within args.tolerance.
bool VerifyUnsharded(const GenerateArgs& args, const runtime::WeightSource& weights,
                     const std::vector<std::vector<int32_t>>& prompts,
                     runtime::GenerateOptions single, const runtime::GenerateResult& result) {
  ir::IRModule mod = LoadModule(args.unsharded);
  runtime::CheckWeightTypes(mod, weights);
  single.session.group_size = 1;
  single.session.kernels = LoadKernels(mod, args.kernels);
  runtime::GenerateResult reference =
      runtime::Generate(*runtime::MakeThreadLauncher(), mod, weights, prompts, single);
  double max_diff = 0;
  for (size_t q = 0; q < prompts.size(); ++q) {
    const runtime::RequestOutput& a = reference.requests[q];
    const runtime::RequestOutput& b = result.requests[q];
    if (a.tokens != b.tokens) {
      std::fprintf(stderr, "error: request %zu: the unsharded model (%s) generates other tokens\n",
                   q, args.unsharded.c_str());
      return false;
    }
    for (size_t t = 0; t < a.logits.size() && t < b.logits.size(); ++t) {
      for (size_t v = 0; v < a.logits[t].size() && v < b.logits[t].size(); ++v) {
        max_diff =
            std::max(max_diff, static_cast<double>(std::fabs(a.logits[t][v] - b.logits[t][v])));
      }
    }
  }
  const bool within = max_diff <= args.tolerance;
  std::printf(
      "unsharded (%s, 1 worker): the same token ids, logits max abs diff %g, %s the tolerance "
      "%g\n",
      args.unsharded.c_str(), max_diff, within ? "within" : "BEYOND", args.tolerance);
  if (!within) std::fprintf(stderr, "error: logits differ from the unsharded model's\n");
  return within;
}

int GenerateOn(runtime::Launcher& launcher, const GenerateArgs& args) {
  ir::IRModule loaded = LoadModuleForWeights(args.module, args.weights);
  auto [mod, groups, group_size] =
      ServingModuleForGroups(loaded, args.groups, args.group_size, launcher, "generate");  // 1
  if (args.verify &&
      !runtime::AnalyzeEntry(loaded, runtime::serve_fn::kBatchDecode).stages.empty()) {
    throw runtime::RuntimeError(
        fmt::format("--verify runs the unsplit module on one group, and {} is split already "
                    "(its stage functions come with it, as in MLC's own multi-stage builds): "
                    "compare --dump-logits of its one-stage build instead",
                    args.module));
  }
  Weights opened = OpenWeights(args.weights, loaded, /*read_chat_config=*/true);  // step 2
  std::unique_ptr<runtime::text::Tokenizer> tokenizer =
      LoadTokenizer(args.tokenizer, args.weights.params, opened.chat_config);
  std::vector<std::vector<int32_t>> prompts;
  if (!args.prompt_texts.empty()) {
    if (!tokenizer) {
      throw runtime::RuntimeError(
          "--prompt needs a tokenizer: give --tokenizer, or --params an MLC folder whose "
          "mlc-chat-config.json lists tokenizer.model");
    }
    for (const std::string& text : args.prompt_texts) prompts.push_back(tokenizer->Encode(text));
  } else if (!args.prompts.empty()) {
    prompts = LoadPrompts(args.prompts);
  } else {
    throw runtime::RuntimeError("give the prompts: --prompts FILE (token ids) or --prompt TEXT");
  }
  const runtime::WeightSource& weights = *opened.source;
  runtime::CheckWeightTypes(mod, weights);  // the split module's stages too

  runtime::GenerateOptions options;
  options.session.num_groups = groups;
  options.session.group_size = group_size;
  options.session.timeout = std::chrono::milliseconds(static_cast<int64_t>(args.timeout * 1000));
  options.session.kernels = LoadKernels(mod, args.kernels);
  options.session.threads_per_group = args.threads_per_group;
  options.session.blas_threads_per_group = args.threads_per_group;
  options.batches_in_flight = args.batches_in_flight;
  options.max_new_tokens = args.max_new_tokens;
  options.max_batch_size = args.max_batch_size;
  options.sampling = {args.temperature, args.top_p, args.seed};
  if (opened.chat_config) ApplyChatConfig(*opened.chat_config, args, &options);
  const runtime::KvCacheBudget budget = KvCacheBudgetOf(args.kv_cache);
  options.max_total_tokens = budget.max_total_tokens;
  options.kv_cache_memory = budget.memory_bytes;
  if (args.kv_cache.prefill_chunk_size > 0) {
    options.prefill_chunk_size = args.kv_cache.prefill_chunk_size;
  }
  options.keep_logits = args.verify || !args.dump_logits.empty();
  const bool show_progress = !args.kernels.quiet && isatty(STDERR_FILENO);
  if (show_progress) {
    options.progress = [](int64_t tokens, double seconds) {
      std::fprintf(stderr, "\r%lld tokens, %.1f tokens/s", static_cast<long long>(tokens),
                   static_cast<double>(tokens) / std::max(seconds, 1e-9));
    };
  }

  runtime::GenerateResult result = runtime::Generate(launcher, mod, weights, prompts, options);
  if (show_progress) std::fprintf(stderr, "\n");
  if (!result.holds_outputs) return 0;
  std::printf("%s\n", DescribeKvCache(result.cache).c_str());
  PrintStats(result, groups);
  if (!args.trace.empty()) {
    WriteText(args.trace, runtime::ChromeTraceJson(result.trace));
    std::printf("wrote trace to %s\n", args.trace.c_str());
  }
  if (!args.timeline.empty()) {
    WriteText(args.timeline, runtime::TimelineSvg(result.trace));
    std::printf("wrote timeline to %s\n", args.timeline.c_str());
  }
  if (tokenizer) {
    for (size_t i = 0; i < result.requests.size(); ++i) {
      std::printf("request %zu: %s\n", i, tokenizer->Decode(result.requests[i].tokens).c_str());
    }
  }
  WriteText(args.output, ResultJson(result, prompts, tokenizer.get()));
  std::printf("wrote tokens to %s\n", args.output.c_str());
  if (!args.dump_logits.empty()) {
    runtime::WriteNpy(args.dump_logits, LogitsTensor(result));
    std::printf("wrote logits to %s\n", args.dump_logits.c_str());
  }
  if (args.verify) {
    // The unsplit reference, on the process holding the split run's outputs (after it, so no
    // MPI rank waits for its commands while the reference runs).
    runtime::GenerateOptions single = options;
    single.session.num_groups = 1;
    single.max_total_tokens = result.cache.max_total_tokens;  // the same pages, the same steps
    single.kv_cache_memory = 0;
    single.session.kernels = LoadKernels(loaded, args.kernels);
    single.progress = nullptr;
    runtime::GenerateResult reference =
        runtime::Generate(*runtime::MakeThreadLauncher(), loaded, weights, prompts, single);
    std::string diff = runtime::CompareGenerations(reference, result);
    if (!diff.empty()) {
      std::fprintf(stderr, "error: split generation differs from unsplit: %s\n", diff.c_str());
      return 1;
    }
    const std::string workers = group_size == 1 ? "" : fmt::format(" x {} workers", group_size);
    std::printf(
        "verified: %zu requests on %d groups%s give the unsplit token ids and logits bit for "
        "bit\n",
        prompts.size(), groups, workers.c_str());
    if (!args.unsharded.empty() && !VerifyUnsharded(args, weights, prompts, single, result)) {
      return 1;
    }
  }
  return 0;
}

}  // namespace

Runner AddGenerateCommand(CLI::App& app) {
  auto args = std::make_shared<GenerateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "generate", "generate tokens from a module in MLC's serving form on worker groups");
  cmd->add_option("module", args->module, "TVMScript module (embed, batch_prefill, ...)")
      ->required();
  AddWeightOptions(cmd, &args->weights);
  CLI::Option* ids =
      cmd->add_option("--prompts", args->prompts,
                      "token ids: a JSON list of lists, or safetensors of int32 tensors");
  cmd->add_option("--prompt", args->prompt_texts,
                  "a prompt as text, encoded by the tokenizer (repeat it for more requests); the "
                  "requests' texts are printed and written too")
      ->excludes(ids);
  cmd->add_option("--tokenizer", args->tokenizer,
                  "a SentencePiece tokenizer.model for --prompt and the texts (default: an MLC "
                  "folder's tokenizer.model)");
  cmd->add_option("-o,--output", args->output, "the generated tokens (JSON)")->required();
  cmd->add_option("--max-new-tokens", args->max_new_tokens, "tokens to generate per prompt")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--group-size", args->group_size,
                  "workers per group, each holding a shard of a tensor-parallel module (default: "
                  "the module's tensor_parallel_shards)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--unsharded", args->unsharded,
                  "with --verify: the same model without tensor parallelism, generated on one "
                  "worker; the same token ids and logits within --tolerance are required");
  cmd->add_option("--tolerance", args->tolerance,
                  "largest absolute logit difference allowed against --unsharded (default 1e-5)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--groups", args->groups, "worker groups (default: the module's stages)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--transport", args->transport,
                  "threads (in-process, default) or mpi (one worker per rank, under mpirun)")
      ->check(CLI::IsMember({"threads", "mpi"}));
  cmd->add_option("--batches-in-flight", args->batches_in_flight,
                  "disjoint batches of requests kept in flight through the groups (default: 1, "
                  "MLC's schedule)")
      ->check(CLI::Range(1, 1024));
  CLI::Option* max_batch_size =
      cmd->add_option("--max-batch-size", args->max_batch_size,
                      "requests running at once over all batches (default: an MLC folder's "
                      "model_config.max_batch_size, else all)")
          ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--temperature", args->temperature, "sampling temperature (default: 0, greedy)")
      ->check(CLI::NonNegativeNumber);
  CLI::Option* top_p =
      cmd->add_option("--top-p", args->top_p,
                      "nucleus sampling mass (default: an MLC folder's top_p, else 1)")
          ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--seed", args->seed, "sampling seed");
  cmd->add_option("--threads-per-group", args->threads_per_group,
                  "kernel and OpenBLAS threads of each group (default: 1)")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--timeout", args->timeout,
                  "seconds a worker waits for a message before failing (default: 60)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--trace", args->trace, "write the timeline in Chrome trace event format");
  cmd->add_option("--timeline", args->timeline, "write the timeline as an SVG Gantt chart");
  cmd->add_option("--dump-logits", args->dump_logits,
                  "write the logits each step sampled from: a NumPy .npy file, float32, "
                  "requests x steps x vocab; a request that stopped early is padded with NaN");
  cmd->add_flag("--verify", args->verify,
                "also generate unsplit on one group; require the same token ids and the same "
                "logits bit for bit");
  AddKvCacheOptions(cmd, &args->kv_cache,
                    "every request at its full length, within 40% of the available memory");
  AddKernelOptions(cmd, &args->kernels);
  return [args, max_batch_size, top_p] {
    args->max_batch_size_given = max_batch_size->count() > 0;
    args->top_p_given = top_p->count() > 0;
    return WithLauncher(args->transport,
                        [&](runtime::Launcher& launcher) { return GenerateOn(launcher, *args); });
  };
}

}  // namespace pipesplit::cli
