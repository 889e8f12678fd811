// The serving engine's API (serve/engine/engine.h) on the tiny serving example: requests
// submitted from several threads while it runs get the tokens Generate gives them, requests
// it cannot run are refused with the reason (the limit named), a cancelled request's pages
// return, shutdown ends every open request, and requests submitted before Run are checked
// when it starts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "pipesplit/models/llama_serving.h"
#include "pipesplit/runtime/launch/launch.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/serve/engine/engine.h"
#include "pipesplit/serve/engine/generate.h"
#include "pipesplit/transform/pipeline_parallel_rewrite.h"

namespace pipesplit::serving_test {
namespace {

using serve::Engine;
using serve::FinishReason;
using serve::SubmitResult;
using serve::TokenEvent;
using ::testing::HasSubstr;

struct Model {
  ir::IRModule split;
  std::vector<runtime::Tensor> weights;
  std::vector<std::vector<int32_t>> prompts;
};

// The tiny serving example: 2 layers in 2 stages, hidden 16, a vocabulary of 32.
models::LlamaServingExample TinyExample() {
  models::LlamaConfig config;
  config.layers = 2;
  config.hidden = 16;
  config.heads = 2;
  config.ffn = 32;
  config.vocab = 32;
  config.stages = 2;
  return models::GenerateLlamaServing(config, {6, 5});
}

const Model& TinyModel() {
  static const Model* model = [] {
    models::LlamaServingExample ex = TinyExample();
    auto* m = new Model;
    m->split = transform::RewritePipelineStages(script::ParseModule(ex.module_text, "s.py"));
    for (auto& [name, t] : ex.weights) m->weights.push_back(t);
    for (const auto& p : ex.prompts) m->prompts.emplace_back(p.begin(), p.end());
    return m;
  }();
  return *model;
}

serve::EngineOptions Options() {
  serve::EngineOptions o;
  o.session.num_groups = 2;
  o.batches_in_flight = 2;
  o.max_batch_size = 4;
  o.kv_cache.max_total_tokens = 256;
  return o;
}

// The tokens and the end of one request, waited for by the test's thread.
class Collector {
 public:
  serve::TokenSink Sink() {
    return [this](const TokenEvent& e) {
      std::lock_guard lock(mu_);
      if (e.token >= 0) tokens_.push_back(e.token);
      if (e.finish != FinishReason::kNone) {
        finish_ = e.finish;
        error_ = std::string(e.error);
        cv_.notify_all();
      }
    };
  }
  FinishReason Wait() {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(60), [&] { return finish_ != FinishReason::kNone; });
    return finish_;
  }
  std::vector<int32_t> tokens() {
    std::lock_guard lock(mu_);
    return tokens_;
  }
  std::string error() {
    std::lock_guard lock(mu_);
    return error_;
  }
  size_t count() {
    std::lock_guard lock(mu_);
    return tokens_.size();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<int32_t> tokens_;
  FinishReason finish_ = FinishReason::kNone;
  std::string error_;
};

// An engine running on its own thread, ready when constructed.
struct Running {
  explicit Running(serve::EngineOptions options) : engine(std::move(options)) {
    std::promise<void> ready;
    std::future<void> is_ready = ready.get_future();
    thread = std::thread([this, &ready] {
      runtime::InMemoryWeights weights(TinyModel().weights);
      try {
        engine.Run(*runtime::MakeThreadLauncher(), TinyModel().split, weights,
                   [&](const serve::EngineInfo&) { ready.set_value(); });
      } catch (const std::exception& e) {
        error = e.what();
      }
    });
    is_ready.wait_for(std::chrono::seconds(60));
  }
  ~Running() {
    engine.Shutdown();
    thread.join();
  }
  Engine engine;
  std::thread thread;
  std::string error;
};

serve::EngineRequest Request(std::vector<int32_t> prompt, int64_t max_tokens) {
  serve::EngineRequest r;
  r.prompt = std::move(prompt);
  r.max_tokens = max_tokens;
  return r;
}

TEST(EngineApi, RequestsFromSeveralThreadsGetGeneratesTokens) {
  const Model& m = TinyModel();
  runtime::InMemoryWeights weights(m.weights);
  serve::GenerateOptions g;
  g.engine.session.num_groups = 2;
  g.max_new_tokens = 5;
  serve::GenerateResult reference =
      serve::Generate(*runtime::MakeThreadLauncher(), m.split, weights, m.prompts, g);
  Running running(Options());
  ASSERT_EQ(running.engine.state(), Engine::State::kReady);
  EXPECT_EQ(running.engine.info().vocab_size, 32);
  EXPECT_EQ(running.engine.info().num_pages, 256 / 16 + 1);
  std::vector<Collector> collectors(m.prompts.size());
  std::vector<std::thread> clients;
  for (size_t i = 0; i < m.prompts.size(); ++i) {
    clients.emplace_back([&, i] {
      SubmitResult r = running.engine.Submit(Request(m.prompts[i], 5), collectors[i].Sink());
      EXPECT_EQ(r.status, SubmitResult::Status::kOk) << r.message;
    });
  }
  for (std::thread& t : clients) t.join();
  for (size_t i = 0; i < m.prompts.size(); ++i) {
    EXPECT_EQ(collectors[i].Wait(), FinishReason::kLength);
    EXPECT_EQ(collectors[i].tokens(), reference.requests[i].tokens) << i;
  }
  serve::EngineMetrics metrics = running.engine.Metrics();
  EXPECT_EQ(metrics.generation_tokens_total, 30);
  EXPECT_EQ(metrics.requests_finished_total, 6);
  EXPECT_EQ(metrics.time_to_first_token.count(), 6u);
  EXPECT_EQ(metrics.inter_token_latency.count(), 24u);
}

TEST(EngineApi, RequestsThatCannotRunAreRefused) {
  Running running(Options());
  auto submit = [&](std::vector<int32_t> prompt, double temperature = 0) {
    serve::EngineRequest r = Request(std::move(prompt), 4);
    r.sampling.temperature = temperature;
    return running.engine.Submit(std::move(r), [](const TokenEvent&) {});
  };
  SubmitResult empty = submit({});
  EXPECT_EQ(empty.status, SubmitResult::Status::kInvalid);
  EXPECT_EQ(empty.message, "the prompt is empty");
  SubmitResult outside = submit({1, 32});
  EXPECT_EQ(outside.status, SubmitResult::Status::kInvalid);
  EXPECT_EQ(outside.message, "token id 32 is outside the vocabulary of 32");
  EXPECT_EQ(submit({1}, -1).message, "temperature must be at least 0");
  // 17 pages of 16 tokens: a sequence holds 272 tokens.
  SubmitResult too_long = submit(std::vector<int32_t>(272, 1));
  EXPECT_EQ(too_long.status, SubmitResult::Status::kTooLong);
  EXPECT_THAT(too_long.message, HasSubstr("the prompt has 272 tokens, but a sequence holds at "
                                          "most 272 tokens"));
  EXPECT_THAT(too_long.message, HasSubstr("so a prompt may have at most 271"));
  // The longest prompt that fits gets one token: max_tokens is capped.
  Collector last;
  ASSERT_EQ(running.engine.Submit(Request(std::vector<int32_t>(271, 1), 10), last.Sink()).status,
            SubmitResult::Status::kOk);
  EXPECT_EQ(last.Wait(), FinishReason::kLength);
  EXPECT_EQ(last.count(), 1u);
}

TEST(EngineApi, ACancelledRequestsPagesReturn) {
  Running running(Options());
  Collector c;
  // The cancel comes from the sink of the third token, so the request cannot have run to its
  // length first however fast the machine is.
  serve::TokenSink collect = c.Sink();
  std::atomic<int64_t> id{-1};
  int seen = 0;
  serve::TokenSink sink = [&](const TokenEvent& e) {
    collect(e);
    if (e.token >= 0 && ++seen == 3) {
      while (id.load() < 0) std::this_thread::yield();
      running.engine.Cancel(id.load());
    }
  };
  SubmitResult r = running.engine.Submit(Request({1, 2, 3}, 200), sink);
  ASSERT_EQ(r.status, SubmitResult::Status::kOk);
  id.store(r.id);
  EXPECT_EQ(c.Wait(), FinishReason::kCancelled);
  EXPECT_LT(c.count(), 200u);
  for (int i = 0; i < 1000 && running.engine.Metrics().requests_running > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  serve::EngineMetrics metrics = running.engine.Metrics();
  EXPECT_EQ(metrics.requests_cancelled_total, 1);
  EXPECT_EQ(metrics.kv_pages_used, 0);
  running.engine.Cancel(r.id);  // finished: ignored
  running.engine.Cancel(12345);
}

TEST(EngineApi, ShutdownEndsOpenRequestsWithItsReason) {
  auto running = std::make_unique<Running>(Options());
  Collector c;
  // The shutdown comes from the sink of the second token, so the request cannot have run to its
  // length first however fast the machine is (sinks are called without the engine's lock).
  serve::TokenSink collect = c.Sink();
  Engine& engine = running->engine;
  int seen = 0;
  serve::TokenSink sink = [&](const TokenEvent& e) {
    collect(e);
    if (e.token >= 0 && ++seen == 2) engine.Shutdown("closing time");
  };
  ASSERT_EQ(running->engine.Submit(Request({1, 2}, 260), sink).status, SubmitResult::Status::kOk);
  EXPECT_EQ(c.Wait(), FinishReason::kError);
  EXPECT_EQ(c.error(), "closing time");
  EXPECT_LT(c.count(), 260u);
  running->thread.join();
  EXPECT_EQ(running->error, "");
  EXPECT_EQ(running->engine.state(), Engine::State::kStopped);
  SubmitResult late = running->engine.Submit(Request({1}, 1), [](const TokenEvent&) {});
  EXPECT_EQ(late.status, SubmitResult::Status::kUnavailable);
  running->thread = std::thread([] {});  // for the destructor's join
}

// Conversations of several turns, each turn's prompt its history and new tokens, run at once on
// a cache too small to keep them all: with the prefix cache the turns fork their history's
// pages (and entries are evicted), and every token is the same as without it.
std::vector<std::vector<int32_t>> Conversations(bool prefix_cache, serve::EngineMetrics* metrics) {
  serve::EngineOptions o = Options();
  o.prefix_cache = prefix_cache;
  Running running(o);
  constexpr int kConversations = 3;
  constexpr int kTurns = 4;
  std::vector<std::vector<int32_t>> history(kConversations);
  for (int turn = 0; turn < kTurns; ++turn) {
    std::vector<Collector> collectors(kConversations);
    for (int c = 0; c < kConversations; ++c) {
      for (int i = 0; i < 13; ++i) history[c].push_back((c * 7 + turn * 5 + i * 3) % 31 + 1);
      EXPECT_EQ(running.engine.Submit(Request(history[c], 6), collectors[c].Sink()).status,
                SubmitResult::Status::kOk);
    }
    for (int c = 0; c < kConversations; ++c) {
      EXPECT_EQ(collectors[c].Wait(), FinishReason::kLength);
      std::vector<int32_t> tokens = collectors[c].tokens();
      history[c].insert(history[c].end(), tokens.begin(), tokens.end());
    }
  }
  *metrics = running.engine.Metrics();
  return history;
}

TEST(EngineApi, ThePrefixCacheForksEarlierTurnsAndKeepsEveryToken) {
  serve::EngineMetrics on, off;
  const std::vector<std::vector<int32_t>> cached = Conversations(true, &on);
  EXPECT_EQ(cached, Conversations(false, &off));
  EXPECT_EQ(off.prefix_cache_hits_total, 0);
  EXPECT_EQ(on.prefix_cache_queries_total, 12);
  EXPECT_GE(on.prefix_cache_hits_total, 6);  // every turn after the first, but for evictions
  EXPECT_GT(on.prefix_cache_hit_tokens_total, 0);
  EXPECT_GT(on.prefix_cache_evictions_total, 0);  // 17 pages for 3 conversations of 76 tokens
  EXPECT_GT(on.kv_pages_cached, 0);
  EXPECT_EQ(on.preemptions_total, 0);
}

// A module MLC compiled is memory-planned for its config's max_batch_size and
// prefill_chunk_size (tir_var_upper_bound): steps beyond them are refused before any worker runs.
TEST(EngineApi, StepsLargerThanTheModulesPlanAreRefused) {
  std::string text = TinyExample().module_text;
  const std::string stages = "\"pipeline_parallel_stages\": 2}";
  for (size_t at = text.find(stages); at != std::string::npos; at = text.find(stages, at + 1)) {
    text.replace(at, stages.size(),
                 "\"pipeline_parallel_stages\": 2, \"tir_var_upper_bound\": {\"batch_size\": 2, "
                 "\"seq_len\": 64}}");
  }
  const ir::IRModule split = transform::RewritePipelineStages(script::ParseModule(text, "s.py"));
  runtime::InMemoryWeights weights(TinyModel().weights);
  auto run = [&](int64_t max_batch_size, int64_t chunk) -> std::string {
    serve::EngineOptions o = Options();
    o.max_batch_size = max_batch_size;
    o.prefill_chunk_size = chunk;
    o.stop_when_idle = true;
    Engine engine(o);
    try {
      engine.Run(*runtime::MakeThreadLauncher(), split, weights);
    } catch (const runtime::RuntimeError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(run(4, 64), "");  // two batches of 2, 64 tokens a step
  EXPECT_EQ(run(6, 64),
            "the module's batch_decode is planned for at most 2 requests in a step (its "
            "tir_var_upper_bound batch_size, MLC's max_batch_size), but a batch runs up to 3 (max "
            "batch size 6 over 2 batches in flight): use a max batch size of at most 4");
  EXPECT_EQ(run(4, 65),
            "the module's batch_prefill is planned for at most 64 tokens in a step (its "
            "tir_var_upper_bound seq_len, MLC's prefill_chunk_size), but the prefill chunk is 65: "
            "use at most 64");
}

TEST(EngineApi, RequestsBeforeRunAreCheckedWhenItStarts) {
  serve::EngineOptions o = Options();
  o.stop_when_idle = true;
  Engine engine(o);
  Collector good, bad;
  ASSERT_EQ(engine.Submit(Request({1, 2}, 3), good.Sink()).status, SubmitResult::Status::kOk);
  ASSERT_EQ(engine.Submit(Request({1, 99}, 3), bad.Sink()).status, SubmitResult::Status::kOk);
  runtime::InMemoryWeights weights(TinyModel().weights);
  serve::EngineRunResult result =
      engine.Run(*runtime::MakeThreadLauncher(), TinyModel().split, weights);
  EXPECT_EQ(good.Wait(), FinishReason::kLength);
  EXPECT_EQ(bad.Wait(), FinishReason::kError);
  EXPECT_EQ(bad.error(), "token id 99 is outside the vocabulary of 32");
  EXPECT_TRUE(result.holds_outputs);
  EXPECT_EQ(engine.state(), Engine::State::kStopped);
}

}  // namespace
}  // namespace pipesplit::serving_test
