// Token generation across pipeline groups (serve/generate.h), on the serving engine.
//
// Generate, steps:
//   1. Check the options and prompts (token ids within embed's table).
//   2. Submit every prompt to an engine that stops when no request is left; the KV cache's
//      default budget is every request that can run at once at its full length in whole pages
//      (at least the context window).
//   3. Run it; each request's tokens (and logits) arrive through its callback. When the
//      caches are made, every prompt with its new tokens must fit a sequence.
//   4. The result on the controller's process: outputs, step counts, timings, the trace.
#include "pipesplit/serve/engine/generate.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <optional>

#include "pipesplit/ir/protocol.h"
#include "src/serve/engine/command.h"

namespace pipesplit::serve {
namespace {

void CheckOptions(const std::vector<std::vector<int32_t>>& prompts,
                  const GenerateOptions& options) {
  const EngineOptions& engine = options.engine;
  if (engine.session.group_size < 1) throw runtime::RuntimeError("a group needs at least 1 worker");
  if (engine.batches_in_flight < 1)
    throw runtime::RuntimeError("batches in flight must be at least 1");
  if (options.max_new_tokens < 1) throw runtime::RuntimeError("max new tokens must be at least 1");
  if (engine.max_batch_size < 0) throw runtime::RuntimeError("max batch size must not be negative");
  if (!(options.sampling.temperature >= 0))
    throw runtime::RuntimeError("temperature must be at least 0");
  if (!(options.sampling.top_p > 0 && options.sampling.top_p <= 1)) {
    throw runtime::RuntimeError("top-p must be in (0, 1]");
  }
  if (engine.context_window_size < 0 || engine.prefill_chunk_size < 1) {
    throw runtime::RuntimeError(
        "the context window must not be negative and the prefill chunk must be at least 1");
  }
  if (prompts.empty()) throw runtime::RuntimeError("there are no prompts");
  for (size_t r = 0; r < prompts.size(); ++r) {
    if (prompts[r].empty()) throw runtime::RuntimeError(fmt::format("prompt {} is empty", r));
    for (int32_t id : prompts[r]) {
      if (id < 0)
        throw runtime::RuntimeError(fmt::format("prompt {} has a negative token id {}", r, id));
    }
    const int64_t length = static_cast<int64_t>(prompts[r].size());
    if (engine.context_window_size > 0 &&
        length + options.max_new_tokens > engine.context_window_size) {
      throw runtime::RuntimeError(fmt::format(
          "prompt {} has {} tokens: with {} new tokens it exceeds the context window of {}", r,
          length, options.max_new_tokens, engine.context_window_size));
    }
  }
}

void CheckTokens(const std::vector<std::vector<int32_t>>& prompts, int64_t vocabulary) {
  for (size_t r = 0; r < prompts.size(); ++r) {
    for (int32_t id : prompts[r]) {
      if (id >= vocabulary) {
        throw runtime::RuntimeError(fmt::format(
            "prompt {} has token id {}, outside the vocabulary of {}", r, id, vocabulary));
      }
    }
  }
}

// Step 2: the tokens of the requests that can run at once (the longest), each at its full
// length in whole pages, and at least the context window.
int64_t FullLengthTokens(const std::vector<std::vector<int32_t>>& prompts,
                         const GenerateOptions& options, int64_t running) {
  std::vector<int64_t> pages;
  for (const std::vector<int32_t>& p : prompts) {
    const int64_t length = static_cast<int64_t>(p.size()) + options.max_new_tokens;
    pages.push_back((length + engine::kPageSize - 1) / engine::kPageSize);
  }
  std::sort(pages.begin(), pages.end(), std::greater<>());
  int64_t tokens = 0;
  for (int64_t i = 0; i < running; ++i) tokens += pages[i] * engine::kPageSize;
  return std::max(tokens, options.engine.context_window_size);
}

}  // namespace

GenerateResult Generate(runtime::Launcher& launcher, const ir::IRModule& mod,
                        const runtime::WeightSource& weights,
                        const std::vector<std::vector<int32_t>>& prompts,
                        const GenerateOptions& options) {
  CheckOptions(prompts, options);  // step 1
  if (const int64_t vocabulary = ServingVocabulary(mod, weights); vocabulary > 0) {
    CheckTokens(prompts, vocabulary);
  }
  const int64_t num_requests = static_cast<int64_t>(prompts.size());
  EngineOptions engine_options = options.engine;  // step 2
  engine_options.max_batch_size =
      options.engine.max_batch_size > 0
          ? std::min<int64_t>(options.engine.max_batch_size, num_requests)
          : num_requests;
  engine_options.kv_cache.max_tokens_cap =
      FullLengthTokens(prompts, options, engine_options.max_batch_size);
  engine_options.max_queue = 0;
  engine_options.gather_busy_time = false;
  engine_options.record_trace = true;
  engine_options.stop_when_idle = true;
  Engine engine(engine_options);
  GenerateResult result;
  result.requests.resize(prompts.size());
  std::optional<std::string> error;
  for (int64_t r = 0; r < num_requests; ++r) {
    EngineRequest request;
    request.prompt = prompts[r];
    request.max_tokens = options.max_new_tokens;
    request.sampling = options.sampling;
    request.sample_key = static_cast<uint64_t>(r);
    RequestOutput& out = result.requests[r];
    engine.Submit(std::move(request), [&, r](const TokenEvent& event) {
      if (event.token >= 0) {
        if (out.tokens.empty()) out.first_token_seconds = event.seconds;
        out.tokens.push_back(event.token);
        if (!event.logits.empty())
          out.logits.emplace_back(event.logits.begin(), event.logits.end());
      }
      if (event.finish == FinishReason::kError && !error) {
        error = fmt::format("prompt {}: {}", r, event.error);
        engine.Shutdown(*error);
      }
    });
  }
  EngineRunResult run = engine.Run(launcher, mod, weights, [&](const EngineInfo& info) {  // step 3
    result.cache = info;
    for (int64_t r = 0; r < num_requests; ++r) {
      const int64_t length = static_cast<int64_t>(prompts[r].size()) + options.max_new_tokens;
      if (length > info.max_sequence_length) {
        throw runtime::RuntimeError(fmt::format(
            "prompt {} has {} tokens: with {} new tokens it needs {}, more than a sequence "
            "of the kv cache holds ({} tokens; {})",
            r, prompts[r].size(), options.max_new_tokens, length, info.max_sequence_length,
            info.budget));
      }
    }
  });
  if (error) throw runtime::RuntimeError(*error);
  result.holds_outputs = run.holds_outputs;  // step 4
  result.seconds = run.seconds;
  result.prefill_steps = run.prefill_steps;
  result.decode_steps = run.decode_steps;
  result.preemptions = run.preemptions;
  result.decode_tokens = run.decode_tokens;
  result.decode_seconds = run.decode_seconds;
  result.trace = std::move(run.trace);
  result.workers = std::move(run.workers);
  if (!result.holds_outputs) result.requests.clear();
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

}  // namespace pipesplit::serve
