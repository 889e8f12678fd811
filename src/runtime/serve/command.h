// The commands the generation controller sends every worker (serve/generate.h), one per step,
// as int64 tensors over the session's transport: every worker executes them in the order the
// controller issued them, so the replicated bookkeeping of the KV caches stays the same.
#ifndef PIPESPLIT_SRC_RUNTIME_SERVE_COMMAND_H_
#define PIPESPLIT_SRC_RUNTIME_SERVE_COMMAND_H_

#include <cstdint>
#include <vector>

#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::runtime::serve {

enum class StepKind : int64_t { kStop = 0, kPrefill = 1, kDecode = 2 };

struct Command {
  StepKind kind = StepKind::kStop;
  int64_t batch = 0;             // the batch (0 .. batches_in_flight - 1) of the step
  std::vector<int64_t> remove;   // sequences to remove first (finished requests)
  std::vector<int64_t> add;      // then sequences to add (requests joining)
  std::vector<int64_t> seq_ids;  // the forward's sequences, in row order
  std::vector<int64_t> lengths;  // tokens each appends
  std::vector<int64_t> tokens;   // those tokens, sequence after sequence
};

// [kind, batch, #remove, #add, #seq, #tokens, remove..., add..., seq_ids..., lengths...,
//  tokens...].
Tensor EncodeCommand(const Command& command);
// RuntimeError when `t` is not an encoded command.
Command DecodeCommand(const Tensor& t);

}  // namespace pipesplit::runtime::serve

#endif  // PIPESPLIT_SRC_RUNTIME_SERVE_COMMAND_H_
