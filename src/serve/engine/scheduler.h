// The serving scheduler (serve/engine.h): which step each batch runs next, how many KV pages
// every request holds, and what the sampled tokens change. It is pure bookkeeping (no
// workers, no clocks, no threads): the same calls give the same commands whatever the timing,
// which is what makes a split run comparable with an unsplit one.
//
// Pages: the scheduler mirrors the caches' page accounting exactly (a sequence of n tokens
// holds ceil(n / 16) pages, the first of them possibly shared with other sequences; every
// group's cache has num_pages), so no step it issues can fail for want of pages. Free pages
// are those no sequence holds; part of them is reserved for the rest of the prompts being
// prefilled in chunks.
//
// Prefix cache (prefix_cache.h, with options.prefix_cache): a request that ends (its length,
// a stop token, a cancel) leaves its sequence in the caches as an entry of the prefix cache.
// A request joining a batch forks the sequence - a cache entry or a running request's - that
// shares the most whole pages with its tokens (at least one token is left to feed, whose
// logits give its next token), and is fed only the rest. While a running request has yet to
// compute pages the waiting request shares with it (`n` siblings, a shared system prompt), the
// request waits for them. Entries are evicted, least recently used first, before any running
// request is preempted and whenever a joining request needs their pages.
//
// NextCommand walks the batches round-robin from the one after the last issued and gives the
// first idle batch with work its step, in this order:
//   1. one token for each decoding request of the batch (oldest first); a request whose next
//      token starts a page takes a free page, and when none is free the youngest running
//      request of any batch is preempted (its pages freed, its sequence removed, back to the
//      front of the queue with its tokens so far) until one is - which may be the request
//      itself, which then waits;
//   2. the next chunk of each prompt of the batch still being prefilled, within the step's
//      token budget: prefill_chunk_size less the decode rows and, with steps of other batches
//      in flight, unless the batch runs far fewer requests than they do (it refills), at most
//      what keeps the step within a quarter of the longest of them (and 16 prompt tokens at
//      least), so that the groups' steps stay even and leave no bubbles. A batch filling the
//      pipeline (it runs nothing, and another step is in flight or more requests wait than it
//      takes) is held to that too, or with nothing in flight to a quarter of the chunk: its
//      steps then grow by a quarter each, and the groups after the first start sooner;
//   3. while the batch has room and budget, the first waiting request joins when the pages of
//      its whole prompt (and its tokens so far, after a preemption) are free beyond the
//      reservations and a watermark of 1% of the pages (none when nothing runs); they are
//      reserved for it. It joins whole when its prompt fits the budget left, else in chunks
//      when it is the step's first prefill or its batch is filling the pipeline (then with
//      what budget is left, possibly none: the next steps feed it).
// A fork comes first in its command (before the removals): its parent computed the shared
// tokens in earlier steps, which every group runs before this one.
// A step whose rows are all one token is a decode step, else a prefill step (batch_prefill).
// Complete takes the logits of the oldest step in flight and samples a token for each row
// that ended its sequence's pending tokens; a request ends at a stop token or its max tokens.
// Finished, cancelled and preempted requests' sequences are removed by the next command.
#ifndef PIPESPLIT_SRC_SERVE_ENGINE_SCHEDULER_H_
#define PIPESPLIT_SRC_SERVE_ENGINE_SCHEDULER_H_

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "pipesplit/serve/engine/engine.h"
#include "src/serve/engine/command.h"
#include "src/serve/engine/prefix_cache.h"

namespace pipesplit::serve::engine {

struct SchedulerOptions {
  int batches_in_flight = 1;
  int64_t batch_capacity = 1;        // requests one batch runs at once
  int64_t prefill_chunk_size = 512;  // tokens of one step at most (decode rows count one)
  int64_t num_pages = 1;             // of each group's cache
  int64_t max_sequence_length = 16;  // tokens of one request's sequence at most
  bool prefix_cache = false;         // keep finished sequences and fork shared prefixes
};

// What the prefix cache did.
struct PrefixCacheStats {
  int64_t lookups = 0;        // requests that joined a batch
  int64_t hits = 0;           // of them, those that forked a shared prefix
  int64_t lookup_tokens = 0;  // tokens of the joining requests' sequences
  int64_t hit_tokens = 0;     // of them, tokens forked instead of computed
  int64_t evictions = 0;      // entries evicted for pages (not counting dropped prefixes)
  int64_t entries = 0;        // sequences kept now
};

// A request as the scheduler takes it: checked (a non-empty prompt shorter than
// max_sequence_length, max_tokens at least 1 and within max_sequence_length).
struct ScheduledRequest {
  int64_t id = 0;
  std::vector<int32_t> prompt;
  int64_t max_tokens = 1;
  SamplingParams sampling;
  uint64_t sample_key = 0;
  std::vector<int32_t> stop_token_ids;
};

// A token sampled for a request, or its end (token -1 when it ends without one).
struct SchedulerEvent {
  int64_t request = 0;
  int32_t token = -1;
  FinishReason finish = FinishReason::kNone;
  std::span<const float> logits;  // the row it was sampled from (valid until the next call)
};

class Scheduler {
 public:
  explicit Scheduler(const SchedulerOptions& options);

  // Queues a request (its id must be new).
  void Add(ScheduledRequest request);
  // Ends a waiting or running request with a kCancelled event; unknown ids are ignored.
  void Cancel(int64_t id, FinishReason reason = FinishReason::kCancelled);
  // The next step to issue now, or nullopt when every batch is busy or has no work.
  std::optional<Command> NextCommand();
  // The logits [rows, vocab] of the oldest step in flight.
  void Complete(const runtime::Tensor& logits);
  // The command that ends the session: removes every sequence still in the caches (call it
  // with nothing in flight).
  Command StopCommand();

  // The events since the last ClearEvents (Complete and Cancel add to them).
  const std::vector<SchedulerEvent>& events() const { return events_; }
  void ClearEvents() { events_.clear(); }

  size_t in_flight() const { return in_flight_.size(); }
  bool Idle() const { return waiting_.empty() && running_ == 0; }
  int64_t num_waiting() const { return static_cast<int64_t>(waiting_.size()); }
  int64_t num_running() const { return running_; }
  int64_t num_preempted_waiting() const;
  int64_t pages_used() const { return options_.num_pages - pool_.num_free(); }
  // Pages held by prefix cache entries only (no running request holds them).
  int64_t pages_cached() const;
  PrefixCacheStats prefix_cache_stats() const;
  int64_t preemptions() const { return preemptions_; }
  int64_t prefill_steps() const { return prefill_steps_; }
  int64_t decode_steps() const { return decode_steps_; }
  int64_t decode_tokens() const { return decode_tokens_; }
  // Prompt tokens of requests the first time they joined a batch.
  int64_t prompt_tokens() const { return prompt_tokens_; }
  // Whether the step NextCommand returned last has decode rows (the engine times decode from
  // the first such step).
  bool last_step_decodes() const { return last_step_decodes_; }

 private:
  struct Request {
    ScheduledRequest spec;
    std::vector<int32_t> output;
    int64_t seq = -1;            // its sequence in the caches while it runs
    int batch = -1;              // the batch it runs in
    int64_t computed = 0;        // tokens of its sequence in the caches
    std::vector<int64_t> pages;  // pages its sequence holds (PagePool handles)
    int64_t reserved = 0;        // pages reserved for the rest of its prefill
    int64_t admitted = -1;       // when it joined (youngest: the largest)
    bool joined_once = false;
    bool preempted = false;       // waiting after a preemption
    int64_t preempted_step = -1;  // the NextCommand call that preempted it last
    int64_t fed_step = -1;        // the NextCommand call that fed it last
    int64_t fed = 0;              // the tokens it was fed then
    int64_t length() const { return static_cast<int64_t>(spec.prompt.size() + output.size()); }
    int32_t TokenAt(int64_t i) const;
    // Its first `n` tokens.
    std::vector<int32_t> Tokens(int64_t n) const;
  };
  // The sequence a joining request forks, and the tokens it shares.
  struct Match {
    int64_t seq = -1;
    int64_t length = 0;
    const std::vector<int64_t>* pages = nullptr;
    bool cached = false;  // a prefix cache entry, else a running request
    bool wait = false;    // a running request has yet to compute more shared pages
  };
  struct Row {
    int64_t request;
    int64_t seq;
    bool sample;  // its feed ends the sequence's pending tokens
    bool decode;  // a decoding request's one token
  };
  struct Step {
    int batch;
    std::vector<Row> rows;
    int64_t tokens = 0;
  };
  struct Batch {
    std::vector<int64_t> running;  // request ids in the order they joined
    bool busy = false;
  };

  int64_t Available() const { return pool_.num_free() - reserved_pages_; }
  // Feeds `n` tokens of `r` in the step: its pages (from its reservation first, then free
  // ones), the row and the command's tokens.
  void Feed(Request& r, int64_t n, bool decode, Command& c, Step& step);
  // Frees pages until `n` are available, preempting the youngest running requests; false
  // when `r` itself was preempted.
  bool MakeRoom(int64_t n, const Request& r);
  void Preempt(Request& r);
  // Takes `r` out of its batch; its sequence stays as a prefix cache entry with `keep` (and
  // the prefix cache on), else the next command removes it.
  void Leave(Request& r, bool keep = false);
  Match FindPrefix(const Request& r) const;
  void Finish(Request& r, int32_t token, FinishReason reason, std::span<const float> logits);
  bool Admit(Batch& batch, int b, int64_t& budget, bool& prefilling, bool filling, Command& c,
             Step& step);

  SchedulerOptions options_;
  int64_t watermark_pages_;
  std::unordered_map<int64_t, Request> requests_;
  std::deque<int64_t> waiting_;
  std::vector<Batch> batches_;
  size_t next_batch_ = 0;
  std::deque<Step> in_flight_;
  std::vector<int64_t> to_remove_;
  std::vector<SchedulerEvent> events_;
  int64_t running_ = 0;
  PagePool pool_;
  PrefixCache prefix_;
  PrefixCacheStats prefix_stats_;
  int64_t reserved_pages_ = 0;
  int64_t next_seq_ = 0;
  int64_t next_admission_ = 0;
  int64_t steps_ = 0;  // NextCommand calls
  int64_t preemptions_ = 0;
  int64_t prefill_steps_ = 0;
  int64_t decode_steps_ = 0;
  int64_t decode_tokens_ = 0;
  int64_t prompt_tokens_ = 0;
  bool last_step_decodes_ = false;
};

}  // namespace pipesplit::serve::engine

#endif  // PIPESPLIT_SRC_SERVE_ENGINE_SCHEDULER_H_
