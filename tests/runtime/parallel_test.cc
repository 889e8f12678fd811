// The chunked parallel loop behind the kernels.
#include "src/runtime/kernels/parallel.h"

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "pipesplit/runtime/kernels/threading.h"
#include "tests/runtime/test_util.h"

namespace pipesplit::runtime {
namespace {

class ThreadCountGuard {
 public:
  ThreadCountGuard() : saved_(GetNumThreads()) {}
  ~ThreadCountGuard() { SetNumThreads(saved_); }

 private:
  int saved_;
};

TEST(ParallelForTest, RunsEveryChunkOnce) {
  ThreadCountGuard guard;
  for (int threads : {1, 2, 5}) {
    SetNumThreads(threads);
    std::vector<std::atomic<int>> hits(1000);
    detail::ParallelFor(1000, [&](int64_t c) { hits[c].fetch_add(1); });
    for (size_t i = 0; i < hits.size(); ++i) EXPECT_EQ(hits[i].load(), 1) << i << ", " << threads;
    detail::ParallelFor(0, [&](int64_t) { ADD_FAILURE() << "no chunk to run"; });
  }
}

TEST(ParallelForTest, RethrowsTheFirstError) {
  ThreadCountGuard guard;
  for (int threads : {1, 4}) {
    SetNumThreads(threads);
    EXPECT_THAT(
        [&] {
          detail::ParallelFor(64, [](int64_t c) {
            if (c == 7) throw RuntimeError("chunk 7 failed");
          });
        },
        ::testing::ThrowsMessage<RuntimeError>(::testing::StrEq("chunk 7 failed")));
  }
}

TEST(ParallelForTest, NestedAndConcurrentCalls) {
  ThreadCountGuard guard;
  SetNumThreads(3);
  std::atomic<int64_t> total{0};
  auto work = [&] {
    detail::ParallelFor(20, [&](int64_t) {
      detail::ParallelFor(10, [&](int64_t c) { total.fetch_add(c); });  // nested: serial
    });
  };
  std::thread a(work), b(work);
  work();
  a.join();
  b.join();
  EXPECT_EQ(total.load(), 3 * 20 * 45);
}

TEST(ParallelForTest, ParallelRangeCoversTheRange) {
  ThreadCountGuard guard;
  SetNumThreads(2);
  std::vector<int> seen(1001, 0);
  detail::ParallelRange(1001, 100, [&](int64_t begin, int64_t end) {
    EXPECT_LE(end - begin, 100);
    for (int64_t i = begin; i < end; ++i) seen[i] += 1;
  });
  for (int v : seen) EXPECT_EQ(v, 1);
  int calls = 0;
  detail::ParallelRange(0, 100, [&](int64_t, int64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace pipesplit::runtime
