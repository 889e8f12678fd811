// In-process transport: one bounded FIFO per ordered pair of workers, guarded by one mutex
// per channel; an abort flag wakes every waiter.
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <vector>

#include "pipesplit/runtime/dist/transport.h"

namespace pipesplit::runtime {
namespace {

class ThreadTransport : public Transport {
 public:
  ThreadTransport(int num_workers, size_t capacity)
      : num_workers_(num_workers),
        capacity_(capacity),
        channels_(static_cast<size_t>(num_workers) * num_workers) {}

  int num_workers() const override { return num_workers_; }

  void Send(int from, int to, const Tensor& tensor) override {
    Channel& ch = At(from, to);
    std::unique_lock<std::mutex> lock(ch.mu);
    ch.cv.wait(lock, [&] { return aborted() || ch.queue.size() < capacity_; });
    ThrowIfAborted();
    ch.queue.push_back(tensor);  // shares the buffer: no copy
    ch.cv.notify_all();
  }

  Tensor Recv(int to, int from, std::chrono::milliseconds timeout) override {
    Channel& ch = At(from, to);
    std::unique_lock<std::mutex> lock(ch.mu);
    bool ready = ch.cv.wait_for(lock, timeout, [&] { return aborted() || !ch.queue.empty(); });
    ThrowIfAborted();
    if (!ready) {
      throw RuntimeError("timed out after " + FormatSeconds(timeout) +
                         " waiting for a tensor from worker " + std::to_string(from));
    }
    Tensor t = std::move(ch.queue.front());
    ch.queue.pop_front();
    ch.cv.notify_all();
    return t;
  }

  void Abort(int from, const std::string& reason) override {
    {
      std::lock_guard<std::mutex> lock(abort_mu_);
      if (aborted_flag_) return;
      abort_reason_ = AbortMessage(from, reason);
      aborted_flag_ = true;
    }
    for (Channel& ch : channels_) {
      std::lock_guard<std::mutex> lock(ch.mu);
      ch.cv.notify_all();
    }
  }

 private:
  struct Channel {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<Tensor> queue;
  };

  static std::string FormatSeconds(std::chrono::milliseconds ms) {
    if (ms.count() % 1000 == 0) return std::to_string(ms.count() / 1000) + " s";
    return std::to_string(ms.count()) + " ms";
  }

  Channel& At(int from, int to) {
    if (from < 0 || from >= num_workers_ || to < 0 || to >= num_workers_) {
      throw RuntimeError("no worker " +
                         std::to_string(from < 0 || from >= num_workers_ ? from : to) +
                         " in a session of " + std::to_string(num_workers_));
    }
    return channels_[static_cast<size_t>(from) * num_workers_ + to];
  }

  bool aborted() const { return aborted_flag_.load(std::memory_order_acquire); }

  void ThrowIfAborted() {
    if (!aborted()) return;
    std::lock_guard<std::mutex> lock(abort_mu_);
    throw TransportAborted(abort_reason_);
  }

  int num_workers_;
  size_t capacity_;
  std::vector<Channel> channels_;
  std::mutex abort_mu_;
  std::atomic<bool> aborted_flag_{false};
  std::string abort_reason_;
};

}  // namespace

std::string AbortMessage(int from, const std::string& reason) {
  if (reason.rfind("worker ", 0) == 0) return "aborted because " + reason;
  return "aborted because worker " + std::to_string(from) + " failed: " + reason;
}

std::unique_ptr<Transport> MakeThreadTransport(int num_workers, size_t channel_capacity) {
  return std::make_unique<ThreadTransport>(num_workers, channel_capacity);
}

}  // namespace pipesplit::runtime
