// What the launchers (launch.h) share: each worker's share of its group's threads.
#ifndef PIPESPLIT_SRC_RUNTIME_LAUNCH_LAUNCH_COMMON_H_
#define PIPESPLIT_SRC_RUNTIME_LAUNCH_LAUNCH_COMMON_H_

#include <algorithm>

#include "pipesplit/runtime/exec/session.h"
#include "pipesplit/runtime/kernels/linalg.h"

namespace pipesplit::runtime {

// A worker's share of `per_group` threads (at least 1); 0 when `per_group` is 0 (unset).
inline int WorkerShare(int per_group, int group_size) {
  return per_group > 0 ? std::max(1, per_group / group_size) : 0;
}

// Sets OpenBLAS to a worker's share of options.blas_threads_per_group for its lifetime, then
// restores the setting it found (process-wide: every worker of the process gets it).
class ScopedBlasThreads {
 public:
  explicit ScopedBlasThreads(const SessionOptions& options)
      : threads_(WorkerShare(options.blas_threads_per_group, options.group_size)) {
    if (threads_ > 0) {
      before_ = GetBlasThreads();
      SetBlasThreads(threads_);
    }
  }
  ~ScopedBlasThreads() {
    if (threads_ > 0) SetBlasThreads(before_);
  }
  ScopedBlasThreads(const ScopedBlasThreads&) = delete;
  ScopedBlasThreads& operator=(const ScopedBlasThreads&) = delete;

 private:
  int threads_;
  int before_ = 0;
};

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_SRC_RUNTIME_LAUNCH_LAUNCH_COMMON_H_
