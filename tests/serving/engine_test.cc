// The serving engine's parts that need no model: the command wire format and the sampler
// (the scheduler: scheduler_test.cc).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "src/serve/engine/command.h"
#include "src/serve/engine/sampler.h"

namespace pipesplit::serve::engine {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ServeCommand, RoundTripsEveryField) {
  Command c;
  c.kind = StepKind::kPrefill;
  c.batch = 2;
  c.forks = {1, 3, 16};
  c.remove = {7};
  c.add = {4};
  c.seq_ids = {3, 4};
  c.lengths = {2, 1};
  c.tokens = {10, 11, 12};
  Command d = DecodeCommand(EncodeCommand(c));
  EXPECT_EQ(d.kind, StepKind::kPrefill);
  EXPECT_EQ(d.batch, 2);
  EXPECT_THAT(d.forks, ElementsAre(1, 3, 16));
  EXPECT_THAT(d.remove, ElementsAre(7));
  EXPECT_THAT(d.add, ElementsAre(4));
  EXPECT_THAT(d.seq_ids, ElementsAre(3, 4));
  EXPECT_THAT(d.lengths, ElementsAre(2, 1));
  EXPECT_THAT(d.tokens, ElementsAre(10, 11, 12));
}

TEST(ServeCommand, RejectsWhatIsNotACommand) {
  auto expect_bad = [](const runtime::Tensor& t) {
    try {
      DecodeCommand(t);
      ADD_FAILURE() << "accepted " << t.ToString();
    } catch (const runtime::RuntimeError& e) {
      EXPECT_THAT(e.what(), HasSubstr("malformed generation command"));
    }
  };
  expect_bad(runtime::MakeTensor(DataType::Float(32), {7}, {0, 0, 0, 0, 0, 0, 0}));
  expect_bad(runtime::MakeIntTensor(DataType::Int(64), {3}, {0, 0, 0}));
  expect_bad(runtime::MakeIntTensor(DataType::Int(64), {7}, {9, 0, 0, 0, 0, 0, 0}));     // kind
  expect_bad(runtime::MakeIntTensor(DataType::Int(64), {7}, {6, 0, 0, 0, 0, 0, 0}));     // kind
  expect_bad(runtime::MakeIntTensor(DataType::Int(64), {8}, {1, 0, 0, 2, 0, 0, 0, 5}));  // counts
  expect_bad(
      runtime::MakeIntTensor(DataType::Int(64), {8}, {1, 0, 1, 0, 0, 0, 0, 5}));  // a fork's words
  expect_bad(runtime::MakeIntTensor(DataType::Int(64), {7}, {1, 0, 0, -1, 0, 0, 0}));  // negative
  expect_bad(runtime::MakeIntTensor(DataType::Int(64), {7},
                                    {1, 0, int64_t{1} << 62, 0, 0, 0, 0}));  // overflowing forks
}

TEST(ServeSampler, GreedyTakesTheFirstLargestLogit) {
  std::vector<float> logits = {0.5f, 2.0f, -1.0f, 2.0f};
  EXPECT_EQ(SampleToken(logits, {}, 0, 0), 1);
}

TEST(ServeSampler, DrawsDependOnlyOnSeedRequestAndStep) {
  std::vector<float> logits = {0.0f, 0.1f, 0.2f, 0.3f, 0.4f};
  SamplingParams p{1.0, 1.0, 42};
  std::map<int32_t, int> counts;
  for (int step = 0; step < 2000; ++step) {
    int32_t t = SampleToken(logits, p, 3, step);
    EXPECT_EQ(t, SampleToken(logits, p, 3, step));
    ++counts[t];
  }
  // Every token is drawn, roughly in proportion to exp(logit): 0.163 .. 0.243 of the draws.
  ASSERT_EQ(counts.size(), 5u);
  EXPECT_GT(counts[4], counts[0]);
  for (const auto& [token, n] : counts) EXPECT_GT(n, 200) << token;
  SamplingParams other{1.0, 1.0, 43};
  int differ = 0;
  for (int step = 0; step < 50; ++step) {
    differ += SampleToken(logits, p, 3, step) != SampleToken(logits, other, 3, step);
  }
  EXPECT_GT(differ, 10);
}

TEST(ServeSampler, TopPKeepsTheNucleus) {
  // Probabilities about 0.64, 0.24, 0.09, 0.03: top_p 0.5 keeps the first token only, 0.8
  // the first two.
  std::vector<float> logits = {3.0f, 2.0f, 1.0f, 0.0f};
  for (int step = 0; step < 200; ++step) {
    EXPECT_EQ(SampleToken(logits, {1.0, 0.5, 7}, 0, step), 0);
    EXPECT_LE(SampleToken(logits, {1.0, 0.8, 7}, 0, step), 1);
  }
}

}  // namespace
}  // namespace pipesplit::serve::engine
