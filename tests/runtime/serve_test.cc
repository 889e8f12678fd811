// The generation engine's parts that need no model: the command wire format, the sampler and
// the controller's batching (serve/generate.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "src/runtime/serve/command.h"
#include "src/runtime/serve/controller.h"
#include "src/runtime/serve/sampler.h"

namespace pipesplit::runtime::serve {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(ServeCommand, RoundTripsEveryField) {
  Command c;
  c.kind = StepKind::kPrefill;
  c.batch = 2;
  c.remove = {7};
  c.add = {3, 4};
  c.seq_ids = {3, 4};
  c.lengths = {2, 1};
  c.tokens = {10, 11, 12};
  Command d = DecodeCommand(EncodeCommand(c));
  EXPECT_EQ(d.kind, StepKind::kPrefill);
  EXPECT_EQ(d.batch, 2);
  EXPECT_THAT(d.remove, ElementsAre(7));
  EXPECT_THAT(d.add, ElementsAre(3, 4));
  EXPECT_THAT(d.seq_ids, ElementsAre(3, 4));
  EXPECT_THAT(d.lengths, ElementsAre(2, 1));
  EXPECT_THAT(d.tokens, ElementsAre(10, 11, 12));
}

TEST(ServeCommand, RejectsWhatIsNotACommand) {
  auto expect_bad = [](const Tensor& t) {
    try {
      DecodeCommand(t);
      ADD_FAILURE() << "accepted " << t.ToString();
    } catch (const RuntimeError& e) {
      EXPECT_THAT(e.what(), HasSubstr("malformed generation command"));
    }
  };
  expect_bad(MakeTensor(DataType::Float(32), {6}, {0, 0, 0, 0, 0, 0}));
  expect_bad(MakeIntTensor(DataType::Int(64), {3}, {0, 0, 0}));
  expect_bad(MakeIntTensor(DataType::Int(64), {6}, {9, 0, 0, 0, 0, 0}));     // kind
  expect_bad(MakeIntTensor(DataType::Int(64), {7}, {1, 0, 2, 0, 0, 0, 5}));  // counts
  expect_bad(MakeIntTensor(DataType::Int(64), {6}, {1, 0, -1, 0, 0, 0}));    // negative
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

// Logits whose argmax is `token` for each of `rows` rows.
Tensor LogitsFor(int64_t rows, int64_t vocab, int32_t token) {
  std::vector<double> values(static_cast<size_t>(rows * vocab), 0.0);
  for (int64_t r = 0; r < rows; ++r) values[r * vocab + token] = 1.0;
  return MakeTensor(DataType::Float(32), {rows, vocab}, values);
}

TEST(ServeController, KeepsDisjointBatchesInFlightAndRetiresFinishedRequests) {
  std::vector<std::vector<int32_t>> prompts = {{1, 2}, {3}, {4, 5, 6}, {7}, {8}};
  GenerateOptions options;
  options.batches_in_flight = 2;
  options.max_new_tokens = 2;
  Controller c(prompts, options);
  EXPECT_EQ(c.batch_capacity(), 3);
  std::optional<Command> a = c.NextCommand();
  ASSERT_TRUE(a);
  EXPECT_EQ(a->kind, StepKind::kPrefill);
  EXPECT_EQ(a->batch, 0);
  EXPECT_THAT(a->add, ElementsAre(0, 1, 2));
  EXPECT_THAT(a->lengths, ElementsAre(2, 1, 3));
  EXPECT_THAT(a->tokens, ElementsAre(1, 2, 3, 4, 5, 6));
  std::optional<Command> b = c.NextCommand();
  ASSERT_TRUE(b);
  EXPECT_EQ(b->batch, 1);
  EXPECT_THAT(b->seq_ids, ElementsAre(3, 4));
  EXPECT_FALSE(c.NextCommand());  // both batches are busy
  EXPECT_EQ(c.in_flight(), 2u);

  c.Complete(LogitsFor(3, 10, 9), 0.5);  // batch 0's first tokens
  std::optional<Command> a2 = c.NextCommand();
  ASSERT_TRUE(a2);
  EXPECT_EQ(a2->kind, StepKind::kDecode);
  EXPECT_EQ(a2->batch, 0);
  EXPECT_THAT(a2->tokens, ElementsAre(9, 9, 9));
  EXPECT_THAT(a2->lengths, ElementsAre(1, 1, 1));
  EXPECT_THAT(a2->remove, IsEmpty());

  c.Complete(LogitsFor(2, 10, 5), 0.6);  // batch 1's first tokens
  c.Complete(LogitsFor(3, 10, 8), 0.7);  // batch 0 is done
  EXPECT_FALSE(c.Done());
  std::optional<Command> b2 = c.NextCommand();
  ASSERT_TRUE(b2);
  EXPECT_EQ(b2->batch, 1);
  EXPECT_THAT(b2->remove, ElementsAre(0, 1, 2));  // batch 0's sequences leave first
  EXPECT_FALSE(c.NextCommand());                  // batch 0 has no work left
  c.Complete(LogitsFor(2, 10, 4), 0.8);
  EXPECT_TRUE(c.Done());
  EXPECT_THAT(c.StopCommand().remove, ElementsAre(3, 4));
  EXPECT_THAT(c.outputs()[0].tokens, ElementsAre(9, 8));
  EXPECT_THAT(c.outputs()[4].tokens, ElementsAre(5, 4));
  EXPECT_DOUBLE_EQ(c.outputs()[3].first_token_seconds, 0.6);
  EXPECT_EQ(c.prefill_steps(), 2);
  EXPECT_EQ(c.decode_steps(), 2);
  EXPECT_EQ(c.decode_tokens(), 5);
}

TEST(ServeController, RequestsJoinABatchWhenOthersLeave) {
  std::vector<std::vector<int32_t>> prompts = {{1}, {2}, {3}};
  GenerateOptions options;
  options.max_batch_size = 1;
  options.max_new_tokens = 1;
  Controller c(prompts, options);
  for (int64_t r = 0; r < 3; ++r) {
    std::optional<Command> step = c.NextCommand();
    ASSERT_TRUE(step);
    EXPECT_EQ(step->kind, StepKind::kPrefill);
    EXPECT_THAT(step->add, ElementsAre(r));
    if (r > 0) {
      EXPECT_THAT(step->remove, ElementsAre(r - 1));
    }
    c.Complete(LogitsFor(1, 4, 2), 0.0);
  }
  EXPECT_TRUE(c.Done());
}

// With a prefill chunk, a prefill step takes whole prompts while they fit (always one); the
// running limit counts every batch's share.
TEST(ServeController, APrefillTakesThePromptsThatFitItsChunk) {
  std::vector<std::vector<int32_t>> prompts = {{1, 2, 3}, {4, 5}, {6, 7, 8, 9}, {1}};
  GenerateOptions options;
  options.max_new_tokens = 1;
  options.prefill_chunk_size = 5;
  Controller c(prompts, options);
  std::optional<Command> first = c.NextCommand();
  ASSERT_TRUE(first);
  EXPECT_THAT(first->add, ElementsAre(0, 1));  // 3 + 2 tokens; the 4-token prompt waits
  std::optional<Command> second = c.NextCommand();
  ASSERT_FALSE(second);  // one batch, busy
  c.Complete(LogitsFor(2, 4, 1), 0.0);
  std::optional<Command> third = c.NextCommand();
  ASSERT_TRUE(third);
  EXPECT_THAT(third->add, ElementsAre(2, 3));  // 4 + 1 tokens
  options.prefill_chunk_size = 2;              // a prompt longer than the chunk still goes alone
  Controller alone(prompts, options);
  EXPECT_THAT(alone.NextCommand()->add, ElementsAre(0));

  GenerateOptions running;
  running.batches_in_flight = 2;
  running.max_batch_size = 3;
  EXPECT_EQ(BatchCapacity(10, running), 2);
  EXPECT_EQ(RunningLimit(10, running), 4);
  EXPECT_EQ(RunningLimit(3, running), 3);
}

}  // namespace
}  // namespace pipesplit::runtime::serve
