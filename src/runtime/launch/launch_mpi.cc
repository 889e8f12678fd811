// The MPI launcher (launch.h): each rank of MPI_COMM_WORLD runs one worker; every rank makes
// the same calls. The transport is made on the first run (its sends time out after that run's
// options.timeout) and kept for the next ones, so sequence numbers continue across runs.
//
// Run, steps:
//   1. Check the schedule (before any message), set this rank's thread shares.
//   2. Run this rank's PipelineWorker; a worker that fails (not one that was aborted) aborts
//      every other rank.
//   3. Gather the trace: the first rank of each group sends its slices to the first rank of the
//      last group, which holds the outputs and builds the run's trace.
#include <fmt/format.h>

#include "pipesplit/runtime/dist/transport.h"
#include "pipesplit/runtime/exec/pipeline_worker.h"
#include "pipesplit/runtime/kernels/threading.h"
#include "pipesplit/runtime/launch/launch.h"
#include "src/runtime/launch/launch_common.h"

namespace pipesplit::runtime {
namespace {

class MpiLauncher : public Launcher {
 public:
  MpiLauncher() : rank_(MpiRank()), world_(MpiWorldSize()) {}

  ~MpiLauncher() override {
    if (!shut_down_) Shutdown();
  }

  std::string_view name() const override { return "mpi"; }

  GroupShape FormGroups(GroupShape requested, int stages) const override {
    if (requested.num_groups > 0 && requested.group_size > 0 &&
        requested.num_groups * requested.group_size != world_) {
      throw RuntimeError(fmt::format("{} groups of {} need {} MPI ranks, not {}",
                                     requested.num_groups, requested.group_size,
                                     requested.num_groups * requested.group_size, world_));
    }
    if (requested.num_groups == 0 && requested.group_size > 0) {
      if (world_ % requested.group_size != 0) {
        throw RuntimeError(
            fmt::format("{} MPI ranks cannot form groups of {}", world_, requested.group_size));
      }
      return {world_ / requested.group_size, requested.group_size};
    }
    const int groups = requested.num_groups > 0 ? requested.num_groups : stages;
    if (groups < 1 || world_ % groups != 0) {
      throw RuntimeError(fmt::format("{} MPI ranks cannot form {} equal groups", world_, groups));
    }
    return {groups, world_ / groups};
  }

  RunResult Run(const ir::IRModule& mod, const std::string& entry,
                const std::vector<std::vector<Value>>& microbatches, const WeightSource& weights,
                const SessionOptions& options) override {
    if (shut_down_) throw RuntimeError("the MPI launcher was shut down");
    if (options.num_groups * options.group_size != world_) {
      throw RuntimeError(fmt::format("{} groups of {} need {} MPI ranks, not {}",
                                     options.num_groups, options.group_size,
                                     options.num_groups * options.group_size, world_));
    }
    ResolveSchedule(options);  // a bad schedule fails before any message
    if (!transport_) transport_ = MakeMpiTransport(options.timeout);
    ScopedBlasThreads blas(options);
    const int worker_threads = WorkerShare(options.threads_per_group, options.group_size);
    if (worker_threads > 0) SetThreadNumThreads(worker_threads);
    // Epoch 0 of the monotonic clock: the same on every rank of one host.
    TraceRecorder recorder(std::chrono::steady_clock::time_point{});
    RunResult result;
    try {
      result = PipelineWorker(mod, entry, weights, options, *transport_, rank_, &recorder)
                   .Run(microbatches);
    } catch (const WorkerError& e) {
      SetThreadNumThreads(0);
      if (!e.aborted()) transport_->Abort(rank_, e.what());
      throw;
    }
    SetThreadNumThreads(0);
    try {
      GatherTrace(mod, entry, options, recorder.Take(), result);
    } catch (const TransportAborted& e) {
      throw WorkerError(rank_, rank_ / options.group_size, e.what(), /*aborted=*/true);
    }
    return result;
  }

  std::optional<std::string> Shutdown() override {
    shut_down_ = true;
    transport_.reset();
    return FinalizeMpi();
  }

 private:
  // Step 3.
  void GatherTrace(const ir::IRModule& mod, const std::string& entry, const SessionOptions& options,
                   std::vector<TraceSlice> slices, RunResult& result) {
    const int reporter = (options.num_groups - 1) * options.group_size;
    if (rank_ % options.group_size != 0) return;
    if (rank_ != reporter) {
      transport_->Send(rank_, reporter, SlicesToTensor(slices));
      return;
    }
    for (int g = 0; g + 1 < options.num_groups; ++g) {
      std::vector<TraceSlice> more =
          SlicesFromTensor(transport_->Recv(rank_, g * options.group_size, options.timeout));
      slices.insert(slices.end(), more.begin(), more.end());
    }
    result.trace = MakeRunTrace(options.num_groups, options.num_microbatches,
                                GroupFunctions(mod, entry, options.num_groups), std::move(slices));
  }

  const int rank_;
  const int world_;
  std::unique_ptr<Transport> transport_;
  bool shut_down_ = false;
};

}  // namespace

std::unique_ptr<Launcher> MakeMpiLauncher() { return std::make_unique<MpiLauncher>(); }

}  // namespace pipesplit::runtime
