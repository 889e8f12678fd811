// ThreadPool: callers and workers claim the chunks of a loop through one atomic counter.
#include "pipesplit/support/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>

namespace pipesplit::support {

// One ParallelFor call.
struct ThreadPool::Job {
  const std::function<void(int64_t)>* body = nullptr;
  int64_t chunks = 0;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> finished{0};
  std::mutex mu;
  std::condition_variable done;
  int64_t error_chunk = -1;  // guarded by mu
  std::exception_ptr error;  // guarded by mu
};

namespace {

// Set while a thread runs chunks, so that loops started from a chunk run serially.
thread_local bool inside_chunk = false;

void Work(ThreadPool::Job& job) {
  const bool was_inside = inside_chunk;
  inside_chunk = true;
  for (;;) {
    const int64_t chunk = job.next.fetch_add(1);
    if (chunk >= job.chunks) break;
    try {
      (*job.body)(chunk);
    } catch (...) {
      std::lock_guard<std::mutex> lock(job.mu);
      if (job.error_chunk < 0 || chunk < job.error_chunk) {
        job.error_chunk = chunk;
        job.error = std::current_exception();
      }
    }
    if (job.finished.fetch_add(1) + 1 == job.chunks) {
      std::lock_guard<std::mutex> lock(job.mu);
      job.done.notify_all();
    }
  }
  inside_chunk = was_inside;
}

}  // namespace

ThreadPool::ThreadPool(int workers) {
  for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { Loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ThreadPool::ParallelFor(int64_t chunks, const std::function<void(int64_t)>& body) {
  if (chunks <= 0) return;
  if (chunks == 1 || threads_.empty() || inside_chunk) {
    // Serial, with the same error contract: every chunk runs, the lowest failure is thrown.
    std::exception_ptr error;
    for (int64_t c = 0; c < chunks; ++c) {
      try {
        body(c);
      } catch (...) {
        if (!error) error = std::current_exception();
      }
    }
    if (error) std::rethrow_exception(error);
    return;
  }
  auto job = std::make_shared<Job>();
  job->body = &body;
  job->chunks = chunks;
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
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.erase(std::remove(queue_.begin(), queue_.end(), job), queue_.end());
  }
  if (job->error) std::rethrow_exception(job->error);
}

void ThreadPool::Loop() {
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

bool InsideParallelChunk() { return inside_chunk; }

int CompileThreads() {
  static const int threads = [] {
    if (const char* value = std::getenv("PIPESPLIT_COMPILE_THREADS")) {
      return std::clamp(std::atoi(value), 1, 256);
    }
    return std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 256);
  }();
  return threads;
}

void CompileParallelFor(int64_t chunks, const std::function<void(int64_t)>& body) {
  // Made on first use and never destroyed: workers may still be parked at exit.
  static ThreadPool* pool = new ThreadPool(CompileThreads() - 1);
  pool->ParallelFor(chunks, body);
}

}  // namespace pipesplit::support
