// The generation controller (controller.h).
#include "src/runtime/serve/controller.h"

#include <algorithm>
#include <span>
#include <utility>

#include "pipesplit/support/check.h"
#include "src/runtime/serve/sampler.h"

namespace pipesplit::runtime::serve {

int64_t BatchCapacity(int64_t num_requests, const GenerateOptions& options) {
  const int64_t total = options.max_batch_size > 0
                            ? std::min<int64_t>(options.max_batch_size, num_requests)
                            : num_requests;
  return std::max<int64_t>(1, (total + options.batches_in_flight - 1) / options.batches_in_flight);
}

int64_t RunningLimit(int64_t num_requests, const GenerateOptions& options) {
  return std::min(num_requests, BatchCapacity(num_requests, options) * options.batches_in_flight);
}

Controller::Controller(const std::vector<std::vector<int32_t>>& prompts,
                       const GenerateOptions& options)
    : prompts_(prompts),
      options_(options),
      batches_(static_cast<size_t>(options.batches_in_flight)),
      outputs_(prompts.size()) {
  capacity_ = BatchCapacity(static_cast<int64_t>(prompts.size()), options);
  for (size_t r = 0; r < prompts.size(); ++r) pending_.push_back(static_cast<int64_t>(r));
}

std::optional<Command> Controller::NextCommand() {
  for (size_t i = 0; i < batches_.size(); ++i) {
    const size_t b = (next_batch_ + i) % batches_.size();
    Batch& batch = batches_[b];
    if (batch.busy) continue;
    Command c;
    c.batch = static_cast<int64_t>(b);
    if (!pending_.empty() && static_cast<int64_t>(batch.running.size()) < capacity_) {
      c.kind = StepKind::kPrefill;
      const int64_t budget = options_.prefill_chunk_size;
      while (!pending_.empty() && static_cast<int64_t>(batch.running.size()) < capacity_) {
        const int64_t r = pending_.front();
        const int64_t length = static_cast<int64_t>(prompts_[r].size());
        if (budget > 0 && !c.add.empty() &&
            static_cast<int64_t>(c.tokens.size()) + length > budget) {
          break;
        }
        pending_.pop_front();
        batch.running.push_back(r);
        c.add.push_back(r);
        c.seq_ids.push_back(r);
        c.lengths.push_back(static_cast<int64_t>(prompts_[r].size()));
        c.tokens.insert(c.tokens.end(), prompts_[r].begin(), prompts_[r].end());
      }
      ++prefill_steps_;
    } else if (!batch.running.empty()) {
      c.kind = StepKind::kDecode;
      for (int64_t r : batch.running) {
        c.seq_ids.push_back(r);
        c.lengths.push_back(1);
        c.tokens.push_back(outputs_[r].tokens.back());
      }
      ++decode_steps_;
    } else {
      continue;
    }
    c.remove = std::exchange(to_remove_, {});
    batch.busy = true;
    next_batch_ = (b + 1) % batches_.size();
    in_flight_.push_back(c);
    return c;
  }
  return std::nullopt;
}

void Controller::Complete(const Tensor& logits, double seconds) {
  PS_CHECK(!in_flight_.empty());
  Command step = std::move(in_flight_.front());
  in_flight_.pop_front();
  Batch& batch = batches_[step.batch];
  batch.busy = false;
  const int64_t rows = static_cast<int64_t>(step.seq_ids.size());
  PS_CHECK(logits.ndim() == 2 && logits.shape()[0] == rows);
  const int64_t vocab = logits.shape()[1];
  const float* data = logits.data<float>();
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t r = step.seq_ids[i];
    RequestOutput& out = outputs_[r];
    std::span<const float> row(data + i * vocab, static_cast<size_t>(vocab));
    const int64_t index = static_cast<int64_t>(out.tokens.size());
    out.tokens.push_back(SampleToken(row, options_.sampling, r, index));
    if (options_.keep_logits) out.logits.emplace_back(row.begin(), row.end());
    if (index == 0) out.first_token_seconds = seconds;
    if (step.kind == StepKind::kDecode) ++decode_tokens_;
    if (static_cast<int>(out.tokens.size()) >= options_.max_new_tokens) {
      std::erase(batch.running, r);
      to_remove_.push_back(r);
      ++finished_;
    }
  }
}

Command Controller::StopCommand() {
  Command c;
  c.kind = StepKind::kStop;
  c.remove = std::exchange(to_remove_, {});
  return c;
}

}  // namespace pipesplit::runtime::serve
