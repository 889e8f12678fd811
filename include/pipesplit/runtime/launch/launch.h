// Launchers: how a program starts worker groups and runs a module on them (session.h says
// what a session is). A Launcher owns the workers of one transport:
//   - threads: every worker is a thread of this process, each run gets fresh channels;
//   - MPI: every worker is a rank of MPI_COMM_WORLD (the program runs under mpirun); each rank
//     runs its own worker and every rank must make the same calls in the same order.
// The CLI's `run`, `verify-split` and the generators drive both through this interface; a new
// transport (sockets, NCCL) is a new Launcher beside these two.
//
// Errors: a failing worker is a WorkerError naming the worker, group, function and binding
// (the root cause, not the aborts it caused on other workers); a schedule that cannot run is a
// ScheduleError, thrown before any worker starts; groups the launcher's workers cannot form
// are a RuntimeError.
#ifndef PIPESPLIT_RUNTIME_LAUNCH_LAUNCH_H_
#define PIPESPLIT_RUNTIME_LAUNCH_LAUNCH_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipesplit/ir/module.h"
#include "pipesplit/runtime/dist/transport.h"
#include "pipesplit/runtime/exec/session.h"
#include "pipesplit/runtime/exec/trace.h"
#include "pipesplit/runtime/tensor/value.h"

namespace pipesplit::runtime {

// How many worker groups a run has and how many workers each; 0 leaves a field to the launcher.
struct GroupShape {
  int num_groups = 0;
  int group_size = 0;
};

// What one worker of a session does: worker `worker` of options.num_groups x
// options.group_size, talking over `transport`. `recorder` takes the slices of its group when
// it is the group's first worker (null otherwise). A failure is a WorkerError (an abort caused
// by another worker has aborted() set); any other exception is turned into one.
using WorkerBody = std::function<void(Transport& transport, int worker, TraceRecorder* recorder)>;

class Launcher {
 public:
  virtual ~Launcher() = default;
  // "threads" or "mpi".
  virtual std::string_view name() const = 0;

  // The groups a run of a module with `stages` pipeline stages (1 when it is not split) gets
  // when `requested` asks for them. Threads: num_groups defaults to `stages`, group_size to 1.
  // MPI: the ranks are divided into requested.num_groups groups (default `stages`), or into
  // groups of requested.group_size when only that is given; RuntimeError when they do not
  // divide evenly or both are given and do not make the world size.
  virtual GroupShape FormGroups(GroupShape requested, int stages) const = 0;

  // Runs `entry` on options.num_groups x options.group_size workers (a PipelineWorker each,
  // through RunWorkers), microbatches[k] holding the inputs of micro-batch k. Each group takes
  // options.threads_per_group kernel threads and options.blas_threads_per_group OpenBLAS
  // threads, shared by its workers; both settings are restored when the run ends. A schedule
  // that cannot run is a ScheduleError before any worker starts.
  //
  // Threads: the result holds every worker's report, the outputs and the whole trace. MPI: it
  // holds this rank's report; the first rank of the last group also holds the outputs and the
  // whole trace (the first rank of each group sends it its slices), and holds_outputs is false
  // on every other rank.
  RunResult Run(const ir::IRModule& mod, const std::string& entry,
                const std::vector<std::vector<Value>>& microbatches, const WeightSource& weights,
                const SessionOptions& options);

  // Runs `body` on every worker of options.num_groups x options.group_size (threads: a thread
  // each over fresh links of `link_capacity` tensors; MPI: this rank's worker over the kept
  // transport) with each group's share of the kernel and OpenBLAS threads. A worker that fails
  // aborts the others; the root cause is thrown (a WorkerError), not the aborts it caused.
  // Returns the slices every group recorded on the process that runs worker `reporter` (MPI:
  // the first worker of each group sends them there; other ranks get none).
  virtual std::vector<TraceSlice> RunWorkers(const SessionOptions& options, size_t link_capacity,
                                             int reporter, const WorkerBody& body) = 0;

  // Ends the launcher's workers; no Run may follow. A message when a worker was lost so that
  // the launcher could not shut down cleanly (MPI: a rank on this host died; the message is
  // empty when this process already reported the loss). Threads: nothing to end.
  virtual std::optional<std::string> Shutdown() { return std::nullopt; }
};

// Workers as threads of this process.
std::unique_ptr<Launcher> MakeThreadLauncher();

// One worker per MPI rank (initializes MPI; Shutdown finalizes it). A process whose parent
// mpirun dies is killed with it.
std::unique_ptr<Launcher> MakeMpiLauncher();

// A worker's share of `per_group` threads when a group has `group_size` workers (at least 1);
// 0 when `per_group` is 0 (unset).
int WorkerShare(int per_group, int group_size);

// A thread launcher's Run, and the same with one micro-batch (RunResult::output is its output).
RunResult RunPipelineThreads(const ir::IRModule& mod, const std::string& entry,
                             const std::vector<std::vector<Value>>& microbatches,
                             const WeightSource& weights, const SessionOptions& options);
RunResult RunThreads(const ir::IRModule& mod, const std::string& entry,
                     const std::vector<Value>& inputs, const WeightSource& weights,
                     const SessionOptions& options);

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_LAUNCH_LAUNCH_H_
