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

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipesplit/ir/module.h"
#include "pipesplit/runtime/exec/session.h"
#include "pipesplit/runtime/tensor/value.h"

namespace pipesplit::runtime {

// How many worker groups a run has and how many workers each; 0 leaves a field to the launcher.
struct GroupShape {
  int num_groups = 0;
  int group_size = 0;
};

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

  // Runs `entry` on options.num_groups x options.group_size workers, microbatches[k] holding
  // the inputs of micro-batch k. Each group takes options.threads_per_group kernel threads
  // and options.blas_threads_per_group OpenBLAS threads, shared by its workers; both settings
  // are restored when the run ends.
  //
  // Threads: the result holds every worker's report, the outputs and the whole trace. MPI: it
  // holds this rank's report; the first rank of the last group also holds the outputs and the
  // whole trace (the first rank of each group sends it its slices), and holds_outputs is false
  // on every other rank.
  virtual RunResult Run(const ir::IRModule& mod, const std::string& entry,
                        const std::vector<std::vector<Value>>& microbatches,
                        const WeightSource& weights, const SessionOptions& options) = 0;

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

// A thread launcher's Run, and the same with one micro-batch (RunResult::output is its output).
RunResult RunPipelineThreads(const ir::IRModule& mod, const std::string& entry,
                             const std::vector<std::vector<Value>>& microbatches,
                             const WeightSource& weights, const SessionOptions& options);
RunResult RunThreads(const ir::IRModule& mod, const std::string& entry,
                     const std::vector<Value>& inputs, const WeightSource& weights,
                     const SessionOptions& options);

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_LAUNCH_LAUNCH_H_
