// The generation controller (serve/generate.h): which step each batch runs next, and what the
// sampled tokens change. It is pure bookkeeping (no workers, no clocks): the same prompts and
// options give the same commands whatever the timing, which is what makes a split run
// comparable with an unsplit one.
//
// Batches: `batches_in_flight` of them, each holding at most an equal share of
// max_batch_size running requests and at most one step in flight. NextCommand walks the
// batches round-robin from the one after the last issued, and gives the first idle batch
// with work its step: a prefill of pending requests when it has room (they join it), else a
// decode of its running requests (each appends its last token). A prefill takes whole prompts
// while they fit in options.prefill_chunk_size tokens (when set; always at least one). Complete
// takes the logits of the oldest step in flight, samples a token per row, and retires requests that
// have all their tokens (their sequences are removed by the next command issued).
#ifndef PIPESPLIT_SRC_RUNTIME_SERVE_CONTROLLER_H_
#define PIPESPLIT_SRC_RUNTIME_SERVE_CONTROLLER_H_

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "pipesplit/runtime/serve/generate.h"
#include "src/runtime/serve/command.h"

namespace pipesplit::runtime::serve {

// Requests one batch runs at once: an equal share of max_batch_size (else of all requests).
int64_t BatchCapacity(int64_t num_requests, const GenerateOptions& options);
// Requests running at once over all batches.
int64_t RunningLimit(int64_t num_requests, const GenerateOptions& options);

class Controller {
 public:
  Controller(const std::vector<std::vector<int32_t>>& prompts, const GenerateOptions& options);

  // The next step to issue now, or nullopt when every batch is busy or has no work.
  std::optional<Command> NextCommand();
  // The logits [rows, vocab] of the oldest step in flight, taken at `seconds` since the start.
  void Complete(const Tensor& logits, double seconds);
  size_t in_flight() const { return in_flight_.size(); }
  // Whether every request has all its tokens.
  bool Done() const { return finished_ == outputs_.size(); }
  // The command that ends the session (with the last removals).
  Command StopCommand();

  // Requests running at once in one batch.
  int64_t batch_capacity() const { return capacity_; }
  std::vector<RequestOutput>& outputs() { return outputs_; }
  int64_t prefill_steps() const { return prefill_steps_; }
  int64_t decode_steps() const { return decode_steps_; }
  int64_t decode_tokens() const { return decode_tokens_; }

 private:
  struct Batch {
    std::vector<int64_t> running;  // request ids
    bool busy = false;
  };

  const std::vector<std::vector<int32_t>>& prompts_;
  const GenerateOptions& options_;
  int64_t capacity_;
  std::deque<int64_t> pending_;
  std::vector<Batch> batches_;
  size_t next_batch_ = 0;
  std::deque<Command> in_flight_;
  std::vector<int64_t> to_remove_;
  std::vector<RequestOutput> outputs_;
  size_t finished_ = 0;
  int64_t prefill_steps_ = 0;
  int64_t decode_steps_ = 0;
  int64_t decode_tokens_ = 0;
};

}  // namespace pipesplit::runtime::serve

#endif  // PIPESPLIT_SRC_RUNTIME_SERVE_CONTROLLER_H_
