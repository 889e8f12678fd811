#include "pipesplit/support/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace pipesplit::support {
namespace {

TEST(ThreadPoolTest, RunsEveryChunkOnce) {
  for (int workers : {0, 1, 3}) {
    ThreadPool pool(workers);
    EXPECT_EQ(pool.workers(), workers);
    std::vector<std::atomic<int>> runs(1000);
    pool.ParallelFor(1000, [&](int64_t c) { runs[c].fetch_add(1); });
    for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
  }
}

TEST(ThreadPoolTest, UsesTheWorkers) {
  ThreadPool pool(3);
  std::mutex mu;
  std::set<std::thread::id> ids;
  std::atomic<int> waiting{0};
  // Each of the 4 chunks waits until all 4 run at once: only 4 threads can finish this.
  pool.ParallelFor(4, [&](int64_t) {
    {
      std::lock_guard<std::mutex> lock(mu);
      ids.insert(std::this_thread::get_id());
    }
    waiting.fetch_add(1);
    while (waiting.load() < 4) std::this_thread::yield();
  });
  EXPECT_EQ(ids.size(), 4u);
}

TEST(ThreadPoolTest, RethrowsTheLowestFailingChunkAfterRunningAll) {
  for (int workers : {0, 2}) {
    ThreadPool pool(workers);
    std::atomic<int> ran{0};
    try {
      pool.ParallelFor(64, [&](int64_t c) {
        ran.fetch_add(1);
        if (c % 10 == 7) throw std::runtime_error("chunk " + std::to_string(c));
      });
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "chunk 7");
    }
    EXPECT_EQ(ran.load(), 64);
  }
}

TEST(ThreadPoolTest, NestedLoopsRunSeriallyInsideAChunk) {
  ThreadPool pool(2);
  std::atomic<int> total{0};
  EXPECT_FALSE(InsideParallelChunk());
  pool.ParallelFor(3, [&](int64_t) {
    EXPECT_TRUE(InsideParallelChunk());
    const std::thread::id me = std::this_thread::get_id();
    pool.ParallelFor(5, [&](int64_t) {
      EXPECT_EQ(std::this_thread::get_id(), me);
      total.fetch_add(1);
    });
  });
  EXPECT_FALSE(InsideParallelChunk());
  EXPECT_EQ(total.load(), 15);
}

TEST(ThreadPoolTest, CompileLoopsCoverEveryChunk) {
  EXPECT_GE(CompileThreads(), 1);
  std::vector<int> out(100, 0);
  CompileParallelFor(100, [&](int64_t c) { out[c] = static_cast<int>(c) * 2; });
  for (int i = 0; i < 100; ++i) EXPECT_EQ(out[i], i * 2);
}

}  // namespace
}  // namespace pipesplit::support
