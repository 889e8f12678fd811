// Token generation across pipeline groups: MLC-LLM's serving loop over a module in its form
// (embed, batch_prefill, batch_decode, create_paged_kv_cache; shared/spec/mlc-serving.md),
// with several batches in flight.
//
// Every worker group keeps a paged KV cache for its layers (created by the module's
// create_paged_kv_cache on the worker, so it holds the group's slice of layer_partition) and
// the weights of the functions it runs. The controller runs beside the first worker (group 0,
// worker 0): it splits the requests into `batches_in_flight` disjoint batches and keeps one
// step of each in flight. A step is a command every worker receives in one global order:
// sequences to remove and to add, then a forward (prefill of new requests or decode of the
// batch's running ones) that each worker brackets with kv_state_begin_forward/end_forward on
// its cache. Group 0 embeds the step's tokens and runs its stage, which sends its hidden
// states on; the last group sends the logits back to the controller, which samples the next
// tokens and issues the batch's next step. So while group 1 runs batch A's step, group 0 runs
// batch B's. Requests join a batch when it has room and leave it when they finish (continuous
// batching). The schedule depends only on the requests and the options, never on timing: the
// same options give the same steps on any number of groups, so a split run can be compared
// with an unsplit one bit for bit.
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

namespace pipesplit::runtime {

// The module functions the engine calls (MLC's names).
namespace serve_fn {
inline constexpr const char kEmbed[] = "embed";
inline constexpr const char kBatchPrefill[] = "batch_prefill";
inline constexpr const char kBatchDecode[] = "batch_decode";
inline constexpr const char kCreateTirPagedKvCache[] = "create_tir_paged_kv_cache";
inline constexpr const char kCreatePagedKvCache[] = "create_paged_kv_cache";
}  // namespace serve_fn

struct SamplingParams {
  double temperature = 0;  // 0: greedy
  double top_p = 1;        // in (0, 1]
  uint64_t seed = 0;
};

struct GenerateOptions {
  // Groups (group_size must be 1), threads, timeout, kernels and metadata of the session;
  // num_microbatches, max_in_flight and schedule are not used.
  SessionOptions session;
  int batches_in_flight = 1;
  int max_new_tokens = 16;
  // Requests running at once over all batches (each batch takes an equal share); 0: all.
  int max_batch_size = 0;
  // The model's serving sizes (MLC's mlc-chat-config.json); 0: not given. A request's prompt
  // and new tokens must fit in the context window, and the KV cache holds at least that many
  // tokens. A prefill step takes whole prompts of at most prefill_chunk_size tokens in all (a
  // longer prompt is an error: no chunked prefill), and the cache is created with it.
  int64_t context_window_size = 0;
  int64_t prefill_chunk_size = 0;
  SamplingParams sampling;
  // Keep every step's logits of every request in the result (for a bit-for-bit comparison).
  bool keep_logits = false;
  // Called on the controller after each step with the tokens generated so far and the
  // seconds since the start.
  std::function<void(int64_t tokens, double seconds)> progress;
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
  // Tokens sampled from decode steps, and the time from the first decode step's issue to the
  // last token: decode tokens/s is their ratio.
  int64_t decode_tokens = 0;
  double decode_seconds = 0;
  // One track per group; a slice's micro-batch is the batch (0 .. batches_in_flight - 1).
  RunTrace trace;
  std::vector<WorkerReport> workers;  // this process's workers
};

// Generates up to options.max_new_tokens tokens for each prompt on `launcher`'s workers.
// `mod` is unsplit (one group) or split into options.session.num_groups stages by the
// pipeline-parallel rewrite. RuntimeError for options or prompts that cannot run (a missing
// function, a prompt longer than the cache allows, a token id outside the vocabulary); a
// failing worker is a WorkerError as in Launcher::Run.
GenerateResult Generate(Launcher& launcher, const ir::IRModule& mod, const WeightSource& weights,
                        const std::vector<std::vector<int32_t>>& prompts,
                        const GenerateOptions& options);

// The first difference between two generations of the same prompts (token ids, then the bits
// of each step's logits), as "request 3, token 5: ...", or an empty string when they agree.
std::string CompareGenerations(const GenerateResult& expected, const GenerateResult& actual);

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_SERVE_GENERATE_H_
