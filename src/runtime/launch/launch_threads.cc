// The thread launcher (launch.h): every worker of a run is a thread of this process, over
// fresh in-process channels of the capacity the caller asks for. A worker that fails aborts
// the run on the others; the run reports the root cause, not the aborts it caused.
#include <mutex>
#include <optional>
#include <thread>

#include "pipesplit/runtime/kernels/threading.h"
#include "pipesplit/runtime/launch/launch.h"
#include "src/runtime/dist/transport_fault.h"
#include "src/runtime/launch/launch_common.h"

namespace pipesplit::runtime {
namespace {

// The first error of a run, preferring a root cause over an abort it caused.
class FirstError {
 public:
  void Offer(const WorkerError& error) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!error_ || (error_->aborted() && !error.aborted())) error_ = error;
  }
  void ThrowIfAny() const {
    if (error_) throw *error_;
  }

 private:
  std::mutex mu_;
  std::optional<WorkerError> error_;
};

class ThreadLauncher : public Launcher {
 public:
  std::string_view name() const override { return "threads"; }

  GroupShape FormGroups(GroupShape requested, int stages) const override {
    return {requested.num_groups > 0 ? requested.num_groups : stages,
            requested.group_size > 0 ? requested.group_size : 1};
  }

  std::vector<TraceSlice> RunWorkers(const SessionOptions& options, size_t link_capacity,
                                     int /*reporter*/, const WorkerBody& body) override {
    if (options.num_groups < 1 || options.group_size < 1) {
      throw RuntimeError("groups and group size must be at least 1");
    }
    const int num_workers = options.num_groups * options.group_size;
    std::unique_ptr<Transport> transport = MakeThreadTransport(num_workers, link_capacity);
    if (std::optional<Fault> fault = FaultFromEnvironment()) {
      transport = InjectFault(std::move(transport), *fault, /*wire_capable=*/false);
    }
    const int worker_threads = WorkerShare(options.threads_per_group, options.group_size);
    ScopedBlasThreads blas(options);
    TraceRecorder recorder;
    FirstError first_error;
    std::vector<std::thread> threads;
    threads.reserve(num_workers);
    for (int w = 0; w < num_workers; ++w) {
      threads.emplace_back([&, w] {
        if (worker_threads > 0) SetThreadNumThreads(worker_threads);
        try {
          body(*transport, w, w % options.group_size == 0 ? &recorder : nullptr);
        } catch (const WorkerError& e) {
          first_error.Offer(e);
          transport->Abort(w, e.what());
        } catch (const std::exception& e) {
          WorkerError error(w, w / options.group_size, std::string("failed: ") + e.what());
          first_error.Offer(error);
          transport->Abort(w, error.what());
        }
        SetThreadNumThreads(0);
      });
    }
    for (std::thread& t : threads) t.join();
    first_error.ThrowIfAny();
    return recorder.Take();
  }
};

}  // namespace

std::unique_ptr<Launcher> MakeThreadLauncher() { return std::make_unique<ThreadLauncher>(); }

RunResult RunPipelineThreads(const ir::IRModule& mod, const std::string& entry,
                             const std::vector<std::vector<Value>>& microbatches,
                             const WeightSource& weights, const SessionOptions& options) {
  return ThreadLauncher().Run(mod, entry, microbatches, weights, options);
}

RunResult RunThreads(const ir::IRModule& mod, const std::string& entry,
                     const std::vector<Value>& inputs, const WeightSource& weights,
                     const SessionOptions& options) {
  SessionOptions single = options;
  single.num_microbatches = 1;
  return RunPipelineThreads(mod, entry, {inputs}, weights, single);
}

}  // namespace pipesplit::runtime
