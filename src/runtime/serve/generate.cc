// Token generation across pipeline groups (serve/generate.h).
//
// Generate, steps:
//   1. Check the options and prompts (token ids within embed's table); size the caches for
//      every request at once.
//   2. RunWorkers: every worker makes its ServingWorker (weights, builtins, cache). Worker 0
//      also runs the controller: it issues each step it can to every other worker and runs it
//      itself, then takes the oldest step's logits (from the last group) and samples; the
//      other workers execute the commands they receive until the stop command.
//   3. The result on the controller's process: outputs, step counts, timings, the trace.
#include "pipesplit/runtime/serve/generate.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <deque>
#include <optional>

#include "pipesplit/ir/protocol.h"
#include "src/runtime/serve/controller.h"
#include "src/runtime/serve/serving_worker.h"

namespace pipesplit::runtime {
namespace {

using serve::Command;
using serve::StepKind;

void CheckOptions(const std::vector<std::vector<int32_t>>& prompts,
                  const GenerateOptions& options) {
  if (options.session.group_size != 1) {
    throw RuntimeError("generation runs one worker per group; --group-size must be 1");
  }
  if (options.batches_in_flight < 1) throw RuntimeError("batches in flight must be at least 1");
  if (options.max_new_tokens < 1) throw RuntimeError("max new tokens must be at least 1");
  if (options.max_batch_size < 0) throw RuntimeError("max batch size must not be negative");
  if (!(options.sampling.temperature >= 0)) throw RuntimeError("temperature must be at least 0");
  if (!(options.sampling.top_p > 0 && options.sampling.top_p <= 1)) {
    throw RuntimeError("top-p must be in (0, 1]");
  }
  if (options.context_window_size < 0 || options.prefill_chunk_size < 0) {
    throw RuntimeError("the context window and the prefill chunk must not be negative");
  }
  if (prompts.empty()) throw RuntimeError("there are no prompts");
  for (size_t r = 0; r < prompts.size(); ++r) {
    if (prompts[r].empty()) throw RuntimeError(fmt::format("prompt {} is empty", r));
    for (int32_t id : prompts[r]) {
      if (id < 0) throw RuntimeError(fmt::format("prompt {} has a negative token id {}", r, id));
    }
    const int64_t length = static_cast<int64_t>(prompts[r].size());
    if (options.context_window_size > 0 &&
        length + options.max_new_tokens > options.context_window_size) {
      throw RuntimeError(fmt::format(
          "prompt {} has {} tokens: with {} new tokens it exceeds the context window of {}", r,
          length, options.max_new_tokens, options.context_window_size));
    }
    if (options.prefill_chunk_size > 0 && length > options.prefill_chunk_size) {
      throw RuntimeError(fmt::format(
          "prompt {} has {} tokens, more than a prefill step takes (the prefill chunk is {}; "
          "prompts are prefilled whole)",
          r, length, options.prefill_chunk_size));
    }
  }
}

// The vocabulary: the rows of the table embed takes its tokens from (its first 2-D weight);
// nullopt when embed reads none.
std::optional<int64_t> Vocabulary(const ir::IRModule& mod, const WeightSource& weights) {
  ir::Function embed = mod.LookupFunction(serve_fn::kEmbed);
  if (!embed) return std::nullopt;
  for (const ir::WeightRead& read : ir::WeightReadsOf(*embed)) {
    Tensor table = weights.Load(read.index);
    if (table.ndim() == 2) return table.shape()[0];
  }
  return std::nullopt;
}

void CheckTokens(const std::vector<std::vector<int32_t>>& prompts, int64_t vocabulary) {
  for (size_t r = 0; r < prompts.size(); ++r) {
    for (int32_t id : prompts[r]) {
      if (id >= vocabulary) {
        throw RuntimeError(fmt::format("prompt {} has token id {}, outside the vocabulary of {}", r,
                                       id, vocabulary));
      }
    }
  }
}

// Caches big enough for the requests that can run at once, each at its full length in whole
// pages (the longest ones), and at least the context window; the prefill chunk as configured,
// else every prompt at once.
serve::CacheShape CacheFor(const std::vector<std::vector<int32_t>>& prompts,
                           const GenerateOptions& options) {
  const int64_t running = serve::RunningLimit(static_cast<int64_t>(prompts.size()), options);
  std::vector<int64_t> pages;
  int64_t prompt_tokens = 0;
  for (const std::vector<int32_t>& p : prompts) {
    const int64_t length = static_cast<int64_t>(p.size()) + options.max_new_tokens;
    pages.push_back((length + serve::kPageSize - 1) / serve::kPageSize);
    prompt_tokens += static_cast<int64_t>(p.size());
  }
  std::sort(pages.begin(), pages.end(), std::greater<>());
  serve::CacheShape shape;
  shape.max_batch_size = running;
  shape.max_total_seq_len = 0;
  for (int64_t i = 0; i < running; ++i) shape.max_total_seq_len += pages[i] * serve::kPageSize;
  shape.max_total_seq_len = std::max(shape.max_total_seq_len, options.context_window_size);
  shape.prefill_chunk_size =
      options.prefill_chunk_size > 0 ? options.prefill_chunk_size : prompt_tokens;
  return shape;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Step 2 on worker 0: the controller beside the first group's worker.
void RunController(serve::ServingWorker& worker, Transport& transport,
                   const std::vector<std::vector<int32_t>>& prompts, const GenerateOptions& options,
                   GenerateResult& result) {
  const int num_workers = options.session.num_groups;
  serve::Controller controller(prompts, options);
  const auto start = std::chrono::steady_clock::now();
  std::optional<double> first_decode;
  std::deque<Tensor> local;  // logits of steps this worker ran as the last group
  int64_t tokens = 0;
  auto issue = [&](const Command& command) {
    Tensor encoded = serve::EncodeCommand(command);
    for (int w = 1; w < num_workers; ++w) transport.Send(0, w, encoded);
    if (command.kind == StepKind::kStop) return;
    if (command.kind == StepKind::kDecode && !first_decode) first_decode = SecondsSince(start);
    Tensor logits = worker.Execute(command);
    if (logits.defined()) local.push_back(logits);
  };
  for (;;) {
    while (std::optional<Command> command = controller.NextCommand()) issue(*command);
    if (controller.in_flight() == 0) break;
    Tensor logits;
    if (num_workers == 1) {
      logits = std::move(local.front());
      local.pop_front();
    } else {
      logits = transport.Recv(0, num_workers - 1, options.session.timeout);
    }
    const size_t before = controller.in_flight();
    controller.Complete(logits, SecondsSince(start));
    tokens += static_cast<int64_t>(logits.shape()[0]);
    PS_CHECK(controller.in_flight() + 1 == before);
    if (options.progress) options.progress(tokens, SecondsSince(start));
  }
  PS_CHECK(controller.Done());
  result.seconds = SecondsSince(start);
  issue(controller.StopCommand());
  result.requests = std::move(controller.outputs());
  result.prefill_steps = controller.prefill_steps();
  result.decode_steps = controller.decode_steps();
  result.decode_tokens = controller.decode_tokens();
  result.decode_seconds = first_decode ? result.seconds - *first_decode : 0;
}

// The exception being handled on `worker`, as the WorkerError it reports.
[[noreturn]] void ThrowAsWorkerError(int worker, const std::string& doing) {
  try {
    throw;
  } catch (const TransportAborted& e) {
    throw WorkerError(worker, worker, e.what(), /*aborted=*/true);
  } catch (const WorkerError&) {
    throw;
  } catch (const ExecutionError& e) {
    throw WorkerError(worker, worker, "failed " + doing + ": " + e.what());
  } catch (const std::exception& e) {
    throw WorkerError(worker, worker, "failed " + doing + ": " + e.what());
  }
}

}  // namespace

GenerateResult Generate(Launcher& launcher, const ir::IRModule& mod, const WeightSource& weights,
                        const std::vector<std::vector<int32_t>>& prompts,
                        const GenerateOptions& options) {
  CheckOptions(prompts, options);  // step 1
  if (std::optional<int64_t> vocabulary = Vocabulary(mod, weights)) {
    CheckTokens(prompts, *vocabulary);
  }
  const serve::CacheShape cache = CacheFor(prompts, options);
  const SessionOptions& session = options.session;
  GenerateResult result;
  std::vector<std::optional<WorkerReport>> reports(static_cast<size_t>(session.num_groups));
  std::vector<std::string> group_functions;
  // A link holds at most a command and a tensor per step in flight, and the stop command.
  const size_t link_capacity = 2 * static_cast<size_t>(options.batches_in_flight) + 2;
  std::vector<TraceSlice> slices = launcher.RunWorkers(  // step 2
      session, link_capacity, /*reporter=*/0,
      [&](Transport& transport, int w, TraceRecorder* recorder) {
        std::string doing = "setting up";
        try {
          serve::ServingWorker worker(mod, weights, session, transport, w, recorder, cache);
          doing = "generating";
          if (w == 0) {
            group_functions = worker.StageNames(serve_fn::kBatchDecode);
            RunController(worker, transport, prompts, options, result);
          } else {
            for (;;) {
              Command command = worker.Receive();
              if (command.kind == StepKind::kStop) break;
              doing = fmt::format("in a {} step of batch {}",
                                  command.kind == StepKind::kPrefill ? "prefill" : "decode",
                                  command.batch);
              worker.Execute(command);
              doing = "generating";
            }
          }
          reports[w] = worker.report();
        } catch (...) {
          ThrowAsWorkerError(w, doing);
        }
      });
  if (!reports[0]) {  // step 3
    result.holds_outputs = false;
  } else {
    result.trace = MakeRunTrace(session.num_groups, options.batches_in_flight,
                                std::move(group_functions), std::move(slices));
  }
  for (std::optional<WorkerReport>& r : reports) {
    if (r) result.workers.push_back(std::move(*r));
  }
  return result;
}

std::string CompareGenerations(const GenerateResult& expected, const GenerateResult& actual) {
  if (expected.requests.size() != actual.requests.size()) {
    return fmt::format("{} requests vs {}", expected.requests.size(), actual.requests.size());
  }
  for (size_t r = 0; r < expected.requests.size(); ++r) {
    const RequestOutput& a = expected.requests[r];
    const RequestOutput& b = actual.requests[r];
    const size_t n = std::min(a.tokens.size(), b.tokens.size());
    for (size_t t = 0; t < n; ++t) {
      if (a.tokens[t] != b.tokens[t]) {
        return fmt::format("request {}, token {}: {} vs {}", r, t, a.tokens[t], b.tokens[t]);
      }
    }
    if (a.tokens.size() != b.tokens.size()) {
      return fmt::format("request {}: {} tokens vs {}", r, a.tokens.size(), b.tokens.size());
    }
    if (a.logits.size() != b.logits.size()) {
      return fmt::format("request {}: logits of {} tokens vs {}", r, a.logits.size(),
                         b.logits.size());
    }
    for (size_t t = 0; t < a.logits.size(); ++t) {
      const std::vector<float>& x = a.logits[t];
      const std::vector<float>& y = b.logits[t];
      if (x.size() != y.size()) {
        return fmt::format("request {}, token {}: {} logits vs {}", r, t, x.size(), y.size());
      }
      for (size_t v = 0; v < x.size(); ++v) {
        if (std::bit_cast<uint32_t>(x[v]) != std::bit_cast<uint32_t>(y[v])) {
          return fmt::format("request {}, token {}: logit {} is {:.9g} vs {:.9g}", r, t, v, x[v],
                             y[v]);
        }
      }
    }
  }
  return "";
}

}  // namespace pipesplit::runtime
