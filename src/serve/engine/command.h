// The commands the serving controller sends every worker (serve/engine.h), as int64 tensors
// over the session's transport: every worker executes them in the order the controller issued
// them, so the replicated bookkeeping of the KV caches stays the same on every group.
//
// Kinds:
//   kStop       the session ends (after the removals it carries)
//   kPrefill    a step through batch_prefill: rows of any length (new prompts, chunks of
//               prompts, and the decode rows of running requests, one token each)
//   kDecode     a step through batch_decode: every row is one token
//   kSetup      the first command: `tokens` holds the cache's create arguments
//               [max_batch_size, max_total_seq_len, prefill_chunk_size]
//   kHeartbeat  nothing to do (an idle controller sends it so waiting workers do not time out
//               and a failed worker is noticed)
//   kStats      every worker but 0 sends worker 0 its busy seconds (a float64 [1] tensor)
#ifndef PIPESPLIT_SRC_SERVE_ENGINE_COMMAND_H_
#define PIPESPLIT_SRC_SERVE_ENGINE_COMMAND_H_

#include <cstdint>
#include <vector>

#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::serve::engine {

// The tokens of a page of the KV caches the engine creates.
inline constexpr int64_t kPageSize = 16;

enum class StepKind : int64_t {
  kStop = 0,
  kPrefill = 1,
  kDecode = 2,
  kSetup = 3,
  kHeartbeat = 4,
  kStats = 5
};

struct Command {
  StepKind kind = StepKind::kStop;
  int64_t batch = 0;  // the batch (0 .. batches_in_flight - 1) of the step
  // Forks first, as (parent, child, tokens) triples: the child holds the parent's first tokens
  // (a whole number of pages).
  std::vector<int64_t> forks;
  std::vector<int64_t> remove;   // then sequences to remove (finished or preempted requests)
  std::vector<int64_t> add;      // then sequences to add (requests joining)
  std::vector<int64_t> seq_ids;  // the forward's sequences, in row order
  std::vector<int64_t> lengths;  // tokens each appends
  std::vector<int64_t> tokens;   // those tokens, sequence after sequence
};

// [kind, batch, #forks, #remove, #add, #seq, #tokens, forks..., remove..., add..., seq_ids...,
//  lengths..., tokens...] (#forks counts triples).
runtime::Tensor EncodeCommand(const Command& command);
// RuntimeError when `t` is not an encoded command.
Command DecodeCommand(const runtime::Tensor& t);

}  // namespace pipesplit::serve::engine

#endif  // PIPESPLIT_SRC_SERVE_ENGINE_COMMAND_H_
