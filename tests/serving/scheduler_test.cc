// The serving scheduler (src/serve/engine/scheduler.h) without a model: batches in flight,
// chunked prefill, admission by KV pages, preemption and recomputation, stop conditions and
// cancellation, driven with logits whose argmax is chosen.
#include "src/serve/engine/scheduler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <deque>
#include <optional>
#include <vector>

#include "tests/serving/scheduler_test_util.h"

namespace pipesplit::serve::engine {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

using testing_util::LogitsFor;
using testing_util::Request;

SchedulerOptions Options(int batches, int64_t capacity, int64_t pages = 64) {
  SchedulerOptions o;
  o.batches_in_flight = batches;
  o.batch_capacity = capacity;
  o.prefill_chunk_size = 512;
  o.num_pages = pages;
  o.max_sequence_length = pages * kPageSize;
  return o;
}

// The tokens of each request's events (-1 for an end without a token) and its finish.
struct Seen {
  std::vector<int32_t> tokens;
  FinishReason finish = FinishReason::kNone;
};
void Collect(Scheduler& s, std::vector<Seen>& seen) {
  for (const SchedulerEvent& e : s.events()) {
    if (e.token >= 0) seen[e.request].tokens.push_back(e.token);
    if (e.finish != FinishReason::kNone) seen[e.request].finish = e.finish;
  }
  s.ClearEvents();
}

TEST(ServeScheduler, KeepsDisjointBatchesInFlightAndRetiresFinishedRequests) {
  Scheduler s(Options(2, 3));
  const std::vector<std::vector<int32_t>> prompts = {{1, 2}, {3}, {4, 5, 6}, {7}, {8}};
  for (int64_t r = 0; r < 5; ++r) s.Add(Request(r, prompts[r], 2));
  std::optional<Command> a = s.NextCommand();
  ASSERT_TRUE(a);
  EXPECT_EQ(a->kind, StepKind::kPrefill);
  EXPECT_EQ(a->batch, 0);
  EXPECT_THAT(a->add, ElementsAre(0, 1, 2));
  EXPECT_THAT(a->lengths, ElementsAre(2, 1, 3));
  EXPECT_THAT(a->tokens, ElementsAre(1, 2, 3, 4, 5, 6));
  std::optional<Command> b = s.NextCommand();
  ASSERT_TRUE(b);
  EXPECT_EQ(b->batch, 1);
  EXPECT_EQ(b->kind, StepKind::kDecode);  // two prompts of one token
  EXPECT_THAT(b->seq_ids, ElementsAre(3, 4));
  EXPECT_FALSE(s.NextCommand());  // both batches are busy
  EXPECT_EQ(s.in_flight(), 2u);

  std::vector<Seen> seen(5);
  s.Complete(LogitsFor(3, 10, 9));  // batch 0's first tokens
  Collect(s, seen);
  std::optional<Command> a2 = s.NextCommand();
  ASSERT_TRUE(a2);
  EXPECT_EQ(a2->kind, StepKind::kDecode);
  EXPECT_EQ(a2->batch, 0);
  EXPECT_THAT(a2->tokens, ElementsAre(9, 9, 9));
  EXPECT_THAT(a2->remove, IsEmpty());
  s.Complete(LogitsFor(2, 10, 5));  // batch 1's first tokens
  s.Complete(LogitsFor(3, 10, 8));  // batch 0 is done
  Collect(s, seen);
  EXPECT_FALSE(s.Idle());
  std::optional<Command> b2 = s.NextCommand();
  ASSERT_TRUE(b2);
  EXPECT_EQ(b2->batch, 1);
  EXPECT_THAT(b2->remove, ElementsAre(0, 1, 2));  // batch 0's sequences leave first
  EXPECT_FALSE(s.NextCommand());                  // batch 0 has no work left
  s.Complete(LogitsFor(2, 10, 4));
  Collect(s, seen);
  EXPECT_TRUE(s.Idle());
  EXPECT_THAT(s.StopCommand().remove, ElementsAre(3, 4));
  EXPECT_THAT(seen[0].tokens, ElementsAre(9, 8));
  EXPECT_THAT(seen[4].tokens, ElementsAre(5, 4));
  EXPECT_EQ(seen[4].finish, FinishReason::kLength);
  EXPECT_EQ(s.prefill_steps(), 1);
  EXPECT_EQ(s.decode_steps(), 3);
  EXPECT_EQ(s.decode_tokens(), 5);
}

// Filling the pipeline: with more requests waiting than a batch takes, the first batch takes
// its requests whole but prefills a quarter of the chunk; the next, started while that step is
// in flight, a quarter more than it; the steps then grow by a quarter until the prompts are in.
TEST(ServeScheduler, TheFirstStepsFillThePipelineInGrowingChunks) {
  SchedulerOptions o = Options(2, 4);
  o.prefill_chunk_size = 64;
  Scheduler s(o);
  std::vector<int32_t> prompt(16);
  for (int32_t i = 0; i < 16; ++i) prompt[i] = i + 1;
  for (int64_t r = 0; r < 8; ++r) s.Add(Request(r, prompt, 2));
  std::optional<Command> a = s.NextCommand();
  ASSERT_TRUE(a);
  EXPECT_THAT(a->add, ElementsAre(0, 1, 2, 3));  // the whole batch joins
  EXPECT_EQ(a->tokens.size(), 16u);              // a quarter of the chunk
  std::optional<Command> b = s.NextCommand();
  ASSERT_TRUE(b);
  EXPECT_THAT(b->add, ElementsAre(4, 5, 6, 7));
  EXPECT_EQ(b->tokens.size(), 20u);  // a quarter more than the step in flight
  s.Complete(LogitsFor(1, 10, 9));   // batch 0's first prompt is in: its token
  std::optional<Command> a2 = s.NextCommand();
  ASSERT_TRUE(a2);
  EXPECT_EQ(a2->batch, 0);
  EXPECT_EQ(a2->tokens.size(), 25u);  // a quarter more than batch 1's step, 1 decode row in it
  // Everything completes: every request gets its two tokens.
  std::vector<Seen> seen(8);
  Collect(s, seen);
  std::deque<int64_t> rows = {static_cast<int64_t>(b->seq_ids.size()),
                              static_cast<int64_t>(a2->seq_ids.size())};
  for (int guard = 0; guard < 100 && !rows.empty(); ++guard) {
    s.Complete(LogitsFor(rows.front(), 10, 7));
    rows.pop_front();
    Collect(s, seen);
    while (std::optional<Command> c = s.NextCommand()) {
      rows.push_back(static_cast<int64_t>(c->seq_ids.size()));
    }
  }
  EXPECT_TRUE(s.Idle());
  for (const Seen& r : seen) EXPECT_EQ(r.tokens.size(), 2u);
}

TEST(ServeScheduler, RequestsJoinABatchWhenOthersLeave) {
  Scheduler s(Options(1, 1));
  for (int64_t r = 0; r < 3; ++r) s.Add(Request(r, {1, 2}, 1));
  for (int64_t r = 0; r < 3; ++r) {
    std::optional<Command> step = s.NextCommand();
    ASSERT_TRUE(step);
    EXPECT_THAT(step->add, ElementsAre(r));
    if (r > 0) {
      EXPECT_THAT(step->remove, ElementsAre(r - 1));
    }
    s.Complete(LogitsFor(1, 4, 2));
  }
  EXPECT_TRUE(s.Idle());
}

// A long prompt enters in chunks while the running request keeps decoding in the same steps;
// short prompts join whole when they fit the budget left, else wait for the next step.
TEST(ServeScheduler, ChunkedPrefillInterleavesWithDecodes) {
  SchedulerOptions o = Options(1, 8);
  o.prefill_chunk_size = 8;
  Scheduler s(o);
  s.Add(Request(0, {1, 2}, 10));
  ASSERT_TRUE(s.NextCommand());
  s.Complete(LogitsFor(1, 16, 3));  // request 0 decodes from now on
  std::vector<int32_t> prompt(20, 5);
  s.Add(Request(1, prompt, 2));
  s.Add(Request(2, {6, 6}, 2));
  std::optional<Command> c1 = s.NextCommand();
  ASSERT_TRUE(c1);
  EXPECT_EQ(c1->kind, StepKind::kPrefill);
  EXPECT_THAT(c1->seq_ids, ElementsAre(0, 1));  // the decode row, then 7 prompt tokens
  EXPECT_THAT(c1->lengths, ElementsAre(1, 7));
  s.Complete(LogitsFor(2, 16, 3));
  std::optional<Command> c2 = s.NextCommand();
  ASSERT_TRUE(c2);
  EXPECT_THAT(c2->lengths, ElementsAre(1, 7));  // request 2 waits: the chunk has no room
  s.Complete(LogitsFor(2, 16, 3));
  std::optional<Command> c3 = s.NextCommand();
  ASSERT_TRUE(c3);
  EXPECT_THAT(c3->seq_ids, ElementsAre(0, 1));  // 6 tokens end the prompt; request 2 would
  EXPECT_THAT(c3->lengths, ElementsAre(1, 6));  // need 2 of the 1 left: it waits
  std::vector<Seen> seen(3);
  s.Complete(LogitsFor(2, 16, 4));
  Collect(s, seen);
  EXPECT_THAT(seen[1].tokens, ElementsAre(4));  // sampled once its whole prompt was in
  std::optional<Command> c4 = s.NextCommand();
  ASSERT_TRUE(c4);
  EXPECT_THAT(c4->seq_ids, ElementsAre(0, 1, 2));
  EXPECT_THAT(c4->lengths, ElementsAre(1, 1, 2));
  EXPECT_EQ(c4->kind, StepKind::kPrefill);
  s.Complete(LogitsFor(3, 16, 5));
  Collect(s, seen);
  EXPECT_THAT(seen[0].tokens, ElementsAre(3, 3, 3, 4, 5));
  EXPECT_THAT(seen[1].tokens, ElementsAre(4, 5));
  EXPECT_EQ(seen[1].finish, FinishReason::kLength);
  EXPECT_THAT(seen[2].tokens, ElementsAre(5));
}

// Two pages: the second request (two pages of prompt) waits for the first to finish.
TEST(ServeScheduler, ARequestJoinsWhenThePagesOfItsPromptAreFree) {
  SchedulerOptions o = Options(1, 4, /*pages=*/3);
  Scheduler s(o);
  s.Add(Request(0, std::vector<int32_t>(20, 1), 2));  // 2 pages
  s.Add(Request(1, std::vector<int32_t>(17, 1), 2));  // 2 pages
  std::optional<Command> c1 = s.NextCommand();
  ASSERT_TRUE(c1);
  EXPECT_THAT(c1->add, ElementsAre(0));
  EXPECT_EQ(s.pages_used(), 2);
  EXPECT_EQ(s.num_waiting(), 1);
  s.Complete(LogitsFor(1, 4, 1));
  std::optional<Command> c2 = s.NextCommand();
  ASSERT_TRUE(c2);
  EXPECT_THAT(c2->add, IsEmpty());
  s.Complete(LogitsFor(1, 4, 1));  // request 0 has its 2 tokens
  std::optional<Command> c3 = s.NextCommand();
  ASSERT_TRUE(c3);
  EXPECT_THAT(c3->remove, ElementsAre(0));
  EXPECT_THAT(c3->add, ElementsAre(1));
}

// Four pages, two requests of one page each that grow: when the older needs a page and none is
// free, the younger is preempted (removed, back at the front of the queue) and later prefilled
// again from its prompt and the tokens it had; its stream goes on where it stopped.
TEST(ServeScheduler, TheYoungestIsPreemptedAndRecomputed) {
  SchedulerOptions o = Options(1, 4, /*pages=*/4);
  Scheduler s(o);
  s.Add(Request(0, std::vector<int32_t>(15, 1), 40));
  s.Add(Request(1, std::vector<int32_t>(15, 2), 20));
  std::vector<Seen> seen(2);
  int64_t preempted_at = -1;
  for (int step = 0; step < 200 && !s.Idle(); ++step) {
    std::optional<Command> c = s.NextCommand();
    ASSERT_TRUE(c) << step;
    if (preempted_at < 0 && s.preemptions() > 0) {
      preempted_at = step;
      EXPECT_THAT(c->remove, ElementsAre(1));  // the younger one's sequence
      EXPECT_THAT(c->seq_ids, ElementsAre(0));
    }
    if (!c->add.empty() && preempted_at >= 0 && c->add[0] != 0 && c->add[0] != 1) {
      // The recomputation: its prompt and every token it had, in one row.
      EXPECT_EQ(c->lengths.back(), 15 + static_cast<int64_t>(seen[1].tokens.size()));
    }
    s.Complete(LogitsFor(static_cast<int64_t>(c->seq_ids.size()), 8, 3));
    Collect(s, seen);
  }
  EXPECT_TRUE(s.Idle());
  EXPECT_GE(preempted_at, 0);
  EXPECT_GE(s.preemptions(), 1);
  EXPECT_EQ(seen[0].tokens.size(), 40u);
  EXPECT_EQ(seen[1].tokens.size(), 20u);
  EXPECT_EQ(seen[1].finish, FinishReason::kLength);
  EXPECT_EQ(s.pages_used(), 0);
}

// A row of a request preempted while its step was in flight is ignored. Four pages, two
// batches of one request of a full page each, growing in turn: the older one reaches its third
// page first, while the younger one's step is in flight.
TEST(ServeScheduler, RowsOfARequestPreemptedInFlightAreIgnored) {
  Scheduler s(Options(2, 1, /*pages=*/4));
  s.Add(Request(0, std::vector<int32_t>(16, 1), 40));
  s.Add(Request(1, std::vector<int32_t>(16, 2), 40));
  ASSERT_TRUE(s.NextCommand());  // batch 0: request 0
  ASSERT_TRUE(s.NextCommand());  // batch 1: request 1
  std::vector<Seen> seen(2);
  for (int step = 0; step < 40 && s.preemptions() == 0; ++step) {
    s.Complete(LogitsFor(1, 4, 2));
    Collect(s, seen);
    std::optional<Command> c = s.NextCommand();
    ASSERT_TRUE(c);
    if (s.preemptions() > 0) {
      EXPECT_EQ(c->batch, 0);
      EXPECT_THAT(c->remove, ElementsAre(1));
      EXPECT_THAT(c->seq_ids, ElementsAre(0));
    }
  }
  ASSERT_EQ(s.preemptions(), 1);
  EXPECT_EQ(s.in_flight(), 2u);
  const size_t before = seen[1].tokens.size();
  s.Complete(LogitsFor(1, 4, 3));  // batch 1's step: stale, no token for request 1
  Collect(s, seen);
  EXPECT_EQ(seen[1].tokens.size(), before);
  EXPECT_EQ(s.num_waiting(), 1);
  EXPECT_EQ(s.num_preempted_waiting(), 1);
}

TEST(ServeScheduler, StopTokensAndCancellationEndRequests) {
  Scheduler s(Options(1, 4));
  ScheduledRequest stopper = Request(0, {1}, 10);
  stopper.stop_token_ids = {7};
  s.Add(stopper);
  s.Add(Request(1, {1}, 10));
  s.Add(Request(2, {1}, 10));
  std::vector<Seen> seen(3);
  ASSERT_TRUE(s.NextCommand());
  s.Complete(LogitsFor(3, 8, 7));
  Collect(s, seen);
  EXPECT_THAT(seen[0].tokens, ElementsAre(7));
  EXPECT_EQ(seen[0].finish, FinishReason::kStop);
  EXPECT_EQ(seen[1].finish, FinishReason::kNone);  // 7 stops request 0 only
  s.Cancel(2);
  Collect(s, seen);
  EXPECT_EQ(seen[2].finish, FinishReason::kCancelled);
  std::optional<Command> c = s.NextCommand();
  ASSERT_TRUE(c);
  EXPECT_THAT(c->remove, ElementsAre(0, 2));
  EXPECT_THAT(c->seq_ids, ElementsAre(1));
  EXPECT_EQ(s.pages_used(), 1);
  s.Cancel(42);  // unknown: ignored
  s.Add(Request(3, {1, 2}, 4));
  s.Cancel(3);  // waiting: leaves the queue
  seen.resize(4);
  Collect(s, seen);
  EXPECT_EQ(seen[3].finish, FinishReason::kCancelled);
  EXPECT_EQ(s.num_waiting(), 0);
}

}  // namespace
}  // namespace pipesplit::serve::engine
