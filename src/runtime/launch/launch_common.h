// What the launchers (launch.h) share: OpenBLAS threads set for a run.
#ifndef PIPESPLIT_SRC_RUNTIME_LAUNCH_LAUNCH_COMMON_H_
#define PIPESPLIT_SRC_RUNTIME_LAUNCH_LAUNCH_COMMON_H_

#include <algorithm>

#include "pipesplit/runtime/exec/session.h"
#include "pipesplit/runtime/kernels/linalg.h"
#include "pipesplit/runtime/launch/launch.h"

namespace pipesplit::runtime {

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
