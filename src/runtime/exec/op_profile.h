// Per-op wall-time counters for profiling the interpreter (a gprof-like manual timer).
//
// Off by default. Enabled by the environment variable PIPESPLIT_OP_PROFILE (any value but
// "0") or by SetOpProfileEnabled; then RunOp adds the time of each kernel call to a counter
// named by the op (a compiled TIR kernel the interpreter calls: "T.<kernel name>", one row per
// kernel, KernelTimer, with the path its calls took: the fast path of runtime/kernels/
// contraction.h or the kernel as written), and the table is printed to stderr at exit (or on
// demand), with the share of kernel time spent on the fast path. The time is the
// CPU time of the calling thread, which other processes competing for the cores do not
// inflate; it covers the whole kernel when kernels and OpenBLAS run on one thread (the
// default, threading.h), and only the calling thread's share otherwise. Counters are
// process-wide and thread-safe; they never change a result.
#ifndef PIPESPLIT_SRC_RUNTIME_EXEC_OP_PROFILE_H_
#define PIPESPLIT_SRC_RUNTIME_EXEC_OP_PROFILE_H_

#include <time.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pipesplit/runtime/kernels/contraction.h"

namespace pipesplit::runtime::detail {

struct OpProfileEntry {
  std::string op;
  int64_t calls = 0;
  double seconds = 0;
  bool kernel = false;      // a compiled TIR kernel's row
  int64_t fast_calls = 0;   // calls that ran on the fast path
  double fast_seconds = 0;  // their time
};

bool OpProfileEnabled();
void SetOpProfileEnabled(bool enabled);
void AddOpTime(const std::string& op, double seconds);
// A compiled kernel's call: `fast` when it ran on the fast path.
void AddKernelTime(const std::string& op, double seconds, bool fast);
// The counters, most time first.
std::vector<OpProfileEntry> OpProfileSnapshot();
void ResetOpProfile();
// "op calls ms ms/call % path" rows, most time first (path: "fast", "written" or "mixed" for
// kernels), and the fast path's share of the kernels' time.
std::string FormatOpProfile();

inline double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Adds the lifetime of the scope to `op` when profiling is on (and `op` is not empty).
class OpTimer {
 public:
  explicit OpTimer(const std::string& op) : op_(OpProfileEnabled() && !op.empty() ? &op : nullptr) {
    if (op_ != nullptr) start_ = ThreadCpuSeconds();
  }
  ~OpTimer() {
    if (op_ != nullptr) AddOpTime(*op_, ThreadCpuSeconds() - start_);
  }
  OpTimer(const OpTimer&) = delete;
  OpTimer& operator=(const OpTimer&) = delete;

 private:
  const std::string* op_;
  double start_ = 0;
};

// Times one call of the compiled TIR kernel `kernel` as the op "T.<kernel>" when profiling is
// on (the interpreter's R.call_tir family and destination-passing kernel calls), and tells
// whether it took the fast path (a contraction ran on this thread during the call).
class KernelTimer {
 public:
  explicit KernelTimer(std::string_view kernel) {
    if (!OpProfileEnabled()) return;
    name_ = "T." + std::string(kernel);
    fast_before_ = FastPathCalls();
    start_ = ThreadCpuSeconds();
  }
  ~KernelTimer() {
    if (name_.empty()) return;
    AddKernelTime(name_, ThreadCpuSeconds() - start_, FastPathCalls() > fast_before_);
  }
  KernelTimer(const KernelTimer&) = delete;
  KernelTimer& operator=(const KernelTimer&) = delete;

 private:
  std::string name_;
  int64_t fast_before_ = 0;
  double start_ = 0;
};

}  // namespace pipesplit::runtime::detail

#endif  // PIPESPLIT_SRC_RUNTIME_EXEC_OP_PROFILE_H_
