// The paged KV cache (paged_kv_cache.h) against the naive reference of paged_kv_reference.h:
// prefill and decode of several sequences, GQA, RoPE, fork, popn, remove and page reuse, the
// page accounting, a full cache, float16 storage, and the layer partition of a worker group.
// Errors and the builtins driven by TVMScript are in paged_kv_cache_builtins_test.cc.
#include "pipesplit/runtime/exec/paged_kv_cache.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "tests/runtime/paged_kv_reference.h"

namespace pipesplit::runtime {
namespace {

using ::testing::HasSubstr;

using testing::SmallConfig;

class PagedKvCacheTest : public ::testing::Test {
 protected:
  void Make(const PagedKvCacheConfig& config) {
    config_ = config;
    cache_ = PagedKvCache::Create(config);
    ref_ = std::make_unique<testing::PagedKvReference>(config);
  }
  void Add(int64_t id) {
    cache_->AddSequence(id);
    ref_->Add(id);
  }
  void Fork(int64_t parent, int64_t child, int64_t pos) {
    cache_->ForkSequence(parent, child, pos);
    ref_->Fork(parent, child, pos);
  }
  void PopN(int64_t id, int64_t n) {
    cache_->PopN(id, n);
    ref_->PopN(id, n);
  }
  void Remove(int64_t id) {
    cache_->RemoveSequence(id);
    ref_->Remove(id);
  }

  Tensor RandomQkv(int64_t rows) {
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    const int64_t heads = config_.num_qo_heads + 2 * config_.num_kv_heads;
    std::vector<double> values(rows * heads * config_.head_dim);
    for (double& v : values) v = dist(rng_);
    return MakeTensor(config_.dtype, {rows, heads, config_.head_dim}, values);
  }

  // One forward of `ids` appending `lengths` tokens, through every held layer with random qkv
  // (plus `padding` ignored rows), each layer's output compared with the reference.
  void Forward(const std::vector<int64_t>& ids, const std::vector<int64_t>& lengths,
               double tolerance = 1e-4, int64_t padding = 0) {
    cache_->BeginForward(ids, lengths);
    ref_->Begin(ids, lengths);
    const int64_t tokens = std::accumulate(lengths.begin(), lengths.end(), int64_t{0});
    const double sm_scale = 1.0 / std::sqrt(static_cast<double>(config_.head_dim));
    for (int64_t layer = config_.layer_begin; layer < config_.layer_end; ++layer) {
      const Tensor qkv = RandomQkv(tokens + padding);
      const Tensor out = cache_->AttentionWithFusedQkv(layer, sm_scale, qkv);
      ASSERT_EQ(out.shape(), (Shape{tokens + padding, config_.num_qo_heads, config_.head_dim}));
      ASSERT_EQ(out.dtype(), config_.dtype);
      const std::vector<double> got = ToDoubleVector(out);
      const std::vector<double> want = ref_->Attention(layer, sm_scale, qkv);
      ASSERT_EQ(want.size(), static_cast<size_t>(tokens * config_.num_qo_heads * config_.head_dim));
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_NEAR(got[i], want[i], tolerance) << "layer " << layer << ", element " << i;
      }
    }
    cache_->EndForward();
    for (int64_t id : ids) EXPECT_EQ(cache_->SequenceLength(id), ref_->Length(id));
  }

  int64_t Used() const { return config_.num_pages - cache_->NumAvailablePages(); }

  PagedKvCacheConfig config_;
  std::shared_ptr<PagedKvCache> cache_;
  std::unique_ptr<testing::PagedKvReference> ref_;
  std::mt19937 rng_{20261205};
};

TEST_F(PagedKvCacheTest, PrefillsSeveralSequencesThenDecodes) {
  Make(SmallConfig());
  for (int64_t id : {0, 7, 3}) Add(id);
  EXPECT_EQ(cache_->NumAvailablePages(), 12);
  Forward({7, 0, 3}, {5, 17, 1});
  EXPECT_EQ(cache_->TotalSequenceLength(), 23);
  EXPECT_EQ(Used(), 1 + 2 + 1);
  for (int step = 0; step < 12; ++step) Forward({0, 3, 7}, {1, 1, 1});
  EXPECT_EQ(cache_->SequenceLength(0), 29);
  EXPECT_EQ(cache_->SequenceLength(7), 17);
  EXPECT_EQ(cache_->TotalSequenceLength(), 29 + 17 + 13);
  EXPECT_EQ(Used(), 2 + 2 + 1);
  // A mixed batch (prefill chunks and decodes) with padding rows, in another order.
  Forward({3, 0}, {20, 1}, 1e-4, /*padding=*/3);
  EXPECT_EQ(cache_->SequenceLength(3), 33);
}

TEST_F(PagedKvCacheTest, LengthsAdvanceInBeginForward) {
  Make(SmallConfig());
  Add(1);
  cache_->BeginForward(std::vector<int64_t>{1}, std::vector<int64_t>{3});
  EXPECT_TRUE(cache_->InForward());
  EXPECT_EQ(cache_->SequenceLength(1), 3);
  EXPECT_EQ(cache_->TotalSequenceLength(), 3);
  cache_->EndForward();
  EXPECT_FALSE(cache_->InForward());
}

TEST_F(PagedKvCacheTest, RotatesQueriesAndKeysByPosition) {
  // d = 2: one rotation pair whose angle is the position times rope_scale.
  PagedKvCacheConfig c = SmallConfig();
  c.num_layers = c.layer_end = 1;
  c.num_qo_heads = c.num_kv_heads = 1;
  c.head_dim = 2;
  for (double scale : {1.0, 2.0}) {
    c.rope_scale = scale;
    auto cache = PagedKvCache::Create(c);
    cache->AddSequence(0);
    cache->BeginForward(std::vector<int64_t>{0}, std::vector<int64_t>{2});
    // Rows [q | k | v]: q = k = (1, 0) at positions 0 and 1; v = (1, 0), then (0, 1).
    const Tensor qkv =
        MakeTensor(DataType::Float(32), {2, 3, 2}, {1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1});
    const std::vector<double> out = ToDoubleVector(cache->AttentionWithFusedQkv(0, 1.0, qkv));
    // Token 0 sees itself only. Token 1: q1 . k0 = cos(scale), q1 . k1 = 1.
    const double w0 = std::exp(std::cos(scale)), w1 = std::exp(1.0);
    EXPECT_NEAR(out[0], 1, 1e-6);
    EXPECT_NEAR(out[1], 0, 1e-6);
    EXPECT_NEAR(out[2], w0 / (w0 + w1), 1e-6);
    EXPECT_NEAR(out[3], w1 / (w0 + w1), 1e-6);
  }
  c.rope_mode = RopeMode::kNone;  // equal scores: the mean of the values
  auto cache = PagedKvCache::Create(c);
  cache->AddSequence(0);
  cache->BeginForward(std::vector<int64_t>{0}, std::vector<int64_t>{2});
  const Tensor qkv =
      MakeTensor(DataType::Float(32), {2, 3, 2}, {1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1});
  const std::vector<double> out = ToDoubleVector(cache->AttentionWithFusedQkv(0, 1.0, qkv));
  EXPECT_NEAR(out[2], 0.5, 1e-6);
  EXPECT_NEAR(out[3], 0.5, 1e-6);
}

TEST_F(PagedKvCacheTest, MatchesTheReferenceWithOtherRopeParametersAndWithoutRope) {
  PagedKvCacheConfig c = SmallConfig();
  c.rope_scale = 0.5;
  c.rope_theta = 500;
  c.num_qo_heads = 6;
  c.num_kv_heads = 2;  // groups of 3
  Make(c);
  Add(0);
  Add(1);
  Forward({0, 1}, {9, 19});
  Forward({1, 0}, {1, 1});
  c.rope_mode = RopeMode::kNone;
  c.num_kv_heads = 6;  // plain multi-head attention
  Make(c);
  Add(0);
  Forward({0}, {18});
  Forward({0}, {1});
}

TEST_F(PagedKvCacheTest, MatchesTheReferenceWithLlama3Rope) {
  // head_dim 16, theta 10000: wavelengths from 2 pi to about 19000; an original context of 512
  // with factors 1 and 4 keeps the ones below 128, scales those beyond 512 by 1/8 and smooths
  // the ones between, so every branch is taken. Positions reach 300 for the scaled ones to
  // differ from plain RoPE.
  PagedKvCacheConfig c = SmallConfig(/*pages=*/40);
  c.head_dim = 16;
  c.llama3 = {8.0, 1.0, 4.0, 512.0};
  Make(c);
  Add(0);
  Forward({0}, {300});
  Forward({0}, {1});
  // Without the scaling the same cache gives other outputs (the reference checks the scaled).
  PagedKvCacheConfig plain = c;
  plain.llama3 = {};
  auto a = PagedKvCache::Create(c), b = PagedKvCache::Create(plain);
  for (auto* cache : {a.get(), b.get()}) {
    cache->AddSequence(0);
    cache->BeginForward(std::vector<int64_t>{0}, std::vector<int64_t>{300});
  }
  const Tensor qkv = RandomQkv(300);
  EXPECT_NE(ToDoubleVector(a->AttentionWithFusedQkv(0, 0.25, qkv)),
            ToDoubleVector(b->AttentionWithFusedQkv(0, 0.25, qkv)));
}

TEST_F(PagedKvCacheTest, ForkSharesFullPagesAndCopiesAPartialOne) {
  Make(SmallConfig());
  Add(0);
  Forward({0}, {20});
  EXPECT_EQ(Used(), 2);
  Fork(0, 1, 18);  // page 0 shared, the first 2 slots of page 1 copied
  EXPECT_EQ(Used(), 3);
  Fork(0, 2, 16);  // page aligned: nothing copied
  EXPECT_EQ(Used(), 3);
  Fork(0, 3, -1);  // the whole parent: 4 slots copied
  EXPECT_EQ(Used(), 4);
  Fork(0, 4, 0);  // an empty sequence
  EXPECT_EQ(Used(), 4);
  EXPECT_EQ(cache_->SequenceLength(1), 18);
  EXPECT_EQ(cache_->SequenceLength(3), 20);
  EXPECT_EQ(cache_->SequenceLength(4), 0);
  Forward({0, 1, 2, 3, 4}, {1, 1, 1, 1, 3});
  Forward({2, 0, 3, 1}, {2, 1, 1, 14});
  Fork(1, 5, 17);  // a fork of a fork
  Forward({5, 1}, {3, 1});
  // Removing the parent keeps the pages its children share.
  Remove(0);
  Forward({1, 2, 3, 5}, {1, 1, 1, 1});
}

TEST_F(PagedKvCacheTest, PopNDropsTokensAndCopiesASharedPartialPage) {
  Make(SmallConfig());
  Add(0);
  Forward({0}, {20});
  PopN(0, 5);
  EXPECT_EQ(cache_->SequenceLength(0), 15);
  EXPECT_EQ(Used(), 1);
  Forward({0}, {3});  // overwrites the popped slots
  PopN(0, 0);
  EXPECT_EQ(cache_->SequenceLength(0), 18);

  Fork(0, 1, -1);  // page 0 shared, page 1 copied
  EXPECT_EQ(Used(), 3);
  PopN(1, 6);  // the child's length 12 falls in the shared page: it gets its own copy
  EXPECT_EQ(cache_->SequenceLength(1), 12);
  EXPECT_EQ(Used(), 3);
  Forward({1, 0}, {6, 1});  // the child's new tokens do not overwrite the parent's
  Forward({0, 1}, {1, 1});
  PopN(0, 20);
  EXPECT_EQ(cache_->SequenceLength(0), 0);
  EXPECT_EQ(Used(), 2);  // the child's two pages
  Forward({0}, {2});
}

TEST_F(PagedKvCacheTest, RemoveFreesPagesForReuse) {
  Make(SmallConfig(4));
  Add(0);
  Add(1);
  Forward({0, 1}, {30, 20});
  EXPECT_EQ(cache_->NumAvailablePages(), 0);
  Remove(0);
  EXPECT_EQ(cache_->NumAvailablePages(), 2);
  EXPECT_FALSE(cache_->HasSequence(0));
  EXPECT_EQ(cache_->TotalSequenceLength(), 20);
  Add(2);  // reuses sequence 0's pages; none of its tokens may leak into sequence 2
  Forward({2}, {32});
  EXPECT_EQ(cache_->NumAvailablePages(), 0);
  Remove(1);
  Remove(2);
  EXPECT_EQ(cache_->NumAvailablePages(), 4);
  Add(0);
  Forward({0}, {40});
  cache_->Clear();
  EXPECT_EQ(cache_->NumAvailablePages(), 4);
  EXPECT_EQ(cache_->TotalSequenceLength(), 0);
  EXPECT_FALSE(cache_->HasSequence(0));
}

TEST_F(PagedKvCacheTest, AFullCacheRejectsTheWholeBatch) {
  Make(SmallConfig(3));
  Add(0);
  Add(1);
  Forward({0, 1}, {16, 10});
  try {
    cache_->BeginForward(std::vector<int64_t>{1, 0}, std::vector<int64_t>{1, 17});
    FAIL() << "no error";
  } catch (const RuntimeError& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("kv cache is full: 2 more pages are needed but 1 of 3 are free"));
  }
  // Nothing changed: the batch that fits still runs.
  EXPECT_FALSE(cache_->InForward());
  EXPECT_EQ(cache_->SequenceLength(1), 10);
  EXPECT_EQ(cache_->NumAvailablePages(), 1);
  Forward({1, 0}, {6, 16});
  EXPECT_EQ(cache_->NumAvailablePages(), 0);
  // A fork that needs a page for a partial copy.
  EXPECT_THROW(cache_->ForkSequence(1, 2, 5), RuntimeError);
  EXPECT_FALSE(cache_->HasSequence(2));
}

TEST_F(PagedKvCacheTest, StoresFloat16) {
  for (DataType dtype : {DataType::Float(16), DataType::BFloat16()}) {
    PagedKvCacheConfig c = SmallConfig();
    c.dtype = dtype;
    Make(c);
    Add(0);
    Add(1);
    const double tolerance = dtype == DataType::Float(16) ? 1e-2 : 5e-2;
    Forward({0, 1}, {17, 4}, tolerance);
    Forward({0, 1}, {1, 1}, tolerance);
  }
}

TEST_F(PagedKvCacheTest, AWorkerGroupHoldsItsLayersOnly) {
  PagedKvCacheConfig c = SmallConfig();
  c.num_layers = 5;
  c.layer_begin = 2;
  c.layer_end = 4;
  Make(c);
  Add(0);
  Forward({0}, {18});  // layers 2 and 3, by their global ids
  Forward({0}, {1});
  cache_->BeginForward(std::vector<int64_t>{0}, std::vector<int64_t>{1});
  for (int64_t layer : {0, 1, 4, 7}) {
    try {
      cache_->AttentionWithFusedQkv(layer, 1.0, RandomQkv(1));
      FAIL() << "no error for layer " << layer;
    } catch (const RuntimeError& e) {
      EXPECT_THAT(e.what(), HasSubstr("layer " + std::to_string(layer) +
                                      " is outside the layers [2, 4) this worker's cache holds"));
    }
  }
}

}  // namespace
}  // namespace pipesplit::runtime
