// Token generation across pipeline groups: MLC-LLM's serving loop over a module in its form
// (embed, batch_prefill, batch_decode, create_paged_kv_cache; shared/spec/mlc-serving.md),
// with several batches in flight, as a batch job on the serving engine (engine.h).
//
// Every prompt is submitted before the engine starts, so the steps depend only on the prompts
// and the options, never on timing: the same options give the same steps on any number of
// groups, and a split run compares with an unsplit one bit for bit. The engine's KV cache is
// sized by the budget (default: every request at its full length, in whole pages, within the
// engine's default share of the memory); requests that do not fit wait, and running ones are
// preempted and recomputed when a page runs out, so a run never fails for memory.
//
// Sampling: greedy (the first largest logit) at temperature 0; otherwise softmax of
// logits / temperature, nucleus (top-p) cut, and a draw from a stream seeded by (seed,
// request, step), so a request's tokens do not depend on how it was batched.
#ifndef PIPESPLIT_RUNTIME_SERVE_GENERATE_H_
#define PIPESPLIT_RUNTIME_SERVE_GENERATE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "pipesplit/ir/module.h"
#include "pipesplit/runtime/exec/session.h"
#include "pipesplit/runtime/exec/trace.h"
#include "pipesplit/runtime/io/weights.h"
#include "pipesplit/runtime/launch/launch.h"
#include "pipesplit/serve/engine/engine.h"

namespace pipesplit::serve {

// EngineOptions' defaults but a max_batch_size of 0 (every request at once).
inline EngineOptions AllRequestsAtOnce() {
  EngineOptions options;
  options.max_batch_size = 0;
  return options;
}

struct GenerateOptions {
  // The engine's options, declared once for `generate` and `serve` (engine.h). Here a
  // max_batch_size of 0 runs every request at once, and the KV cache's default budget is every
  // request that can run at once at its full length (Generate sets kv_cache.max_tokens_cap);
  // record_trace and stop_when_idle are always on, max_queue and gather_busy_time unused.
  EngineOptions engine = AllRequestsAtOnce();
  int max_new_tokens = 16;
  SamplingParams sampling;
};

struct RequestOutput {
  std::vector<int32_t> tokens;             // the generated tokens
  std::vector<std::vector<float>> logits;  // per generated token (keep_logits)
  double first_token_seconds = 0;          // from the start to its first token
};

struct GenerateResult {
  // Whether this process ran the controller and so holds the outputs (always with threads;
  // under MPI, rank 0).
  bool holds_outputs = true;
  std::vector<RequestOutput> requests;  // in request order
  double seconds = 0;                   // from the start to the last token
  int64_t prefill_steps = 0;
  int64_t decode_steps = 0;
  int64_t preemptions = 0;
  EngineInfo cache;  // the cache the run had (on the process holding the outputs)
  // Tokens sampled from decode steps, and the time from the first decode step's issue to the
  // last token: decode tokens/s is their ratio.
  int64_t decode_tokens = 0;
  double decode_seconds = 0;
  // One track per group; a slice's micro-batch is the batch (0 .. batches_in_flight - 1).
  runtime::RunTrace trace;
  std::vector<runtime::WorkerReport> workers;  // this process's workers
};

// Generates up to options.max_new_tokens tokens for each prompt on `launcher`'s workers.
// `mod` is unsplit (one group) or split into options.session.num_groups stages by the
// pipeline-parallel rewrite. RuntimeError for options or prompts that cannot run (a missing
// function, a prompt longer than the cache allows, a token id outside the vocabulary); a
// failing worker is a WorkerError as in runtime::Launcher::Run.
GenerateResult Generate(runtime::Launcher& launcher, const ir::IRModule& mod,
                        const runtime::WeightSource& weights,
                        const std::vector<std::vector<int32_t>>& prompts,
                        const GenerateOptions& options);

// The first difference between two generations of the same prompts (token ids, then the bits
// of each step's logits), as "request 3, token 5: ...", or an empty string when they agree.
std::string CompareGenerations(const GenerateResult& expected, const GenerateResult& actual);

}  // namespace pipesplit::serve

#endif  // PIPESPLIT_RUNTIME_SERVE_GENERATE_H_
