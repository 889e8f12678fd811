// The MPI launcher (launch.h): each rank of MPI_COMM_WORLD runs one worker; every rank makes
// the same calls. The transport is made on the first run (its sends time out after that run's
// options.timeout) and kept for the next ones, so sequence numbers continue across runs.
//
// RunWorkers, steps:
//   1. Check the groups against the world, set this rank's thread shares.
//   2. Run this rank's body; a worker that fails (not one that was aborted) aborts every
//      other rank.
//   3. Gather the trace: the first rank of each group sends its slices to the reporter.
#include <fmt/format.h>

#include "pipesplit/runtime/dist/transport.h"
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
    if (requested.num_groups > 0 && requested.group_size > 0) {
      CheckWorld(requested.num_groups, requested.group_size);
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

  std::vector<TraceSlice> RunWorkers(const SessionOptions& options, size_t /*link_capacity*/,
                                     int reporter, const WorkerBody& body) override {
    if (shut_down_) throw RuntimeError("the MPI launcher was shut down");
    CheckWorld(options.num_groups, options.group_size);  // step 1
    if (!transport_) transport_ = MakeMpiTransport(options.timeout);
    ScopedBlasThreads blas(options);
    const int worker_threads = WorkerShare(options.threads_per_group, options.group_size);
    if (worker_threads > 0) SetThreadNumThreads(worker_threads);
    // Epoch 0 of the monotonic clock: the same on every rank of one host.
    TraceRecorder recorder(std::chrono::steady_clock::time_point{});
    const bool records = rank_ % options.group_size == 0;
    try {  // step 2
      body(*transport_, rank_, records ? &recorder : nullptr);
    } catch (const WorkerError& e) {
      SetThreadNumThreads(0);
      if (!e.aborted()) transport_->Abort(rank_, e.what());
      throw;
    } catch (const std::exception& e) {
      SetThreadNumThreads(0);
      WorkerError error(rank_, rank_ / options.group_size, std::string("failed: ") + e.what());
      transport_->Abort(rank_, error.what());
      throw error;
    }
    SetThreadNumThreads(0);
    if (!records) return {};
    std::vector<TraceSlice> slices = recorder.Take();
    try {  // step 3
      if (rank_ != reporter) {
        transport_->Send(rank_, reporter, SlicesToTensor(slices));
        return {};
      }
      for (int g = 0; g < options.num_groups; ++g) {
        if (g * options.group_size == reporter) continue;
        std::vector<TraceSlice> more =
            SlicesFromTensor(transport_->Recv(rank_, g * options.group_size, options.timeout));
        slices.insert(slices.end(), more.begin(), more.end());
      }
    } catch (const TransportAborted& e) {
      throw WorkerError(rank_, rank_ / options.group_size, e.what(), /*aborted=*/true);
    }
    return slices;
  }

  std::optional<std::string> Shutdown() override {
    shut_down_ = true;
    transport_.reset();
    return FinalizeMpi();
  }

 private:
  // RuntimeError when `groups` groups of `size` ranks are not the world.
  void CheckWorld(int groups, int size) const {
    if (groups * size != world_) {
      throw RuntimeError(fmt::format("{} groups of {} need {} MPI ranks, not {}", groups, size,
                                     groups * size, world_));
    }
  }

  const int rank_;
  const int world_;
  std::unique_ptr<Transport> transport_;
  bool shut_down_ = false;
};

}  // namespace

std::unique_ptr<Launcher> MakeMpiLauncher() { return std::make_unique<MpiLauncher>(); }

}  // namespace pipesplit::runtime
