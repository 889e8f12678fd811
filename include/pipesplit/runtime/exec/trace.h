// The timeline of a session run: what every group did when, recorded by the workers (one
// track per group: its first worker), and what can be drawn or measured from it.
//
// Slices: "compute" (one per stage call per micro-batch), "recv" (time a stage spent taking a
// micro-batch from the link, nested in its compute or before it) and "send" (handing one over).
// Times are microseconds since the start of the run.
#ifndef PIPESPLIT_RUNTIME_EXEC_TRACE_H_
#define PIPESPLIT_RUNTIME_EXEC_TRACE_H_

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::runtime {

struct TraceSlice {
  enum class Kind { kCompute, kRecv, kSend };
  Kind kind = Kind::kCompute;
  int group = 0;
  int microbatch = 0;
  double begin_us = 0;
  double end_us = 0;
};

struct RunTrace {
  int num_groups = 0;
  int num_microbatches = 0;
  std::vector<std::string> group_functions;  // the stage function of each group
  std::vector<TraceSlice> slices;
};

// Collects slices from the workers of one run (thread-safe).
class TraceRecorder {
 public:
  using Clock = std::chrono::steady_clock;
  explicit TraceRecorder(Clock::time_point epoch = Clock::now()) : epoch_(epoch) {}
  double Micros(Clock::time_point t) const {
    return std::chrono::duration<double, std::micro>(t - epoch_).count();
  }
  void Add(TraceSlice::Kind kind, int group, int microbatch, Clock::time_point begin,
           Clock::time_point end);
  std::vector<TraceSlice> Take();

 private:
  Clock::time_point epoch_;
  std::mutex mu_;
  std::vector<TraceSlice> slices_;
};

// A run's trace from slices recorded anywhere: sorted by start, times rebased so the first
// slice starts at 0.
RunTrace MakeRunTrace(int num_groups, int num_microbatches,
                      std::vector<std::string> group_functions, std::vector<TraceSlice> slices);

// The slices as a float64 tensor [n, 5] (kind, group, micro-batch, begin, end) and back: how
// MPI ranks hand their group's slices to the rank that reports the run (their recorders share
// the machine's monotonic clock as epoch, so ranks on one host line up).
Tensor SlicesToTensor(const std::vector<TraceSlice>& slices);
// RuntimeError when `t` is not such a tensor.
std::vector<TraceSlice> SlicesFromTensor(const Tensor& t);

// Throughput, bubbles and utilization of a run. A group is busy while it computes and not
// waiting for a receive; the makespan runs from the first slice's start to the last one's end.
struct RunSummary {
  double seconds = 0;  // makespan
  double microbatches_per_second = 0;
  double bubble_fraction = 0;       // 1 - busy time / (groups * makespan)
  std::vector<double> utilization;  // per group: busy time / makespan
};
RunSummary Summarize(const RunTrace& trace);

// "3 groups x 8 micro-batches in 41.2 ms: 194.2 micro-batches/s, bubbles 23.0%, utilization
// group 0 81%, group 1 77%, group 2 73%".
std::string FormatSummary(const RunTrace& trace, const RunSummary& summary);

// Chrome's trace event format (JSON object with "traceEvents"; loads in Perfetto and
// chrome://tracing): one thread track per group, a complete ("X") event per slice, and a flow
// arrow ("s"/"f") from each send to the receive that takes it.
std::string ChromeTraceJson(const RunTrace& trace);

// The run as an SVG Gantt chart: a row per group, a bar per compute (labelled with its
// micro-batch), receive waits hatched, idle time (bubbles) shaded.
std::string TimelineSvg(const RunTrace& trace);

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_EXEC_TRACE_H_
