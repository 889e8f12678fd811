// Chunked parallel loops on a fixed set of worker threads, shared by the compiler (stage
// functions built or printed side by side) and the runtime's kernels (runtime/threading.h
// owns their thread count).
//
// A loop is split by its caller into chunks whose boundaries do not depend on the number of
// threads; each chunk runs exactly once, on the calling thread or a worker, so a loop whose
// chunks write disjoint results gives the same result for every thread count.
#ifndef PIPESPLIT_SUPPORT_THREAD_POOL_H_
#define PIPESPLIT_SUPPORT_THREAD_POOL_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace pipesplit::support {

class ThreadPool {
 public:
  // `workers` threads besides the callers (0: every loop runs on its caller).
  explicit ThreadPool(int workers);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Runs body(c) for every c in [0, chunks) on the calling thread and the workers and
  // returns when all have run. When chunks throw, every chunk still runs and the exception of
  // the lowest chunk is rethrown (the same one for every thread count). A loop started from
  // inside a chunk runs serially on its thread.
  void ParallelFor(int64_t chunks, const std::function<void(int64_t)>& body);

  int workers() const { return static_cast<int>(threads_.size()); }

  struct Job;

 private:
  void Loop();

  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> queue_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

// Whether the calling thread is running a chunk of some ParallelFor.
bool InsideParallelChunk();

// The compiler's loops: one process-wide pool of (hardware threads - 1) workers, or
// PIPESPLIT_COMPILE_THREADS - 1 when that variable is set (1 runs everything serially).
void CompileParallelFor(int64_t chunks, const std::function<void(int64_t)>& body);
int CompileThreads();

}  // namespace pipesplit::support

#endif  // PIPESPLIT_SUPPORT_THREAD_POOL_H_
