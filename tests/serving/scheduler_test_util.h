// What the scheduler's tests share (scheduler_test.cc, prefix_cache_test.cc): logits with a
// chosen argmax and requests.
#ifndef PIPESPLIT_TESTS_SERVING_SCHEDULER_TEST_UTIL_H_
#define PIPESPLIT_TESTS_SERVING_SCHEDULER_TEST_UTIL_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "src/serve/engine/scheduler.h"

namespace pipesplit::serve::engine::testing_util {

// Logits whose argmax is `token` for each of `rows` rows.
inline runtime::Tensor LogitsFor(int64_t rows, int64_t vocab, int32_t token) {
  std::vector<double> values(static_cast<size_t>(rows * vocab), 0.0);
  for (int64_t r = 0; r < rows; ++r) values[r * vocab + token] = 1.0;
  return runtime::MakeTensor(DataType::Float(32), {rows, vocab}, values);
}

// A request sampled with its id as key.
inline ScheduledRequest Request(int64_t id, std::vector<int32_t> prompt, int64_t max_tokens) {
  ScheduledRequest r;
  r.id = id;
  r.prompt = std::move(prompt);
  r.max_tokens = max_tokens;
  r.sample_key = static_cast<uint64_t>(id);
  return r;
}

}  // namespace pipesplit::serve::engine::testing_util

#endif  // PIPESPLIT_TESTS_SERVING_SCHEDULER_TEST_UTIL_H_
