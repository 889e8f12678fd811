// pipesplit_kv_cache_scenario OUT.json: drives the paged KV cache (paged_kv_cache.h) through a
// fixed scenario with seeded random fused qkv inputs and records every operation, in order,
// for kv_cache_reference.py to replay in NumPy: a prefill of 3 sequences (one longer than a
// page) in one forward, 3 decode steps, a fork inside a page then a decode of parent and child,
// a popn then a decode, a remove and an add reusing the freed page (with the available page
// counts), and on a tiny second cache the "kv cache is full" error. Each forward records its
// seq_ids, append lengths and, for both layers, the qkv input and the attention output.
#include <cmath>
#include <cstdio>
#include <exception>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "pipesplit/runtime/exec/paged_kv_cache.h"
#include "pipesplit/runtime/tensor/tensor.h"
#include "tests/runtime/paged_kv_reference.h"

namespace pipesplit::runtime {
namespace {

using Json = nlohmann::json;

// Thrown when the cache's bookkeeping differs from what the scenario expects.
class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void Expect(bool ok, const std::string& what) {
  if (!ok) throw ScenarioError("scenario check failed: " + what);
}

// One cache under test, named in the recorded operations ("main" or "tiny"), with the ids of
// its live sequences. Every operation is appended to `ops`, followed by the lengths of the live
// sequences and the available pages as the cache reports them.
class Recorder {
 public:
  Recorder(std::string name, const PagedKvCacheConfig& config, std::mt19937* rng, Json* ops)
      : name_(std::move(name)),
        config_(config),
        cache_(PagedKvCache::Create(config)),
        rng_(rng),
        ops_(ops) {
    ops_->push_back(State(Json{{"op", "create"}, {"num_pages", config.num_pages}}));
  }

  const PagedKvCache& cache() const { return *cache_; }

  void Add(int64_t id) {
    cache_->AddSequence(id);
    live_[id] = true;
    ops_->push_back(State(Json{{"op", "add"}, {"seq", id}}));
  }
  void Remove(int64_t id) {
    cache_->RemoveSequence(id);
    live_.erase(id);
    ops_->push_back(State(Json{{"op", "remove"}, {"seq", id}}));
  }
  void Fork(int64_t parent, int64_t child, int64_t pos) {
    cache_->ForkSequence(parent, child, pos);
    live_[child] = true;
    ops_->push_back(
        State(Json{{"op", "fork"}, {"parent", parent}, {"child", child}, {"pos", pos}}));
  }
  void PopN(int64_t id, int64_t n) {
    cache_->PopN(id, n);
    ops_->push_back(State(Json{{"op", "popn"}, {"seq", id}, {"n", n}}));
  }

  // One forward of `ids` appending `lengths` tokens through both layers, each with fresh
  // random qkv rows (plus `padding` rows past the token count, which the cache ignores).
  void Forward(const std::vector<int64_t>& ids, const std::vector<int64_t>& lengths,
               int64_t padding = 0) {
    const int64_t tokens = std::accumulate(lengths.begin(), lengths.end(), int64_t{0});
    const int64_t heads = config_.num_qo_heads + 2 * config_.num_kv_heads;
    const int64_t d = config_.head_dim;
    const double sm_scale = 1.0 / std::sqrt(static_cast<double>(d));
    Json op{{"op", "forward"},    {"seq_ids", ids},       {"append_lengths", lengths},
            {"padding", padding}, {"sm_scale", sm_scale}, {"layers", Json::array()}};
    cache_->BeginForward(ids, lengths);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    for (int64_t layer = config_.layer_begin; layer < config_.layer_end; ++layer) {
      std::vector<double> values((tokens + padding) * heads * d);
      for (double& v : values) v = dist(*rng_);
      const Tensor qkv = MakeTensor(config_.dtype, {tokens + padding, heads, d}, values);
      const Tensor out = cache_->AttentionWithFusedQkv(layer, sm_scale, qkv);
      std::vector<double> got = ToDoubleVector(out);
      got.resize(tokens * config_.num_qo_heads * d);  // the rows of the forward's tokens
      op["layers"].push_back(
          Json{{"layer", layer}, {"qkv", ToDoubleVector(qkv)}, {"out", std::move(got)}});
    }
    cache_->EndForward();
    ops_->push_back(State(std::move(op)));
  }

  // BeginForward that must fail with a RuntimeError: records its message and the state after
  // it (no page reserved, no length advanced).
  void FailingBeginForward(const std::vector<int64_t>& ids, const std::vector<int64_t>& lengths) {
    Json op{{"op", "begin_forward_error"}, {"seq_ids", ids}, {"append_lengths", lengths}};
    try {
      cache_->BeginForward(ids, lengths);
      op["raised"] = false;
      cache_->EndForward();
    } catch (const RuntimeError& e) {
      op["raised"] = true;
      op["message"] = e.what();
    }
    op["in_forward"] = cache_->InForward();
    ops_->push_back(State(std::move(op)));
  }

 private:
  Json State(Json op) const {
    op["cache"] = name_;
    Json lengths = Json::object();
    for (const auto& [id, unused] : live_) {
      lengths[std::to_string(id)] = cache_->SequenceLength(id);
    }
    op["lengths_after"] = std::move(lengths);
    op["available_pages_after"] = cache_->NumAvailablePages();
    op["total_length_after"] = cache_->TotalSequenceLength();
    return op;
  }

  std::string name_;
  PagedKvCacheConfig config_;
  std::shared_ptr<PagedKvCache> cache_;
  std::mt19937* rng_;
  Json* ops_;
  std::map<int64_t, bool> live_;
};

Json RunScenario() {
  std::mt19937 rng(20261205);
  Json ops = Json::array();
  const PagedKvCacheConfig main_config = testing::SmallConfig(16);
  Recorder main("main", main_config, &rng, &ops);

  // Prefill of 3 sequences in one forward (20 tokens: longer than a page), not in id order.
  for (int64_t id : {10, 11, 12}) main.Add(id);
  main.Forward({11, 10, 12}, {20, 5, 9});
  Expect(main.cache().NumAvailablePages() == 16 - 4, "prefill uses 2 + 1 + 1 pages");
  // 3 decode steps of all of them: lengths 8, 23, 12.
  for (int step = 0; step < 3; ++step) main.Forward({10, 11, 12}, {1, 1, 1});

  // Fork of 11 (23 tokens) at 18, inside its second page: the child shares the first page and
  // copies the partial one. Then a decode of parent and child in one forward.
  main.Fork(11, 13, 18);
  Expect(main.cache().SequenceLength(13) == 18, "the child holds 18 tokens");
  main.Forward({13, 11}, {1, 1});

  // popn of 3 tokens on 12 (12 -> 9), then a decode step of every sequence.
  main.PopN(12, 3);
  Expect(main.cache().SequenceLength(12) == 9, "popn leaves 9 tokens");
  main.Forward({10, 11, 12, 13}, {1, 1, 1, 1});

  // Remove 10 (9 tokens, one unshared page) and add 14, whose 12-token prefill (with 2 padding
  // rows) reuses the freed page: the available count goes back to where it was.
  const int64_t before_remove = main.cache().NumAvailablePages();
  main.Remove(10);
  Expect(main.cache().NumAvailablePages() == before_remove + 1, "remove frees one page");
  main.Add(14);
  Expect(main.cache().NumAvailablePages() == before_remove + 1, "add takes no page");
  main.Forward({14}, {12}, /*padding=*/2);
  Expect(main.cache().NumAvailablePages() == before_remove, "the new sequence reuses the page");
  main.Forward({13, 14, 11, 12}, {1, 1, 1, 1});

  // A tiny cache of 2 pages: 20 tokens of sequence 0 fill both; a decode of 0 (fits in its
  // second page) with 1 (needs a page) in one forward finds the cache full and changes nothing.
  Recorder tiny("tiny", testing::SmallConfig(2), &rng, &ops);
  tiny.Add(0);
  tiny.Forward({0}, {20});
  tiny.Add(1);
  tiny.FailingBeginForward({0, 1}, {1, 1});
  Expect(ops.back()["raised"] == true, "the tiny cache raised no error");
  Expect(tiny.cache().SequenceLength(0) == 20 && tiny.cache().SequenceLength(1) == 0,
         "a failed BeginForward changed lengths");
  Expect(tiny.cache().NumAvailablePages() == 0, "a failed BeginForward changed pages");

  Json config{
      {"page_size", main_config.page_size},       {"num_layers", main_config.num_layers},
      {"num_qo_heads", main_config.num_qo_heads}, {"num_kv_heads", main_config.num_kv_heads},
      {"head_dim", main_config.head_dim},         {"rope_theta", main_config.rope_theta},
      {"rope_scale", main_config.rope_scale},     {"dtype", "float32"}};
  return Json{{"config", config}, {"ops", ops}};
}

}  // namespace
}  // namespace pipesplit::runtime

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT.json\n", argv[0]);
    return 2;
  }
  try {
    const nlohmann::json result = pipesplit::runtime::RunScenario();
    std::ofstream out(argv[1]);
    out << result.dump() << "\n";
    if (!out) throw std::runtime_error(std::string("cannot write ") + argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
