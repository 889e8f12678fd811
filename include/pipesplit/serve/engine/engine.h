// The online serving engine: the core `pipesplit generate` and `pipesplit serve` share.
//
// Requests arrive at any time (Submit is thread-safe) and each gets its tokens through a
// callback as they are sampled. The engine runs on a launcher's worker groups: every group
// keeps MLC's paged KV cache for its layers and the weights of its stages, and a controller
// beside group 0 (worker 0) keeps `batches_in_flight` disjoint batches going, one step of
// each in flight, so that while group 1 runs batch A's step group 0 runs batch B's
// (generate.h says more; the step protocol is in src/serve/engine/command.h).
//
// Memory: the KV cache is sized by a budget (max_total_tokens, or kv_cache_memory bytes per
// group, else a fraction of the memory available at start), not by the requests. Pages hold
// 16 tokens and are counted per sequence. With the prefix cache, finished sequences stay in
// the caches until their pages are needed, and a request sharing whole pages of its tokens
// with one of them (or with a running request: `n` siblings, a shared system prompt) forks
// those pages instead of computing them. A request joins a batch only when the pages of its
// prompt fit (else it waits, first come first served); when a running request needs a page and
// none is free, the youngest running request is preempted: its pages are freed and it waits
// again at the front of the queue, to be prefilled anew from its prompt and the tokens it has
// so far (vLLM's recompute preemption). A request is never dropped for memory.
//
// Steps: each step of a batch carries one token of each of its decoding requests and, up to
// prefill_chunk_size tokens in all, prompts of requests joining it or the next chunk of a long
// prompt (chunked prefill, as MLC's prefill_chunk_size), so streams keep flowing while a long
// prompt enters. A request stops at its max_tokens, at one of its stop tokens, or when it is
// cancelled (its sequence leaves the caches with the next step, its pages return).
//
// Determinism: the scheduling depends only on the order requests arrive in and on the options;
// requests submitted before Run (generate) give the same steps whatever the timing, so a split
// run compares bit for bit with an unsplit one.
#ifndef PIPESPLIT_RUNTIME_SERVE_ENGINE_H_
#define PIPESPLIT_RUNTIME_SERVE_ENGINE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pipesplit/ir/module.h"
#include "pipesplit/runtime/exec/session.h"
#include "pipesplit/runtime/exec/trace.h"
#include "pipesplit/runtime/io/weights.h"
#include "pipesplit/runtime/launch/launch.h"
#include "pipesplit/serve/engine/metrics.h"

namespace pipesplit::serve {

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

// What sizes the KV cache of every group. Both 0: the default (kDefaultMemoryFraction of the
// memory available at start, shared by the groups, and at most max_tokens_cap tokens).
struct KvCacheBudget {
  int64_t max_total_tokens = 0;  // tokens of all sequences together
  int64_t memory_bytes = 0;      // bytes of each group's cache
  int64_t max_tokens_cap = 0;    // the default's ceiling (0: none)
};
inline constexpr double kDefaultMemoryFraction = 0.4;
inline constexpr int64_t kDefaultPrefillChunkSize = 512;

struct EngineOptions {
  // Groups, workers per group (a sharded module's tensor_parallel_shards), threads, timeout,
  // kernels and metadata of the session; num_microbatches, max_in_flight and schedule are not used.
  runtime::SessionOptions session;
  int batches_in_flight = 1;
  // Requests running at once over all batches (each batch takes an equal share).
  int64_t max_batch_size = 64;
  // Tokens one step carries at most (decode rows count one each).
  int64_t prefill_chunk_size = kDefaultPrefillChunkSize;
  // The longest sequence (prompt and generated tokens) of a request; 0: what the cache holds.
  int64_t context_window_size = 0;
  KvCacheBudget kv_cache;
  // Keep the sequences of finished requests in the caches and let a joining request fork the
  // longest prefix (in whole pages) it shares with one of them or with a running request; the
  // kept sequences are evicted, least recently used first, before any request is preempted.
  bool prefix_cache = true;
  // Requests waiting at most (Submit refuses more); 0: no limit.
  int64_t max_queue = 0;
  // Hand every sampled token's logits to its callback (TokenEvent::logits).
  bool keep_logits = false;
  // Record the trace of every step (generate's timeline; off for a long-running server).
  bool record_trace = false;
  // Gather each group's busy time once a second while steps run (the metrics' bubble
  // fraction); off in generate, whose trace has it.
  bool gather_busy_time = false;
  // End Run when no request is left (generate: everything was submitted before Run).
  bool stop_when_idle = false;
  // Called on the controller after each step with the tokens generated so far and the
  // seconds since serving started.
  std::function<void(int64_t tokens, double seconds)> progress;
};

// What the engine settled on at start (EngineOptions, the module and the budget).
struct EngineInfo {
  int num_groups = 1;
  int batches_in_flight = 1;
  int64_t num_pages = 0;  // of every group's cache
  int64_t page_size = 16;
  int64_t max_total_tokens = 0;     // the cache's create argument
  int64_t max_sequence_length = 0;  // a request's prompt and tokens at most
  int64_t max_batch_size = 0;
  int64_t prefill_chunk_size = 0;
  int64_t vocab_size = 0;       // 0: unknown
  int64_t bytes_per_token = 0;  // of the group holding the most layers
  int64_t bytes_per_group = 0;  // its cache at most (allocated as pages are first written)
  std::string budget;           // what sized the cache, as a phrase
};

// The vocabulary of a module in MLC's serving form: the rows of the table embed takes its tokens
// from (its first 2-D weight); 0 when embed reads none.
int64_t ServingVocabulary(const ir::IRModule& mod, const runtime::WeightSource& weights);

enum class FinishReason { kNone, kLength, kStop, kCancelled, kError };
// OpenAI's names: "length", "stop", "abort" (cancelled), "error"; "" for kNone.
std::string_view FinishReasonName(FinishReason reason);

// One sampled token of a request, or its end. The last event of every request has a finish
// reason; a kError or kCancelled one may carry no token (token -1).
struct TokenEvent {
  int32_t token = -1;
  FinishReason finish = FinishReason::kNone;
  // The logits the token was sampled from (keep_logits or EngineRequest::logits; valid during
  // the callback only).
  std::span<const float> logits;
  double seconds = 0;      // since Run started serving
  std::string_view error;  // kError: why
};
// Called on the controller's thread; it must not block (hand the event to another thread).
using TokenSink = std::function<void(const TokenEvent&)>;

struct EngineRequest {
  std::vector<int32_t> prompt;
  int64_t max_tokens = 16;  // capped at what the request's sequence may hold
  SamplingParams sampling;
  // The stream of a sampled request is seeded by (sampling.seed, sample_key, step); by
  // default the key is the request's id.
  std::optional<uint64_t> sample_key;
  std::vector<int32_t> stop_token_ids;
  // Hand the sink the logits of each token (TokenEvent::logits), as keep_logits does for all.
  bool logits = false;
};

struct SubmitResult {
  enum class Status { kOk, kInvalid, kTooLong, kQueueFull, kUnavailable };
  Status status = Status::kOk;
  int64_t id = -1;
  std::string message;  // why, when not kOk
};

struct EngineRunResult {
  // Whether this process ran the controller (always with threads; under MPI, rank 0).
  bool holds_outputs = true;
  double seconds = 0;  // from the start of serving to the last token
  int64_t prefill_steps = 0;
  int64_t decode_steps = 0;
  // Tokens sampled for decoding requests, and the time from the first step with one to the
  // last token: decode tokens/s is their ratio.
  int64_t decode_tokens = 0;
  double decode_seconds = 0;
  int64_t preemptions = 0;
  // One track per group (record_trace); a slice's micro-batch is the batch.
  runtime::RunTrace trace;
  std::vector<runtime::WorkerReport> workers;  // this process's workers
};

class Engine {
 public:
  enum class State { kStarting, kReady, kStopping, kStopped, kFailed };

  explicit Engine(EngineOptions options);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Thread-safe. Queues a request; `sink` receives its tokens. Before the engine is ready
  // (Run has not made the caches yet) every request is taken and checked when Run starts (an
  // invalid one ends with a kError event); once ready, a request that cannot run is refused
  // here: kInvalid (an empty prompt, a token outside the vocabulary, bad sampling), kTooLong
  // (a prompt the cache or the context window can never hold; the message names the limit),
  // kQueueFull (max_queue requests wait), kUnavailable (stopping, stopped or failed).
  SubmitResult Submit(EngineRequest request, TokenSink sink);
  // Thread-safe. Ends the request (a kCancelled event) at the controller's next step; its
  // sequence leaves the caches and its pages return. Unknown or finished ids are ignored.
  void Cancel(int64_t id);
  // Thread-safe. Every open request ends with a kError event saying `reason`, then Run
  // returns.
  void Shutdown(const std::string& reason = "the server is shutting down");

  // Runs the engine on `launcher`'s workers (options.session.num_groups groups of one worker)
  // until Shutdown, or until no request is left with stop_when_idle. `mod` is unsplit (one
  // group) or split into as many stages as groups by the pipeline-parallel rewrite.
  // `on_ready` is called once on the controller's process when the caches are made, before
  // any step (a RuntimeError it throws fails the run). RuntimeError for a module that does
  // not fit; a failing worker is a WorkerError (runtime::Launcher::RunWorkers), after every open
  // request got a kError event naming it.
  EngineRunResult Run(runtime::Launcher& launcher, const ir::IRModule& mod,
                      const runtime::WeightSource& weights,
                      const std::function<void(const EngineInfo&)>& on_ready = nullptr);

  State state() const;
  // Valid once the state is kReady.
  EngineInfo info() const;
  // Thread-safe snapshot.
  EngineMetrics Metrics() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace pipesplit::serve

#endif  // PIPESPLIT_RUNTIME_SERVE_ENGINE_H_
