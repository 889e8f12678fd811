// Worker groups: runs a (possibly pipeline-staged) module on W workers in G groups of W/G
// consecutive workers, as MLC's disco does. Every worker runs the same entry function; in a
// staged module its dispatcher (mlc.multi_gpu.DispatchFunctionByGroup) picks the stage of
// the worker's group; worker w sends to w + W/G and receives from w - W/G.
//
// Each group loads only the weights its stage reads (the packed_params indices found in its
// stage function) and reports its resident weight bytes. An error on any worker aborts the
// run on every worker; the error reported names the worker, its group, the function and the
// binding.
//
// Micro-batches: a run may carry M independent requests (micro-batches) through the
// pipeline. A Schedule (schedule.h) lists, per group, when it receives, computes and sends
// each one; it is checked before any worker starts and then drives every worker, whichever
// the transport. A compute calls the entry afresh (its own frame, so per-group state is per
// micro-batch); the stage's sends are held until the schedule's send action; a receive that
// the schedule places right before its compute is taken by the stage itself during the
// compute (so a failing receive names its binding), an earlier one is taken ahead into the
// micro-batch's inbox. Group g thus computes micro-batch k while group g+1 computes k-1.
#ifndef PIPESPLIT_RUNTIME_EXEC_SESSION_H_
#define PIPESPLIT_RUNTIME_EXEC_SESSION_H_

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "pipesplit/ir/module.h"
#include "pipesplit/runtime/dist/transport.h"
#include "pipesplit/runtime/exec/interpreter.h"
#include "pipesplit/runtime/exec/schedule.h"
#include "pipesplit/runtime/exec/trace.h"
#include "pipesplit/runtime/io/weights.h"
#include "pipesplit/runtime/kernels/kernel_library.h"
#include "pipesplit/runtime/tensor/value.h"

namespace pipesplit::runtime {

struct SessionOptions {
  int num_groups = 1;
  int group_size = 1;
  std::chrono::milliseconds timeout{60000};
  // The module's compiled TIR kernels, loaded once and shared by every worker (kernels keep
  // no state): KernelLibrary::Load(path of the library built from the module). Null: the
  // module's R.call_tir calls cannot run.
  std::shared_ptr<const KernelLibrary> kernels;
  // Micro-batches per run (a launcher's Run takes one input list per micro-batch).
  int num_microbatches = 1;
  // Micro-batches sent but not yet received, per link (a send waits while the link is full).
  int max_in_flight = 2;
  // Kernel threads of each group, shared by its workers (each worker gets its own pool, see
  // threading.h); 0 leaves the process-wide setting. Kernel results do not depend on it.
  int threads_per_group = 0;
  // OpenBLAS threads of each group for the run (process-wide, so every
  // group gets the same); 0 leaves the setting. sgemm results depend on it (see linalg.h).
  int blas_threads_per_group = 0;
  // The schedule to run; null: MakePipelineSchedule(num_groups, num_microbatches).
  std::shared_ptr<const Schedule> schedule;
  // The module's metadata constants (interpreter.h), shared by every worker; may be null.
  std::shared_ptr<const MetadataConstants> metadata;
};

// The schedule `options` run (checked: ScheduleError when it is unmatched, unbounded or
// deadlocks, or does not fit the session's groups and micro-batches).
Schedule ResolveSchedule(const SessionOptions& options);

// A worker failed; what() names worker, group, function and binding.
class WorkerError : public RuntimeError {
 public:
  WorkerError(int worker, int group, const std::string& message, bool aborted = false)
      : RuntimeError("worker " + std::to_string(worker) + " (group " + std::to_string(group) +
                     ") " + message),
        worker_(worker),
        group_(group),
        aborted_(aborted) {}
  int worker() const { return worker_; }
  int group() const { return group_; }
  // True when this worker only stopped because another one failed.
  bool aborted() const { return aborted_; }

 private:
  int worker_;
  int group_;
  bool aborted_;
};

struct WorkerReport {
  int worker = 0;
  int group = 0;
  std::string function;                 // the stage function it ran (or the entry)
  std::vector<int64_t> weight_indices;  // packed_params fields it loaded
  int64_t weight_bytes = 0;
  double seconds = 0;
};

struct RunResult {
  // Whether this result holds the outputs: on the first worker of the last group, and so
  // always in a run whose workers are threads of this process (launch.h).
  bool holds_outputs = true;
  Value output;                // micro-batch 0's output
  std::vector<Value> outputs;  // every micro-batch's output, in micro-batch order
  std::vector<WorkerReport> workers;
  RunTrace trace;  // one track per group (a launcher's run; a PipelineWorker's run: empty)
};

// How a worker's entry is laid out: its inputs, and whether a packed_params comes last.
struct EntryLayout {
  ir::Function func;
  size_t num_inputs = 0;
  bool has_packed_params = false;
  // In a staged module, the stage functions in group order (empty when not staged).
  std::vector<std::string> stages;
};
EntryLayout AnalyzeEntry(const ir::IRModule& mod, const std::string& entry);

// The function each of `num_groups` groups runs: the stages of `entry`, or `entry` itself on
// every group when it is not split.
std::vector<std::string> GroupFunctions(const ir::IRModule& mod, const std::string& entry,
                                        int num_groups);

// Tensors the link from a group to the next holds for `options`: max_in_flight times the
// most sends any stage of `entry` makes per micro-batch.
size_t LinkCapacity(const ir::IRModule& mod, const std::string& entry,
                    const SessionOptions& options);

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_EXEC_SESSION_H_
