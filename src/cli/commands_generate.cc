// pipesplit generate: token generation from a module in MLC's serving form on worker groups
// (serve/engine/generate.h), optionally proven against the unsplit module (--verify).
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
#include "pipesplit/script/printer.h"
#include "pipesplit/serve/engine/generate.h"
#include "pipesplit/serve/text/tokenizer.h"
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
  std::string write_module;  // --write-module: the module run, as TVMScript
  int max_new_tokens = 16;
  std::string unsharded;  // --verify: also against the unsharded model
  double tolerance = 1e-5;
  double temperature = 0;
  double top_p = 1;
  uint64_t seed = 0;
  bool verify = false;
  EngineArgs engine;
  // Whether --top-p was given (else an MLC folder's config gives the default).
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
void PrintStats(const serve::GenerateResult& r, int groups) {
  int64_t tokens = 0;
  double ttft_sum = 0, ttft_max = 0;
  for (const serve::RequestOutput& o : r.requests) {
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

std::string ResultJson(const serve::GenerateResult& r,
                       const std::vector<std::vector<int32_t>>& prompts,
                       const serve::text::Tokenizer* tokenizer) {
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

// Step 3: the logits each step sampled from, float32 [requests, steps, vocab]; a request with
// fewer steps than the longest is padded with NaN.
runtime::Tensor LogitsTensor(const serve::GenerateResult& r) {
  int64_t steps = 0;
  int64_t vocab = 0;
  for (const serve::RequestOutput& o : r.requests) {
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
                     serve::GenerateOptions single, const serve::GenerateResult& result) {
  ir::IRModule mod = LoadModule(args.unsharded);
  runtime::CheckWeightTypes(mod, weights);
  single.engine.session.group_size = 1;
  single.engine.session.kernels = LoadKernels(mod, args.engine.kernels);
  serve::GenerateResult reference =
      serve::Generate(*runtime::MakeThreadLauncher(), mod, weights, prompts, single);
  double max_diff = 0;
  for (size_t q = 0; q < prompts.size(); ++q) {
    const serve::RequestOutput& a = reference.requests[q];
    const serve::RequestOutput& b = result.requests[q];
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

int GenerateOn(runtime::Launcher& launcher, const GenerateArgs& given) {
  GenerateArgs args = given;
  ir::IRModule loaded = LoadServingModule(args.module, &args.weights, args.engine.groups);
  if (!args.write_module.empty()) WriteOutput(args.write_module, script::PrintModule(loaded));
  const ServingGroups shape = ServingModuleForGroups(loaded, args.engine.groups,
                                                     args.engine.group_size, launcher, "generate");
  const ir::IRModule& mod = shape.module;  // step 1
  if (args.verify && !runtime::AnalyzeEntry(loaded, serve::serve_fn::kBatchDecode).stages.empty()) {
    throw runtime::RuntimeError(
        fmt::format("--verify runs the unsplit module on one group, and {} is split already "
                    "(its stage functions come with it, as in MLC's own multi-stage builds): "
                    "compare --dump-logits of its one-stage build instead",
                    args.module));
  }
  Weights opened = OpenWeights(args.weights, loaded, /*read_chat_config=*/true);  // step 2
  RefuseUnappliedRopeScaling(loaded, opened.chat_config);
  std::unique_ptr<serve::text::Tokenizer> tokenizer =
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

  // Step 2: an MLC folder's mlc-chat-config.json gives the defaults of the running requests
  // (model_config.max_batch_size), the KV cache's sizes (context window, prefill chunk) and
  // top_p (generation stays greedy unless --temperature is given). Its stop tokens are not
  // used: generation stops after --max-new-tokens.
  const std::optional<runtime::MlcChatConfig>& config = opened.chat_config;
  serve::GenerateOptions options;
  options.engine = EngineOptionsOf(args.engine, shape, config, /*default_max_batch_size=*/0);
  options.max_new_tokens = args.max_new_tokens;
  options.sampling = {args.temperature, args.top_p, args.seed};
  if (!args.top_p_given && config && config->top_p && *config->top_p > 0 && *config->top_p <= 1) {
    options.sampling.top_p = *config->top_p;
  }
  options.engine.keep_logits = args.verify || !args.dump_logits.empty();
  const bool show_progress = !args.engine.kernels.quiet && isatty(STDERR_FILENO);
  if (show_progress) {
    options.engine.progress = [](int64_t tokens, double seconds) {
      std::fprintf(stderr, "\r%lld tokens, %.1f tokens/s", static_cast<long long>(tokens),
                   static_cast<double>(tokens) / std::max(seconds, 1e-9));
    };
  }

  serve::GenerateResult result = serve::Generate(launcher, mod, weights, prompts, options);
  if (show_progress) std::fprintf(stderr, "\n");
  if (!result.holds_outputs) return 0;
  std::printf("%s\n", DescribeKvCache(result.cache).c_str());
  PrintStats(result, shape.num_groups);
  if (!args.engine.trace.empty()) {
    WriteText(args.engine.trace, runtime::ChromeTraceJson(result.trace));
    std::printf("wrote trace to %s\n", args.engine.trace.c_str());
  }
  if (!args.engine.timeline.empty()) {
    WriteText(args.engine.timeline, runtime::TimelineSvg(result.trace));
    std::printf("wrote timeline to %s\n", args.engine.timeline.c_str());
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
    serve::GenerateOptions single = options;
    single.engine.session.num_groups = 1;
    single.engine.kv_cache.max_total_tokens =
        result.cache.max_total_tokens;  // the same pages, the same steps
    single.engine.kv_cache.memory_bytes = 0;
    single.engine.session.kernels = LoadKernels(loaded, args.engine.kernels);
    single.engine.progress = nullptr;
    serve::GenerateResult reference =
        serve::Generate(*runtime::MakeThreadLauncher(), loaded, weights, prompts, single);
    std::string diff = serve::CompareGenerations(reference, result);
    if (!diff.empty()) {
      std::fprintf(stderr, "error: split generation differs from unsplit: %s\n", diff.c_str());
      return 1;
    }
    const std::string workers =
        shape.group_size == 1 ? "" : fmt::format(" x {} workers", shape.group_size);
    std::printf(
        "verified: %zu requests on %d groups%s give the unsplit token ids and logits bit for "
        "bit\n",
        prompts.size(), shape.num_groups, workers.c_str());
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
  cmd->add_option("module", args->module,
                  "TVMScript module (embed, batch_prefill, ...), or an MLC model folder alone "
                  "(Llama family: pipesplit writes its module)")
      ->required();
  AddWeightOptions(cmd, &args->weights, /*folder_alone=*/true);
  CLI::Option* ids =
      cmd->add_option("--prompts", args->prompts,
                      "token ids: a JSON list of lists, or safetensors of int32 tensors");
  cmd->add_option("--prompt", args->prompt_texts,
                  "a prompt as text, encoded by the tokenizer (repeat it for more requests); the "
                  "requests' texts are printed and written too")
      ->excludes(ids);
  cmd->add_option("--write-module", args->write_module,
                  "also write the module run (before any split) as TVMScript: with an MLC folder "
                  "alone, the module pipesplit wrote for it");
  cmd->add_option("--tokenizer", args->tokenizer,
                  "a SentencePiece tokenizer.model or a Hugging Face tokenizer.json for --prompt "
                  "and the texts (default: an MLC folder's tokenizer.model, else its "
                  "tokenizer.json)");
  cmd->add_option("-o,--output", args->output, "the generated tokens (JSON)")->required();
  cmd->add_option("--max-new-tokens", args->max_new_tokens, "tokens to generate per prompt")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--unsharded", args->unsharded,
                  "with --verify: the same model without tensor parallelism, generated on one "
                  "worker; the same token ids and logits within --tolerance are required");
  cmd->add_option("--tolerance", args->tolerance,
                  "largest absolute logit difference allowed against --unsharded (default 1e-5)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--temperature", args->temperature, "sampling temperature (default: 0, greedy)")
      ->check(CLI::NonNegativeNumber);
  CLI::Option* top_p =
      cmd->add_option("--top-p", args->top_p,
                      "nucleus sampling mass (default: an MLC folder's top_p, else 1)")
          ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--seed", args->seed, "sampling seed");
  cmd->add_option("--dump-logits", args->dump_logits,
                  "write the logits each step sampled from: a NumPy .npy file, float32, "
                  "requests x steps x vocab; a request that stopped early is padded with NaN");
  cmd->add_flag("--verify", args->verify,
                "also generate unsplit on one group; require the same token ids and the same "
                "logits bit for bit");
  AddEngineOptions(
      cmd, &args->engine,
      {.max_batch_size_default = "all",
       .kv_cache_default = "every request at its full length, within 40% of the available memory",
       .mpi_note = "",
       .trace = "write the timeline in Chrome trace event format",
       .timeline = "write the timeline as an SVG Gantt chart"});
  return [args, top_p] {
    args->top_p_given = top_p->count() > 0;
    return WithLauncher(args->engine.transport,
                        [&](runtime::Launcher& launcher) { return GenerateOn(launcher, *args); });
  };
}

}  // namespace pipesplit::cli
