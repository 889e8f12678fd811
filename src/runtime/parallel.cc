// A small thread pool behind ParallelFor, and the thread-count setting.
#include "src/runtime/parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pipesplit/runtime/threading.h"

namespace pipesplit::runtime {

namespace {

// One ParallelFor call: chunks are claimed through `next` by whoever gets there first.
struct Job {
  const std::function<void(int64_t)>* body = nullptr;
  int64_t chunks = 0;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> finished{0};
  std::mutex mu;
  std::condition_variable done;
  std::exception_ptr error;  // guarded by mu
};

// Set while a thread runs chunks, so that kernels called from a chunk run serially.
thread_local bool inside_chunk = false;

void Work(Job& job) {
  const bool was_inside = inside_chunk;
  inside_chunk = true;
  for (;;) {
    const int64_t chunk = job.next.fetch_add(1);
    if (chunk >= job.chunks) break;
    try {
      (*job.body)(chunk);
    } catch (...) {
      std::lock_guard<std::mutex> lock(job.mu);
      if (!job.error) job.error = std::current_exception();
    }
    if (job.finished.fetch_add(1) + 1 == job.chunks) {
      std::lock_guard<std::mutex> lock(job.mu);
      job.done.notify_all();
    }
  }
  inside_chunk = was_inside;
}

class Pool {
 public:
  explicit Pool(int workers) {
    for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { Loop(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  void Run(const std::shared_ptr<Job>& job) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(job);
    }
    wake_.notify_all();
    Work(*job);
    {
      std::unique_lock<std::mutex> lock(job->mu);
      job->done.wait(lock, [&] { return job->finished.load() == job->chunks; });
    }
    std::lock_guard<std::mutex> lock(mu_);
    queue_.erase(std::remove(queue_.begin(), queue_.end(), job), queue_.end());
  }

 private:
  void Loop() {
    for (;;) {
      std::shared_ptr<Job> job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        wake_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (stop_) return;
        job = queue_.front();
        if (job->next.load() >= job->chunks) {  // fully claimed: nothing left to help with
          queue_.pop_front();
          continue;
        }
      }
      Work(*job);
    }
  }

  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> queue_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

std::mutex settings_mu;
int num_threads = 0;  // 0: not read from the environment yet
std::shared_ptr<Pool> pool;

int ThreadsFromEnvironment() {
  const char* value = std::getenv("PIPESPLIT_NUM_THREADS");
  if (value == nullptr) return 1;
  const int n = std::atoi(value);
  return std::clamp(n, 1, 256);
}

// The current pool (nullptr with one thread); settings_mu must be held.
std::shared_ptr<Pool> CurrentPoolLocked() {
  if (num_threads == 0) {
    num_threads = ThreadsFromEnvironment();
    if (num_threads > 1) pool = std::make_shared<Pool>(num_threads - 1);
  }
  return pool;
}

// The calling thread's own setting (SetThreadNumThreads): 0 means the process-wide one.
thread_local int thread_num_threads = 0;
thread_local std::shared_ptr<Pool> thread_pool;

}  // namespace

void SetThreadNumThreads(int threads) {
  threads = std::clamp(threads, 0, 256);
  if (threads == thread_num_threads) return;
  thread_num_threads = threads;
  thread_pool = threads > 1 ? std::make_shared<Pool>(threads - 1) : nullptr;
}

void SetNumThreads(int threads) {
  threads = std::clamp(threads, 1, 256);
  std::shared_ptr<Pool> old;
  {
    std::lock_guard<std::mutex> lock(settings_mu);
    CurrentPoolLocked();
    if (threads == num_threads) return;
    num_threads = threads;
    old = std::move(pool);
    pool = threads > 1 ? std::make_shared<Pool>(threads - 1) : nullptr;
  }
  // `old` is joined here, or by the last kernel still using it.
}

int GetNumThreads() {
  std::lock_guard<std::mutex> lock(settings_mu);
  CurrentPoolLocked();
  return num_threads;
}

namespace detail {

void ParallelFor(int64_t chunks, const std::function<void(int64_t)>& body) {
  std::shared_ptr<Pool> current;
  if (chunks > 1 && !inside_chunk && thread_num_threads > 0) {
    current = thread_pool;
  } else if (chunks > 1 && !inside_chunk) {
    std::lock_guard<std::mutex> lock(settings_mu);
    current = CurrentPoolLocked();
  }
  if (!current) {
    for (int64_t c = 0; c < chunks; ++c) body(c);
    return;
  }
  auto job = std::make_shared<Job>();
  job->body = &body;
  job->chunks = chunks;
  current->Run(job);
  if (job->error) std::rethrow_exception(job->error);
}

}  // namespace detail

}  // namespace pipesplit::runtime
