// The scheduler's prefix cache (src/serve/engine/prefix_cache.h, scheduler.h) without a model:
// finished sequences are kept and forked in whole pages, a conversation keeps its last turn
// only, entries are evicted least recently used first and before any running request is
// preempted, siblings wait for the pages they share to be computed, and page counts return to
// zero when everything is removed.
#include "src/serve/engine/prefix_cache.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>
#include <optional>
#include <vector>

#include "src/serve/engine/scheduler.h"
#include "tests/serving/scheduler_test_util.h"

namespace pipesplit::serve::engine {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

using testing_util::LogitsFor;
using testing_util::Request;

// Tokens first, first + 1, ...
std::vector<int32_t> Ids(int32_t first, int64_t n) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), first);
  return v;
}

SchedulerOptions Options(int64_t pages, int64_t capacity = 2) {
  SchedulerOptions o;
  o.batches_in_flight = 1;
  o.batch_capacity = capacity;
  o.num_pages = pages;
  o.max_sequence_length = pages * kPageSize;
  o.prefix_cache = true;
  return o;
}

// Issues and completes steps (every sampled token `token`) until nothing is left to run.
void Drain(Scheduler& s, int32_t token, std::vector<Command>* issued = nullptr) {
  for (int guard = 0; guard < 1000; ++guard) {
    std::optional<Command> c = s.NextCommand();
    if (!c) break;
    if (issued != nullptr) issued->push_back(*c);
    s.Complete(LogitsFor(static_cast<int64_t>(c->seq_ids.size()), 100, token));
  }
  s.ClearEvents();
}

TEST(PagePool, CountsHoldersAndFreesAtTheLast) {
  PagePool pool(2);
  const int64_t a = pool.Take();
  EXPECT_EQ(pool.num_free(), 1);
  pool.Hold(a);
  pool.Release(a);
  EXPECT_EQ(pool.num_free(), 1);
  pool.Release(a);
  EXPECT_EQ(pool.num_free(), 2);
  EXPECT_EQ(SharedPrefix(Ids(0, 40), Ids(0, 35), 100, 16), 32);
  EXPECT_EQ(SharedPrefix(Ids(0, 40), Ids(0, 40), 31, 16), 16);  // the limit
  EXPECT_EQ(SharedPrefix(Ids(0, 40), Ids(1, 40), 100, 16), 0);
}

TEST(PrefixCache, ANextTurnForksTheLastTurnsWholePages) {
  Scheduler s(Options(16));
  s.Add(Request(0, Ids(1, 40), 2));
  std::vector<Command> first;
  Drain(s, 90, &first);
  ASSERT_EQ(first.size(), 2u);  // the prompt, then the first token
  EXPECT_THAT(first[0].add, ElementsAre(0));
  // 41 tokens computed (the prompt and the first sampled token) stay in 3 pages.
  EXPECT_EQ(s.pages_used(), 3);
  EXPECT_EQ(s.pages_cached(), 3);
  // The next turn: the history (prompt and both tokens) and new tokens.
  std::vector<int32_t> turn = Ids(1, 40);
  turn.insert(turn.end(), {90, 90, 50, 51, 52});
  s.Add(Request(1, turn, 1));
  std::optional<Command> c = s.NextCommand();
  ASSERT_TRUE(c);
  EXPECT_THAT(c->forks, ElementsAre(0, 1, 32));  // two whole pages of the 41 shared tokens
  EXPECT_THAT(c->add, IsEmpty());
  EXPECT_THAT(c->remove, IsEmpty());
  EXPECT_THAT(c->lengths, ElementsAre(13));  // 45 tokens, 32 forked
  EXPECT_EQ(c->tokens.front(), 33);
  EXPECT_EQ(s.pages_used(), 3 + 1);  // one page of its own beyond the two shared
  PrefixCacheStats stats = s.prefix_cache_stats();
  EXPECT_EQ(stats.hits, 1);
  EXPECT_EQ(stats.hit_tokens, 32);
  EXPECT_EQ(stats.lookup_tokens, 40 + 45);
  s.Complete(LogitsFor(1, 100, 7));
  s.ClearEvents();
  // Its sequence (45 tokens) starts with the first turn's 41: that entry is dropped with it.
  EXPECT_EQ(s.prefix_cache_stats().entries, 1);
  s.Add(Request(2, Ids(60, 3), 1));
  std::optional<Command> next = s.NextCommand();
  ASSERT_TRUE(next);
  EXPECT_THAT(next->remove, ElementsAre(0));
  EXPECT_EQ(s.pages_used(), 3 + 1);  // the second turn's 3 pages and the new request's
  s.Complete(LogitsFor(1, 100, 7));
  // The short request was not kept; the second turn's entry goes with the stop.
  EXPECT_THAT(s.StopCommand().remove, ElementsAre(2, 1));
  EXPECT_EQ(s.pages_used(), 0);
}

TEST(PrefixCache, EntriesAreEvictedLeastRecentlyUsedFirstBeforeAnyPreemption) {
  Scheduler s(Options(8, 1));
  s.Add(Request(0, Ids(100, 47), 1));  // 47 tokens: 3 pages kept
  Drain(s, 5);
  s.Add(Request(1, Ids(200, 47), 1));
  Drain(s, 5);
  EXPECT_EQ(s.pages_used(), 6);
  EXPECT_EQ(s.prefix_cache_stats().entries, 2);
  // Request 0's entry is used again: request 1's is now the least recently used.
  std::vector<int32_t> again = Ids(100, 33);
  s.Add(Request(2, again, 1));
  Drain(s, 5);
  EXPECT_EQ(s.prefix_cache_stats().hits, 1);
  // A request of 4 pages finds 2 free: request 1's entry goes, not request 0's.
  s.Add(Request(3, Ids(300, 60), 1));
  std::optional<Command> c = s.NextCommand();
  ASSERT_TRUE(c);
  EXPECT_THAT(c->remove, ElementsAre(1));
  EXPECT_EQ(s.prefix_cache_stats().evictions, 1);
  s.Complete(LogitsFor(1, 100, 5));
  EXPECT_EQ(s.preemptions(), 0);
  // A decoding request that needs pages takes the cached ones first.
  Scheduler t(Options(6, 1));
  t.Add(Request(0, Ids(100, 64), 1));  // 4 pages kept
  Drain(t, 5);
  t.Add(Request(1, Ids(200, 16), 20));  // 1 page, then 2 as it decodes
  Drain(t, 5);
  EXPECT_EQ(t.preemptions(), 0);
  EXPECT_EQ(t.prefix_cache_stats().evictions, 1);
}

TEST(PrefixCache, SiblingsWaitForTheSharedPagesThenForkTheRunningRequest) {
  Scheduler s(Options(16, 4));
  for (int64_t id = 0; id < 3; ++id) s.Add(Request(id, Ids(1, 40), 2));
  std::optional<Command> a = s.NextCommand();
  ASSERT_TRUE(a);
  EXPECT_THAT(a->add, ElementsAre(0));  // the others wait for its first two pages
  EXPECT_FALSE(s.NextCommand());
  s.Complete(LogitsFor(1, 100, 9));
  s.ClearEvents();
  std::optional<Command> b = s.NextCommand();
  ASSERT_TRUE(b);
  EXPECT_THAT(b->forks, ElementsAre(0, 1, 32, 0, 2, 32));
  EXPECT_THAT(b->seq_ids, ElementsAre(0, 1, 2));
  EXPECT_THAT(b->lengths, ElementsAre(1, 8, 8));
  // 3 pages of request 0 (41 tokens), and one of its own for each sibling.
  EXPECT_EQ(s.pages_used(), 5);
  s.Complete(LogitsFor(3, 100, 9));
  Drain(s, 9);
  EXPECT_TRUE(s.Idle());
  EXPECT_EQ(s.prefix_cache_stats().hits, 2);
  s.StopCommand();
  EXPECT_EQ(s.pages_used(), 0);
}

TEST(PrefixCache, APreemptedForkIsForkedAgainAndEveryPageReturns) {
  // Two requests fork a cached prompt and decode until the pages run out: the younger is
  // preempted (after the cached entry is evicted - its pages stay shared with the running
  // requests), then joins again; all pages return at the end.
  Scheduler s(Options(7, 2));
  s.Add(Request(0, Ids(1, 32), 1));
  Drain(s, 3);
  std::vector<int32_t> p1 = Ids(1, 32);
  p1.push_back(70);
  std::vector<int32_t> p2 = Ids(1, 32);
  p2.push_back(71);
  s.Add(Request(1, p1, 40));
  s.Add(Request(2, p2, 40));
  Drain(s, 3);
  EXPECT_TRUE(s.Idle());
  EXPECT_GE(s.preemptions(), 1);
  EXPECT_GE(s.prefix_cache_stats().hits, 2);
  s.StopCommand();
  EXPECT_EQ(s.pages_used(), 0);
}

TEST(PrefixCache, OffKeepsNothing) {
  SchedulerOptions o = Options(16);
  o.prefix_cache = false;
  Scheduler s(o);
  s.Add(Request(0, Ids(1, 40), 1));
  Drain(s, 5);
  EXPECT_EQ(s.pages_used(), 0);
  s.Add(Request(1, Ids(1, 40), 1));
  std::optional<Command> c = s.NextCommand();
  ASSERT_TRUE(c);
  EXPECT_THAT(c->forks, IsEmpty());
  EXPECT_THAT(c->remove, ElementsAre(0));
  EXPECT_EQ(s.prefix_cache_stats().lookups, 0);
}

}  // namespace
}  // namespace pipesplit::serve::engine
