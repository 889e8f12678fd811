// Per-op wall-time counters for profiling the interpreter (a gprof-like manual timer).
//
// Off by default. Enabled by the environment variable PIPESPLIT_OP_PROFILE (any value but
// "0") or by SetOpProfileEnabled; then RunOp adds the time of each kernel call to a counter
// named by the op (a compiled TIR kernel the interpreter calls: "T.<kernel name>", one row per
// kernel, KernelTimer), and the table is printed to stderr at exit (or on demand). The time is the
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

namespace pipesplit::runtime::detail {

struct OpProfileEntry {
  std::string op;
  int64_t calls = 0;
  double seconds = 0;
};

bool OpProfileEnabled();
void SetOpProfileEnabled(bool enabled);
void AddOpTime(const std::string& op, double seconds);
// The counters, most time first.
std::vector<OpProfileEntry> OpProfileSnapshot();
void ResetOpProfile();
// "op calls ms ms/call %" rows, most time first.
std::string FormatOpProfile();

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
  static double ThreadCpuSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  }

  double start_ = 0;
};

// Times one call of the compiled TIR kernel `kernel` as the op "T.<kernel>" when profiling is
// on (the interpreter's R.call_tir family and destination-passing kernel calls).
class KernelTimer {
 public:
  explicit KernelTimer(std::string_view kernel)
      : name_(OpProfileEnabled() ? "T." + std::string(kernel) : std::string()), timer_(name_) {}

 private:
  std::string name_;  // before timer_, which keeps a reference to it
  OpTimer timer_;
};

}  // namespace pipesplit::runtime::detail

#endif  // PIPESPLIT_SRC_RUNTIME_EXEC_OP_PROFILE_H_
