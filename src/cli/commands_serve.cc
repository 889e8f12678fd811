// pipesplit serve: an OpenAI-compatible HTTP server (runtime/http/openai_server.h) over the
// serving engine (runtime/serve/engine.h) running a module in MLC's serving form on worker
// groups. This file only wires flags: the engine and the server are runtime libraries.
//
// Steps:
//   1. Load the module (split by the pipeline-parallel rewrite for the groups when needed), the
//      weights (an MLC folder's mlc-chat-config.json gives defaults: running requests, prefill
//      chunk, context window, stop tokens, temperature and top_p) and the tokenizer (--tokenizer,
//      else the folder's tokenizer.model when its config lists one).
//   2. SIGINT and SIGTERM shut the engine down (every open request ends with an error event,
//      then the engine stops).
//   3. Run the engine; when its caches are made (on the process of the controller, rank 0
//      under MPI) print their size and start the HTTP server.
//   4. After the engine stops or fails, stop the server (open streams have had their error
//      events); a failure is reported as the named error it is, exit status 1.
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include "pipesplit/runtime/exec/weight_table.h"
#include "pipesplit/runtime/http/openai_server.h"
#include "pipesplit/runtime/launch/launch.h"
#include "pipesplit/runtime/serve/engine.h"
#include "pipesplit/runtime/text/tokenizer.h"
#include "src/cli/cli_common.h"
#include "src/cli/serving_args.h"
#include "src/cli/weight_args.h"

namespace pipesplit::cli {
namespace {

struct ServeArgs {
  std::string module;
  WeightArgs weights;
  std::string tokenizer;
  std::string host = "127.0.0.1";
  int port = 8000;
  std::string model_name;
  int groups = 0;
  int group_size = 0;  // 0: the module's tensor_parallel_shards
  std::string transport = "threads";
  int batches_in_flight = 1;
  int64_t max_batch_size = 0;
  int64_t max_queue = 0;
  int threads_per_group = 1;
  double timeout = 60;
  KvCacheArgs kv_cache;
  std::string trace;
  std::string timeline;
  KernelOptions kernels;
};

constexpr int64_t kDefaultMaxBatchSize = 64;
// The context window assumed for the default KV cache budget when the model gives none.
constexpr int64_t kDefaultContextTokens = 4096;

// Step 2: SIGINT and SIGTERM shut the engine down. The handler only records the signal (any
// thread may take it: OpenBLAS and MPI start threads of their own); a thread polls for it.
volatile std::sig_atomic_t received_signal = 0;
extern "C" void RecordSignal(int signal) { received_signal = signal; }

class SignalWatch {
 public:
  SignalWatch() {
    struct sigaction action {};
    action.sa_handler = RecordSignal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
    std::signal(SIGPIPE, SIG_IGN);  // a client that goes away is a failed write, not a signal
  }
  ~SignalWatch() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  void Watch(runtime::Engine& engine) {
    thread_ = std::thread([this, &engine] {
      while (!stop_) {
        if (const int signal = received_signal) {
          received_signal = 0;
          engine.Shutdown(fmt::format("the server is shutting down ({})",
                                      signal == SIGINT ? "SIGINT" : "SIGTERM"));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    });
  }

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

int ServeOn(runtime::Launcher& launcher, const ServeArgs& args) {
  ir::IRModule loaded = LoadModuleForWeights(args.module, args.weights);  // step 1
  const auto [mod, num_groups, group_size] =
      ServingModuleForGroups(loaded, args.groups, args.group_size, launcher, "serve");
  const int groups = num_groups;
  const int workers_per_group = group_size;
  Weights opened = OpenWeights(args.weights, loaded, /*read_chat_config=*/true);
  const runtime::WeightSource& weights = *opened.source;
  runtime::CheckWeightTypes(mod, weights);
  std::unique_ptr<runtime::text::Tokenizer> tokenizer =
      LoadTokenizer(args.tokenizer, args.weights.params, opened.chat_config);
  const int64_t vocabulary = runtime::ServingVocabulary(mod, weights);
  if (tokenizer && vocabulary > 0 && tokenizer->vocab_size() > vocabulary) {
    throw runtime::RuntimeError(
        fmt::format("the tokenizer {} has {} tokens, more than the model's vocabulary of {}",
                    tokenizer->path(), tokenizer->vocab_size(), vocabulary));
  }
  const std::optional<runtime::MlcChatConfig>& config = opened.chat_config;

  runtime::EngineOptions options;
  options.session.num_groups = groups;
  options.session.group_size = group_size;
  options.session.timeout = std::chrono::milliseconds(static_cast<int64_t>(args.timeout * 1000));
  options.session.kernels = LoadKernels(mod, args.kernels);
  options.session.threads_per_group = args.threads_per_group;
  options.session.blas_threads_per_group = args.threads_per_group;
  options.batches_in_flight = args.batches_in_flight;
  options.max_batch_size = args.max_batch_size > 0 ? args.max_batch_size
                           : config && config->max_batch_size.value_or(-1) > 0
                               ? *config->max_batch_size
                               : kDefaultMaxBatchSize;
  options.prefill_chunk_size =
      args.kv_cache.prefill_chunk_size > 0                    ? args.kv_cache.prefill_chunk_size
      : config && config->prefill_chunk_size.value_or(-1) > 0 ? *config->prefill_chunk_size
                                                              : runtime::kDefaultPrefillChunkSize;
  if (config && config->context_window_size.value_or(-1) > 0) {
    options.context_window_size = *config->context_window_size;
  }
  options.kv_cache = KvCacheBudgetOf(args.kv_cache);
  options.kv_cache.max_tokens_cap =
      options.max_batch_size *
      (options.context_window_size > 0 ? options.context_window_size : kDefaultContextTokens);
  options.max_queue = args.max_queue;
  options.gather_busy_time = true;
  options.record_trace = !args.trace.empty() || !args.timeline.empty();

  runtime::http::ServerOptions server_options;
  server_options.host = args.host;
  server_options.port = args.port;
  server_options.model_name = !args.model_name.empty() ? args.model_name
                              : std::filesystem::is_directory(args.weights.params)
                                  ? std::filesystem::path(args.weights.params).filename().string()
                                  : std::filesystem::path(args.module).stem().string();
  if (config) {
    if (config->temperature && *config->temperature >= 0) {
      server_options.temperature = *config->temperature;
    }
    if (config->top_p && *config->top_p > 0 && *config->top_p <= 1) {
      server_options.top_p = *config->top_p;
    }
    server_options.stop_token_ids = config->stop_token_ids;
    server_options.stop_token_ids.insert(server_options.stop_token_ids.end(),
                                         config->eos_token_ids.begin(),
                                         config->eos_token_ids.end());
  } else if (tokenizer && tokenizer->eos_id() >= 0) {
    server_options.stop_token_ids = {tokenizer->eos_id()};
  }

  SignalWatch signals;  // step 2
  runtime::Engine engine(options);
  signals.Watch(engine);
  std::unique_ptr<runtime::http::OpenAiServer> server;
  auto on_ready = [&](const runtime::EngineInfo& info) {  // step 3
    std::printf("%s\n", DescribeKvCache(info).c_str());
    server = std::make_unique<runtime::http::OpenAiServer>(engine, tokenizer.get(), server_options);
    server->Start();
    std::printf(
        "serving '%s' on %d group%s%s, %d batch%s in flight, at http://%s:%d%s\n",
        server_options.model_name.c_str(), groups, groups == 1 ? "" : "s",
        workers_per_group == 1 ? "" : fmt::format(" of {} workers", workers_per_group).c_str(),
        options.batches_in_flight, options.batches_in_flight == 1 ? "" : "es", args.host.c_str(),
        server->port(), tokenizer ? fmt::format(" (tokenizer {})", tokenizer->path()).c_str() : "");
    std::fflush(stdout);
  };
  runtime::EngineRunResult result;
  try {
    result = engine.Run(launcher, mod, weights, on_ready);
  } catch (...) {
    if (server) server->Stop();  // step 4
    throw;
  }
  if (server) server->Stop();
  auto write = [&](const std::string& path, const std::string& text, const char* what) {
    if (path.empty() || !result.holds_outputs) return;
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) throw runtime::RuntimeError("cannot write " + path);
    std::printf("wrote %s to %s\n", what, path.c_str());
  };
  write(args.trace, runtime::ChromeTraceJson(result.trace), "trace");
  write(args.timeline, runtime::TimelineSvg(result.trace), "timeline");
  return 0;
}

}  // namespace

Runner AddServeCommand(CLI::App& app) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "serve", "serve a module in MLC's serving form over HTTP with the OpenAI API");
  cmd->add_option("module", args->module, "TVMScript module (embed, batch_prefill, ...)")
      ->required();
  AddWeightOptions(cmd, &args->weights);
  cmd->add_option("--tokenizer", args->tokenizer,
                  "a SentencePiece tokenizer.model: text prompts and chat completions (default: "
                  "an MLC folder's tokenizer.model)");
  cmd->add_option("--host", args->host, "the address to listen on (default: 127.0.0.1)");
  cmd->add_option("--port", args->port, "the port to listen on (default: 8000; 0: any free one)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--served-model-name", args->model_name,
                  "the model's name in the API (default: the MLC folder's or the module's name)");
  cmd->add_option("--group-size", args->group_size,
                  "workers per group, each holding a shard of a tensor-parallel module (default: "
                  "the module's tensor_parallel_shards)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--groups", args->groups, "worker groups (default: the module's stages)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--transport", args->transport,
                  "threads (in-process, default) or mpi (one worker per rank, under mpirun; the "
                  "HTTP server runs on rank 0)")
      ->check(CLI::IsMember({"threads", "mpi"}));
  cmd->add_option("--batches-in-flight", args->batches_in_flight,
                  "disjoint batches of requests kept in flight through the groups (default: 1, "
                  "MLC's schedule)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--max-batch-size", args->max_batch_size,
                  "requests running at once over all batches (default: an MLC folder's "
                  "model_config.max_batch_size, else 64)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  cmd->add_option("--max-queue", args->max_queue,
                  "requests waiting at most; more are refused with 503 (default: no limit)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  AddKvCacheOptions(cmd, &args->kv_cache,
                    "40% of the available memory shared by the groups, at most the running "
                    "requests at the context window (4096 tokens when the model gives none)");
  cmd->add_option("--threads-per-group", args->threads_per_group,
                  "kernel and OpenBLAS threads of each group (default: 1)")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--timeout", args->timeout,
                  "seconds a worker waits for a message in a step before failing (default: 60)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--trace", args->trace,
                  "when the server stops, write every step it ran in Chrome's trace event format "
                  "(the steps are kept in memory meanwhile: for benchmarks, not for long runs)");
  cmd->add_option("--timeline", args->timeline,
                  "when the server stops, write every step it ran as an SVG Gantt chart");
  AddKernelOptions(cmd, &args->kernels);
  return [args] {
    return WithLauncher(args->transport,
                        [&](runtime::Launcher& launcher) { return ServeOn(launcher, *args); });
  };
}

}  // namespace pipesplit::cli
