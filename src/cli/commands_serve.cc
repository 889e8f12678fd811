// pipesplit serve: an OpenAI-compatible HTTP server (serve/http/openai_server.h) over the
// serving engine (serve/engine/engine.h) running a module in MLC's serving form on worker
// groups. This file only wires flags: the engine and the server are runtime libraries.
//
// Steps:
//   1. Load the module (split by the pipeline-parallel rewrite for the groups when needed), the
//      weights (an MLC folder's mlc-chat-config.json gives defaults: running requests, prefill
//      chunk, context window, stop tokens, temperature and top_p), the tokenizer (--tokenizer,
//      else the folder's tokenizer.model or tokenizer.json) and the conversation template
//      (--conv-template, else the folder's).
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
#include "pipesplit/runtime/launch/launch.h"
#include "pipesplit/serve/engine/engine.h"
#include "pipesplit/serve/http/openai_server.h"
#include "pipesplit/serve/text/tokenizer.h"
#include "src/cli/cli_common.h"
#include "src/cli/serving_args.h"
#include "src/cli/weight_args.h"

namespace pipesplit::cli {
namespace {

struct ServeArgs {
  std::string module;
  WeightArgs weights;
  std::string tokenizer;
  std::string conv_template;
  std::string host = "127.0.0.1";
  int port = 8000;
  std::string model_name;
  int64_t max_queue = 0;
  EngineArgs engine;
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
  void Watch(serve::Engine& engine) {
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

int ServeOn(runtime::Launcher& launcher, const ServeArgs& given) {
  ServeArgs args = given;
  ir::IRModule loaded = LoadServingModule(args.module, &args.weights, args.engine.groups);  // 1
  const EngineArgs& flags = args.engine;
  const ServingGroups shape =
      ServingModuleForGroups(loaded, flags.groups, flags.group_size, launcher, "serve");
  const ir::IRModule& mod = shape.module;
  const int groups = shape.num_groups;
  const int workers_per_group = shape.group_size;
  Weights opened = OpenWeights(args.weights, loaded, /*read_chat_config=*/true);
  RefuseUnappliedRopeScaling(loaded, opened.chat_config);
  const runtime::WeightSource& weights = *opened.source;
  runtime::CheckWeightTypes(mod, weights);
  std::unique_ptr<serve::text::Tokenizer> tokenizer =
      LoadTokenizer(args.tokenizer, args.weights.params, opened.chat_config);
  const int64_t vocabulary = serve::ServingVocabulary(mod, weights);
  if (tokenizer && vocabulary > 0 && tokenizer->vocab_size() > vocabulary) {
    throw runtime::RuntimeError(
        fmt::format("the tokenizer {} has {} tokens, more than the model's vocabulary of {}",
                    tokenizer->path(), tokenizer->vocab_size(), vocabulary));
  }
  const std::optional<runtime::MlcChatConfig>& config = opened.chat_config;

  serve::EngineOptions options = EngineOptionsOf(flags, shape, config, kDefaultMaxBatchSize);
  options.kv_cache.max_tokens_cap =
      options.max_batch_size *
      (options.context_window_size > 0 ? options.context_window_size : kDefaultContextTokens);
  options.max_queue = args.max_queue;
  options.gather_busy_time = true;

  serve::http::ServerOptions server_options;
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
  server_options.conversation = LoadConversationTemplate(args.conv_template, config);

  SignalWatch signals;  // step 2
  serve::Engine engine(options);
  signals.Watch(engine);
  std::unique_ptr<serve::http::OpenAiServer> server;
  auto on_ready = [&](const serve::EngineInfo& info) {  // step 3
    std::printf("%s\n", DescribeKvCache(info).c_str());
    server = std::make_unique<serve::http::OpenAiServer>(engine, tokenizer.get(), server_options);
    server->Start();
    std::printf(
        "serving '%s' on %d group%s%s, %d batch%s in flight, at http://%s:%d%s\n",
        server_options.model_name.c_str(), groups, groups == 1 ? "" : "s",
        workers_per_group == 1 ? "" : fmt::format(" of {} workers", workers_per_group).c_str(),
        options.batches_in_flight, options.batches_in_flight == 1 ? "" : "es", args.host.c_str(),
        server->port(), tokenizer ? fmt::format(" (tokenizer {})", tokenizer->path()).c_str() : "");
    std::fflush(stdout);
  };
  serve::EngineRunResult result;
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
  write(flags.trace, runtime::ChromeTraceJson(result.trace), "trace");
  write(flags.timeline, runtime::TimelineSvg(result.trace), "timeline");
  return 0;
}

}  // namespace

Runner AddServeCommand(CLI::App& app) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "serve", "serve a module in MLC's serving form over HTTP with the OpenAI API");
  cmd->add_option("module", args->module,
                  "TVMScript module (embed, batch_prefill, ...), or an MLC model folder alone "
                  "(Llama family: pipesplit writes its module)")
      ->required();
  AddWeightOptions(cmd, &args->weights, /*folder_alone=*/true);
  cmd->add_option("--tokenizer", args->tokenizer,
                  "a SentencePiece tokenizer.model or a Hugging Face tokenizer.json: text prompts "
                  "and chat completions (default: an MLC folder's tokenizer.model, else its "
                  "tokenizer.json)");
  cmd->add_option("--conv-template", args->conv_template,
                  "the chat endpoint's conversation template: one of MLC's names (llama-2, "
                  "llama-3, mistral_default, chatml, ...) or a JSON file of one (default: an MLC "
                  "folder's conv_template, else a plain role-tagged template)");
  cmd->add_option("--host", args->host, "the address to listen on (default: 127.0.0.1)");
  cmd->add_option("--port", args->port, "the port to listen on (default: 8000; 0: any free one)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--served-model-name", args->model_name,
                  "the model's name in the API (default: the MLC folder's or the module's name)");
  cmd->add_option("--max-queue", args->max_queue,
                  "requests waiting at most; more are refused with 503 (default: no limit)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  AddEngineOptions(
      cmd, &args->engine,
      {.max_batch_size_default = "64",
       .kv_cache_default = "40% of the available memory shared by the groups, at most the "
                           "running requests at the context window (4096 tokens when the model "
                           "gives none)",
       .mpi_note = "; the HTTP server runs on rank 0",
       .trace = "when the server stops, write every step it ran in Chrome's trace event format "
                "(the steps are kept in memory meanwhile: for benchmarks, not for long runs)",
       .timeline = "when the server stops, write every step it ran as an SVG Gantt chart"});
  return [args] {
    return WithLauncher(args->engine.transport,
                        [&](runtime::Launcher& launcher) { return ServeOn(launcher, *args); });
  };
}

}  // namespace pipesplit::cli
