// The serving engine's shared state (engine.h): what Submit, Cancel and Shutdown hand the
// controller, under one mutex, and the metrics it publishes. engine.cc holds the API and Run,
// engine_controller.cc the controller loop on worker 0.
#ifndef PIPESPLIT_SRC_RUNTIME_SERVE_ENGINE_IMPL_H_
#define PIPESPLIT_SRC_RUNTIME_SERVE_ENGINE_IMPL_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "pipesplit/runtime/dist/transport.h"
#include "pipesplit/serve/engine/engine.h"

namespace pipesplit::serve {
namespace engine {
class ServingWorker;
}

using Clock = std::chrono::steady_clock;

struct Engine::Impl {
  struct Pending {
    int64_t id = 0;
    EngineRequest request;
    TokenSink sink;
    Clock::time_point arrival;
  };

  explicit Impl(EngineOptions o) : options(std::move(o)) {}

  // Checks `request` against the engine's limits (info must be set): nullopt when it can run,
  // else why not. Caps its max_tokens at what its sequence may hold.
  std::optional<SubmitResult> Check(EngineRequest& request) const;

  // Called on worker 0 (the controller's thread) once its ServingWorker exists: makes every
  // group's cache, serves until shutdown (or idle), then sends the stop command. Fills
  // `result`'s counts.
  void Control(engine::ServingWorker& worker, runtime::Transport& transport,
               EngineRunResult& result, const std::function<void(const EngineInfo&)>& on_ready);
  // Ends every request in the inbox with a kError event saying `message`.
  void FailInbox(const std::string& message);

  const EngineOptions options;
  mutable std::mutex mu;
  std::condition_variable cv;  // the controller waits on it for work
  State state = State::kStarting;
  EngineInfo info;
  std::vector<Pending> inbox;
  std::vector<int64_t> cancels;
  std::optional<std::string> shutdown;  // the reason, once asked
  int64_t next_id = 0;
  int64_t waiting = 0;  // in the scheduler's queue, as last published (max_queue)

  mutable std::mutex metrics_mu;
  EngineMetrics metrics;
};

}  // namespace pipesplit::serve

#endif  // PIPESPLIT_SRC_RUNTIME_SERVE_ENGINE_IMPL_H_
