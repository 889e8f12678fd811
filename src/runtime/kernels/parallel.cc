// The kernels' thread-count setting and the pool (support::ThreadPool) behind ParallelFor.
#include "src/runtime/kernels/parallel.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "pipesplit/runtime/kernels/threading.h"
#include "pipesplit/support/thread_pool.h"

namespace pipesplit::runtime {

namespace {

using Pool = support::ThreadPool;

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
  const bool inside_chunk = support::InsideParallelChunk();
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
  current->ParallelFor(chunks, body);
}

}  // namespace detail

}  // namespace pipesplit::runtime
