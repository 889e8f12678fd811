// What every launcher (launch.h) shares: a run of an entry as one PipelineWorker per worker
// over the launcher's RunWorkers, and a worker's share of its group's threads.
//
// Run, steps:
//   1. Check the schedule (ScheduleError before any worker starts).
//   2. RunWorkers: each worker of this process makes its PipelineWorker and runs it once.
//   3. Assemble: the reporter (first worker of the last group) gives the outputs and, with the
//      slices gathered there, the trace; every worker of this process gives its report.
#include "pipesplit/runtime/launch/launch.h"

#include <algorithm>
#include <optional>

#include "pipesplit/runtime/exec/pipeline_worker.h"

namespace pipesplit::runtime {

int WorkerShare(int per_group, int group_size) {
  return per_group > 0 ? std::max(1, per_group / std::max(group_size, 1)) : 0;
}

RunResult Launcher::Run(const ir::IRModule& mod, const std::string& entry,
                        const std::vector<std::vector<Value>>& microbatches,
                        const WeightSource& weights, const SessionOptions& options) {
  if (options.num_groups < 1 || options.group_size < 1) {
    throw RuntimeError("groups and group size must be at least 1");
  }
  ResolveSchedule(options);  // step 1
  const int num_workers = options.num_groups * options.group_size;
  const int reporter = (options.num_groups - 1) * options.group_size;
  std::vector<std::optional<RunResult>> results(static_cast<size_t>(std::max(num_workers, 0)));
  std::vector<TraceSlice> slices = RunWorkers(  // step 2
      options, LinkCapacity(mod, entry, options), reporter,
      [&](Transport& transport, int worker, TraceRecorder* recorder) {
        results[worker] = PipelineWorker(mod, entry, weights, options, transport, worker, recorder)
                              .Run(microbatches);
      });
  RunResult out;  // step 3
  if (results[reporter]) {
    out.output = results[reporter]->output;
    out.outputs = results[reporter]->outputs;
    out.trace = MakeRunTrace(options.num_groups, options.num_microbatches,
                             GroupFunctions(mod, entry, options.num_groups), std::move(slices));
  } else {
    out.holds_outputs = false;
  }
  for (std::optional<RunResult>& r : results) {
    if (r) out.workers.insert(out.workers.end(), r->workers.begin(), r->workers.end());
  }
  return out;
}

}  // namespace pipesplit::runtime
