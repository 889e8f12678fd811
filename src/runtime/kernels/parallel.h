// The kernels' chunked parallel loop (see threading.h for the determinism contract).
#ifndef PIPESPLIT_SRC_RUNTIME_KERNELS_PARALLEL_H_
#define PIPESPLIT_SRC_RUNTIME_KERNELS_PARALLEL_H_

#include <cstdint>
#include <functional>

namespace pipesplit::runtime::detail {

// Runs body(chunk) for every chunk in [0, chunks), on the calling thread and the pool's
// workers; returns when all are done. A chunk's exception is rethrown here (the lowest
// failing chunk's, see support::ThreadPool). Nested calls from inside a chunk run serially.
void ParallelFor(int64_t chunks, const std::function<void(int64_t)>& body);

// Elements per chunk of the elementwise kernels.
inline constexpr int64_t kElementwiseChunk = 32768;

// Runs body(begin, end) over [0, n) in chunks of `grain` (serially when n <= grain).
template <typename Body>
void ParallelRange(int64_t n, int64_t grain, Body&& body) {
  if (n <= grain) {
    if (n > 0) body(int64_t{0}, n);
    return;
  }
  const int64_t chunks = (n + grain - 1) / grain;
  ParallelFor(chunks, [&](int64_t c) {
    const int64_t begin = c * grain;
    body(begin, begin + grain < n ? begin + grain : n);
  });
}

}  // namespace pipesplit::runtime::detail

#endif  // PIPESPLIT_SRC_RUNTIME_KERNELS_PARALLEL_H_
