// The serving engine's API and Run (engine.h).
//
// Run, steps:
//   1. Check the options, and the steps they give against the module's memory plan (MLC sizes
//      it for its config's max_batch_size and prefill_chunk_size: each function's
//      tir_var_upper_bound); read the vocabulary (the rows of embed's table).
//   2. RunWorkers: every worker makes its ServingWorker (weights, builtins). Worker 0 runs the
//      controller (engine_controller.cc): it sizes the caches, sends every other worker the
//      setup command, and then issues steps until shutdown. The other workers make their cache
//      from the setup command and execute the commands they receive until the stop command.
//   3. The result on the controller's process: step counts, timings, the trace.
// A failure ends every open request with a kError event before it is rethrown.
#include "pipesplit/serve/engine/engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "pipesplit/ir/attr_names.h"
#include "pipesplit/ir/protocol.h"
#include "pipesplit/support/check.h"
#include "src/serve/engine/engine_impl.h"
#include "src/serve/engine/serving_worker.h"

namespace pipesplit::serve {
namespace {

using engine::Command;
using engine::StepKind;

void CheckOptions(const EngineOptions& options) {
  if (options.session.group_size < 1)
    throw runtime::RuntimeError("a group needs at least 1 worker");
  if (options.session.num_groups < 1) throw runtime::RuntimeError("groups must be at least 1");
  if (options.batches_in_flight < 1)
    throw runtime::RuntimeError("batches in flight must be at least 1");
  if (options.max_batch_size < 1) throw runtime::RuntimeError("max batch size must be at least 1");
  if (options.prefill_chunk_size < 1)
    throw runtime::RuntimeError("the prefill chunk must be at least 1");
  if (options.context_window_size < 0) {
    throw runtime::RuntimeError("the context window must not be negative");
  }
  if (options.kv_cache.max_total_tokens < 0 || options.kv_cache.memory_bytes < 0) {
    throw runtime::RuntimeError("the kv cache budget must not be negative");
  }
  if (options.max_queue < 0) throw runtime::RuntimeError("the queue limit must not be negative");
}

// The largest value `var` may take in `function` and its stages (their tir_var_upper_bound;
// the smallest when they differ), if any bounds it.
std::optional<int64_t> UpperBound(const ir::IRModule& mod, const char* function, const char* var) {
  if (!mod.LookupFunction(function)) return std::nullopt;
  std::vector<std::string> names = runtime::AnalyzeEntry(mod, function).stages;
  names.emplace_back(function);
  std::optional<int64_t> bound;
  for (const std::string& name : names) {
    ir::Function f = mod.LookupFunction(name);
    const ir::AttrValue* attr = f ? f->GetAttr(ir::attr::kTirVarUpperBound) : nullptr;
    const ir::AttrMap* map = attr != nullptr ? attr->as_map() : nullptr;
    if (map == nullptr) continue;
    for (const auto& [key, value] : *map) {
      std::optional<int64_t> v = value.ToInt();
      if (key == var && v) bound = std::min(bound.value_or(*v), *v);
    }
  }
  return bound;
}

void CheckStepBounds(const ir::IRModule& mod, const EngineOptions& options) {
  const int64_t rows =
      (options.max_batch_size + options.batches_in_flight - 1) / options.batches_in_flight;
  for (const char* function : {serve_fn::kBatchDecode, serve_fn::kBatchPrefill}) {
    std::optional<int64_t> bound = UpperBound(mod, function, "batch_size");
    if (bound && rows > *bound) {
      throw runtime::RuntimeError(fmt::format(
          "the module's {} is planned for at most {} requests in a step (its tir_var_upper_bound "
          "batch_size, MLC's max_batch_size), but a batch runs up to {} (max batch size {} over "
          "{} batch{} in flight): use a max batch size of at most {}",
          function, *bound, rows, options.max_batch_size, options.batches_in_flight,
          options.batches_in_flight == 1 ? "" : "es", *bound * options.batches_in_flight));
    }
  }
  std::optional<int64_t> tokens = UpperBound(mod, serve_fn::kBatchPrefill, "seq_len");
  if (tokens && options.prefill_chunk_size > *tokens) {
    throw runtime::RuntimeError(fmt::format(
        "the module's {} is planned for at most {} tokens in a step (its tir_var_upper_bound "
        "seq_len, MLC's prefill_chunk_size), but the prefill chunk is {}: use at most {}",
        serve_fn::kBatchPrefill, *tokens, options.prefill_chunk_size, *tokens));
  }
}

// The exception being handled on `worker` of `group`, as the runtime::WorkerError it reports.
[[noreturn]] void ThrowAsWorkerError(int worker, int group, const std::string& doing) {
  try {
    throw;
  } catch (const runtime::TransportAborted& e) {
    throw runtime::WorkerError(worker, group, e.what(), /*aborted=*/true);
  } catch (const runtime::WorkerError&) {
    throw;
  } catch (const std::exception& e) {
    throw runtime::WorkerError(worker, group, "failed " + doing + ": " + e.what());
  }
}

// Step 2 on workers other than 0: make the cache, then execute commands until the stop.
void Follow(engine::ServingWorker& worker, runtime::Transport& transport, int w,
            std::string& doing) {
  Command setup = worker.Receive();
  if (setup.kind == StepKind::kStop) return;  // the controller stopped before setting up
  if (setup.kind != StepKind::kSetup || setup.tokens.size() != 3) {
    throw runtime::RuntimeError("the first command of a session must set up the cache");
  }
  worker.CreateCache({setup.tokens[0], setup.tokens[1], setup.tokens[2]});
  doing = "serving";
  for (;;) {
    Command command = worker.Receive();
    switch (command.kind) {
      case StepKind::kStop:
        return;
      case StepKind::kHeartbeat:
        break;
      case StepKind::kSetup:
        throw runtime::RuntimeError("a second setup command arrived");
      case StepKind::kStats:
        transport.Send(w, 0,
                       runtime::MakeTensor(DataType::Float(64), {1}, {worker.busy_seconds()}));
        break;
      case StepKind::kPrefill:
      case StepKind::kDecode:
        doing =
            fmt::format("in a {} step of batch {}",
                        command.kind == StepKind::kPrefill ? "prefill" : "decode", command.batch);
        worker.Execute(command);
        doing = "serving";
        break;
    }
  }
}

}  // namespace

int64_t ServingVocabulary(const ir::IRModule& mod, const runtime::WeightSource& weights) {
  ir::Function embed = mod.LookupFunction(serve_fn::kEmbed);
  if (!embed) return 0;
  for (const ir::WeightRead& read : ir::WeightReadsOf(*embed)) {
    runtime::Tensor table = weights.Load(read.index);
    if (table.ndim() == 2) return table.shape()[0];
  }
  return 0;
}

std::string_view FinishReasonName(FinishReason reason) {
  switch (reason) {
    case FinishReason::kNone:
      return "";
    case FinishReason::kLength:
      return "length";
    case FinishReason::kStop:
      return "stop";
    case FinishReason::kCancelled:
      return "abort";
    case FinishReason::kError:
      return "error";
  }
  return "";
}

std::optional<SubmitResult> Engine::Impl::Check(EngineRequest& request) const {
  using Status = SubmitResult::Status;
  auto refuse = [](Status status, std::string message) {
    return SubmitResult{status, -1, std::move(message)};
  };
  if (request.prompt.empty()) return refuse(Status::kInvalid, "the prompt is empty");
  for (int32_t id : request.prompt) {
    if (id < 0 || (info.vocab_size > 0 && id >= info.vocab_size)) {
      return refuse(Status::kInvalid, fmt::format("token id {} is outside the vocabulary of {}", id,
                                                  info.vocab_size));
    }
  }
  if (request.max_tokens < 1) return refuse(Status::kInvalid, "max_tokens must be at least 1");
  if (!(request.sampling.temperature >= 0)) {
    return refuse(Status::kInvalid, "temperature must be at least 0");
  }
  if (!(request.sampling.top_p > 0 && request.sampling.top_p <= 1)) {
    return refuse(Status::kInvalid, "top_p must be in (0, 1]");
  }
  const int64_t length = static_cast<int64_t>(request.prompt.size());
  if (length >= info.max_sequence_length) {
    return refuse(Status::kTooLong,
                  fmt::format("the prompt has {} tokens, but a sequence holds at most {} tokens "
                              "(its prompt and at least one generated token; {}), so a prompt "
                              "may have at most {}",
                              length, info.max_sequence_length,
                              options.context_window_size > 0 &&
                                      options.context_window_size == info.max_sequence_length
                                  ? "the context window"
                                  : "the kv cache",
                              info.max_sequence_length - 1));
  }
  request.max_tokens = std::min(request.max_tokens, info.max_sequence_length - length);
  return std::nullopt;
}

void Engine::Impl::FailInbox(const std::string& message) {
  std::vector<Pending> pending;
  {
    std::lock_guard lock(mu);
    pending.swap(inbox);
  }
  for (Pending& p : pending) {
    TokenEvent event;
    event.finish = FinishReason::kError;
    event.error = message;
    p.sink(event);
  }
}

Engine::Engine(EngineOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Engine::~Engine() = default;

SubmitResult Engine::Submit(EngineRequest request, TokenSink sink) {
  Impl& e = *impl_;
  std::lock_guard lock(e.mu);
  if (e.state != State::kStarting && e.state != State::kReady) {
    return {SubmitResult::Status::kUnavailable, -1,
            e.state == State::kFailed ? "the engine failed" : "the server is shutting down"};
  }
  if (e.state == State::kReady) {
    if (std::optional<SubmitResult> refused = e.Check(request)) return *refused;
    if (e.options.max_queue > 0 &&
        e.waiting + static_cast<int64_t>(e.inbox.size()) >= e.options.max_queue) {
      return {SubmitResult::Status::kQueueFull, -1,
              fmt::format("the queue is full ({} requests wait)", e.options.max_queue)};
    }
  }
  const int64_t id = e.next_id++;
  e.inbox.push_back({id, std::move(request), std::move(sink), Clock::now()});
  e.cv.notify_one();
  return {SubmitResult::Status::kOk, id, ""};
}

void Engine::Cancel(int64_t id) {
  Impl& e = *impl_;
  std::lock_guard lock(e.mu);
  e.cancels.push_back(id);
  e.cv.notify_one();
}

void Engine::Shutdown(const std::string& reason) {
  Impl& e = *impl_;
  std::lock_guard lock(e.mu);
  if (!e.shutdown) e.shutdown = reason;
  if (e.state == State::kReady) e.state = State::kStopping;
  e.cv.notify_one();
}

Engine::State Engine::state() const {
  std::lock_guard lock(impl_->mu);
  return impl_->state;
}

EngineInfo Engine::info() const {
  std::lock_guard lock(impl_->mu);
  return impl_->info;
}

EngineMetrics Engine::Metrics() const {
  std::lock_guard lock(impl_->metrics_mu);
  return impl_->metrics;
}

EngineRunResult Engine::Run(runtime::Launcher& launcher, const ir::IRModule& mod,
                            const runtime::WeightSource& weights,
                            const std::function<void(const EngineInfo&)>& on_ready) {
  Impl& e = *impl_;
  const EngineOptions& options = e.options;
  const runtime::SessionOptions& session = options.session;
  EngineRunResult result;
  try {
    CheckOptions(options);  // step 1
    CheckStepBounds(mod, options);
    const int64_t vocabulary = ServingVocabulary(mod, weights);
    {
      std::lock_guard lock(e.mu);
      e.info.vocab_size = vocabulary;
    }
    std::vector<std::optional<runtime::WorkerReport>> reports(
        static_cast<size_t>(session.num_groups * session.group_size));
    std::vector<std::string> group_functions;
    // A link holds at most a command and a tensor per step in flight, a heartbeat, a stats
    // command and its reply, and the stop command.
    const size_t link_capacity = 2 * static_cast<size_t>(options.batches_in_flight) + 4;
    std::vector<runtime::TraceSlice> slices = launcher.RunWorkers(  // step 2
        session, link_capacity, /*reporter=*/0,
        [&](runtime::Transport& transport, int w, runtime::TraceRecorder* recorder) {
          std::string doing = "setting up";
          try {
            engine::ServingWorker worker(mod, weights, session, transport, w,
                                         options.record_trace ? recorder : nullptr);
            if (w == 0) {
              group_functions = worker.StageNames(serve_fn::kBatchDecode);
              doing = "serving";
              e.Control(worker, transport, result, on_ready);
            } else {
              Follow(worker, transport, w, doing);
            }
            reports[w] = worker.report();
          } catch (...) {
            ThrowAsWorkerError(w, w / session.group_size, doing);
          }
        });
    if (!reports[0]) {  // step 3
      result.holds_outputs = false;
    } else if (options.record_trace) {
      result.trace = runtime::MakeRunTrace(session.num_groups, options.batches_in_flight,
                                           std::move(group_functions), std::move(slices));
    }
    for (std::optional<runtime::WorkerReport>& r : reports) {
      if (r) result.workers.push_back(std::move(*r));
    }
  } catch (const std::exception& error) {
    {
      std::lock_guard lock(e.mu);
      e.state = State::kFailed;
    }
    e.FailInbox(error.what());
    throw;
  }
  std::lock_guard lock(e.mu);
  e.state = State::kStopped;
  return result;
}

}  // namespace pipesplit::serve
