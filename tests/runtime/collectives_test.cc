// Collectives among a group's workers over the thread transport (dist/collectives.h), the
// runtime.disco builtins and R.ccl ops through them, and ShardSingleDim's shapes and errors
// (its values are checked against NumPy by shard_reference.py).
#include "pipesplit/runtime/dist/collectives.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "pipesplit/runtime/io/shard.h"
#include "pipesplit/runtime/kernels/elementwise.h"

namespace pipesplit::runtime {
namespace {

using testing::HasSubstr;

constexpr std::chrono::milliseconds kTimeout{10000};

// Runs `body(collectives)` on every worker of groups x size, each on its own thread, and returns
// what each returned (or the error text it threw).
std::vector<std::string> OnWorkers(int groups, int size,
                                   const std::function<Tensor(Collectives&)>& body,
                                   std::vector<Tensor>* results) {
  const int n = groups * size;
  std::unique_ptr<Transport> transport = MakeThreadTransport(n, 2);
  std::vector<std::string> errors(n);
  results->assign(n, Tensor());
  std::vector<std::thread> threads;
  for (int w = 0; w < n; ++w) {
    threads.emplace_back([&, w] {
      Collectives c(transport.get(), w, groups, size, kTimeout);
      try {
        (*results)[w] = body(c);
      } catch (const std::exception& e) {
        errors[w] = e.what();
        transport->Abort(w, e.what());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  return errors;
}

// Worker w's contribution: values whose float sum depends on the order it is taken in.
Tensor Part(int w) {
  return MakeTensor(DataType::Float(32), {3},
                    {w == 0 ? 1e8 : 1.0 + w, w % 2 == 0 ? 0.1 * (w + 1) : -1e-3, 3.0 * w});
}

TEST(CollectivesTest, AllReduceSumsInWorkerOrderOnEveryWorker) {
  for (int size : {2, 4}) {
    std::vector<Tensor> out;
    auto errors = OnWorkers(
        1, size,
        [](Collectives& c) { return c.AllReduce(Part(c.worker()), ReduceKind::kSum, true); }, &out);
    Tensor expected = Part(0);
    for (int w = 1; w < size; ++w) expected = Add(expected, Part(w));
    for (int w = 0; w < size; ++w) {
      EXPECT_EQ(errors[w], "");
      EXPECT_TRUE(BitwiseEqual(out[w], expected)) << "worker " << w << " of " << size;
    }
  }
}

TEST(CollectivesTest, ReductionsGatherBroadcastScatterWithinEachGroup) {
  std::vector<Tensor> out;
  // Two groups of two: each group reduces its own workers only.
  auto errors = OnWorkers(
      2, 2, [](Collectives& c) { return c.AllReduce(Part(c.worker()), ReduceKind::kMax, true); },
      &out);
  EXPECT_TRUE(BitwiseEqual(out[1], Maximum(Part(0), Part(1))));
  EXPECT_TRUE(BitwiseEqual(out[3], Maximum(Part(2), Part(3))));
  errors = OnWorkers(
      2, 2, [](Collectives& c) { return c.AllGather(Part(c.worker()), true); }, &out);
  EXPECT_EQ(out[3].shape(), (Shape{6}));
  EXPECT_EQ(out[3].data<float>()[3], Part(3).data<float>()[0]);
  EXPECT_EQ(out[3].data<float>()[0], Part(2).data<float>()[0]);
  errors = OnWorkers(
      2, 2, [](Collectives& c) { return c.BroadcastFromWorker0(Part(c.worker()), true); }, &out);
  EXPECT_TRUE(BitwiseEqual(out[1], Part(0)));
  EXPECT_TRUE(BitwiseEqual(out[3], Part(2)));
  errors = OnWorkers(
      1, 2,
      [](Collectives& c) {
        return c.ScatterFromWorker0(MakeTensor(DataType::Float(32), {2, 2}, {1, 2, 3, 4}), false);
      },
      &out);
  EXPECT_TRUE(BitwiseEqual(out[1], MakeTensor(DataType::Float(32), {2}, {3, 4})));
  EXPECT_TRUE(BitwiseEqual(out[0], MakeTensor(DataType::Float(32), {2}, {1, 2})));
  errors = OnWorkers(
      1, 4,
      [](Collectives& c) {
        return c.AllReduce(MakeTensor(DataType::Float(32), {1}, {2.0 * c.worker()}),
                           ReduceKind::kAvg, false);
      },
      &out);
  EXPECT_TRUE(BitwiseEqual(out[2], MakeTensor(DataType::Float(32), {1}, {3.0})));
}

TEST(CollectivesTest, MismatchesAndCrossGroupReductionsAreNamed) {
  std::vector<Tensor> out;
  auto errors = OnWorkers(
      1, 2,
      [](Collectives& c) {
        return c.AllReduce(c.worker() == 0 ? MakeTensor(DataType::Float(32), {1}, {1})
                                           : MakeTensor(DataType::Float(32), {2}, {1, 2}),
                           ReduceKind::kSum, true);
      },
      &out);
  // Whichever worker of the pair notices first names both.
  EXPECT_THAT(errors[0] + errors[1],
              testing::ContainsRegex("runtime.disco.allreduce: worker [01] holds float32\\[[12]\\] "
                                     "but worker [01] sent float32\\[[12]\\]"));
  errors = OnWorkers(
      2, 1, [](Collectives& c) { return c.AllReduce(Part(c.worker()), ReduceKind::kSum, false); },
      &out);
  EXPECT_THAT(errors[0], HasSubstr("runtime.disco.allreduce across the 2 groups (in_group=False) "
                                   "cannot run"));
  errors = OnWorkers(
      1, 2,
      [](Collectives& c) {
        return c.ScatterFromWorker0(MakeTensor(DataType::Float(32), {3}, {1, 2, 3}), true);
      },
      &out);
  EXPECT_THAT(errors[0],
              HasSubstr("scatters float32[3] but its leading dim must be the 2 workers"));
}

TEST(ShardTest, ShapesAndErrors) {
  ShardSpec qkv{"_shard_qkv", 0, {4, 2, 2}};
  EXPECT_EQ(*ShardShape({16, 5}, qkv, 2).first, (Shape{8, 5}));
  EXPECT_EQ(ShardShape({15, 5}, qkv, 2).second,
            "dim 0 is 15 but 2 shards of segments [4, 2, 2] need 16");
  ShardSpec o{"_shard_o", -1, {}};
  EXPECT_EQ(*ShardShape({4, 6}, o, 3).first, (Shape{4, 2}));
  EXPECT_EQ(ShardShape({4, 7}, o, 2).second, "dim 1 (7) is not divisible by 2 shards");
  EXPECT_EQ(ShardShape({4}, ShardSpec{"", 1, {}}, 2).second, "dim 1 is out of range for 1 dims");
  EXPECT_EQ(qkv.Describe(), "ShardSingleDim _shard_qkv (dim 0, segments [4, 2, 2])");
  // Rows 0..7 of a fused [q (2 per shard), k (1), v (1)] weight, 2 shards: shard 1 takes q rows
  // 2, 3, k row 5, v row 7.
  ShardSpec small{"", 0, {2, 1, 1}};
  Tensor w = MakeTensor(DataType::Float(32), {8, 1}, {0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_TRUE(BitwiseEqual(ShardSingleDim(w, small, 2, 1),
                           MakeTensor(DataType::Float(32), {4, 1}, {2, 3, 5, 7})));
  EXPECT_THROW(ShardSingleDim(w, small, 2, 2), RuntimeError);
}

}  // namespace
}  // namespace pipesplit::runtime
