// The generation API (serve/engine/generate.h) on the serving example: its errors, each named
// (options, prompts, a module that does not fit the session), and a run through the API that
// keeps the logits of every step.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "pipesplit/models/llama_serving.h"
#include "pipesplit/runtime/launch/launch.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/serve/engine/generate.h"
#include "pipesplit/transform/pipeline_parallel_rewrite.h"

namespace pipesplit::serving_test {
namespace {

using ::testing::HasSubstr;

struct Example {
  ir::IRModule mod;
  std::vector<runtime::Tensor> weights;
  std::vector<std::vector<int32_t>> prompts;
};

Example Make(int stages, const std::string& rename_from = "", const std::string& rename_to = "") {
  models::LlamaConfig config;
  config.layers = 2;
  config.hidden = 16;
  config.heads = 2;
  config.ffn = 32;
  config.vocab = 32;
  config.stages = stages;
  models::LlamaServingExample ex = models::GenerateLlamaServing(config, {3, 4});
  std::string text = ex.module_text;
  if (!rename_from.empty()) {
    size_t at = text.find(rename_from);
    EXPECT_NE(at, std::string::npos) << rename_from;
    if (at != std::string::npos) text.replace(at, rename_from.size(), rename_to);
  }
  Example e{script::ParseModule(text, "serving.py"), {}, {}};
  for (auto& [name, t] : ex.weights) e.weights.push_back(t);
  for (const auto& p : ex.prompts) e.prompts.emplace_back(p.begin(), p.end());
  return e;
}

serve::GenerateOptions Options(int groups) {
  serve::GenerateOptions o;
  o.engine.session.num_groups = groups;
  o.max_new_tokens = 3;
  return o;
}

std::string ErrorOf(const Example& e, const std::vector<std::vector<int32_t>>& prompts,
                    const serve::GenerateOptions& options) {
  runtime::InMemoryWeights weights(e.weights);
  try {
    serve::Generate(*runtime::MakeThreadLauncher(), e.mod, weights, prompts, options);
  } catch (const std::exception& err) {
    return err.what();
  }
  return "no error";
}

TEST(GenerateApi, OptionErrors) {
  Example e = Make(1);
  auto with = [&](const std::function<void(serve::GenerateOptions&)>& change) {
    serve::GenerateOptions o = Options(1);
    change(o);
    return ErrorOf(e, e.prompts, o);
  };
  EXPECT_THAT(with([](auto& o) { o.engine.session.group_size = 0; }),
              HasSubstr("a group needs at least 1 worker"));
  EXPECT_THAT(with([](auto& o) { o.engine.batches_in_flight = 0; }),
              HasSubstr("batches in flight must be at least 1"));
  EXPECT_THAT(with([](auto& o) { o.max_new_tokens = 0; }),
              HasSubstr("max new tokens must be at least 1"));
  EXPECT_THAT(with([](auto& o) { o.engine.max_batch_size = -1; }),
              HasSubstr("max batch size must not be negative"));
  EXPECT_THAT(with([](auto& o) { o.sampling.temperature = -1; }),
              HasSubstr("temperature must be at least 0"));
  EXPECT_THAT(with([](auto& o) { o.sampling.top_p = 0; }), HasSubstr("top-p must be in (0, 1]"));
}

TEST(GenerateApi, PromptErrors) {
  Example e = Make(1);
  EXPECT_THAT(ErrorOf(e, {}, Options(1)), HasSubstr("there are no prompts"));
  EXPECT_THAT(ErrorOf(e, {{1}, {}}, Options(1)), HasSubstr("prompt 1 is empty"));
  EXPECT_THAT(ErrorOf(e, {{1, -2}}, Options(1)), HasSubstr("prompt 0 has a negative token id -2"));
}

TEST(GenerateApi, ModuleErrors) {
  // A split module on fewer groups than its stages.
  Example two = Make(2);
  two.mod = transform::RewritePipelineStages(two.mod);
  EXPECT_THAT(ErrorOf(two, two.prompts, Options(1)),
              HasSubstr("'batch_prefill' has 2 pipeline stages but the session has 1 groups"));
  // No cache creator.
  Example no_cache = Make(1, "def create_paged_kv_cache(", "def make_cache(");
  EXPECT_THAT(ErrorOf(no_cache, no_cache.prompts, Options(1)),
              HasSubstr("the module has neither 'create_tir_paged_kv_cache' nor "
                        "'create_paged_kv_cache'"));
  // No embed.
  Example no_embed = Make(1, "def embed(", "def embed_tokens(");
  EXPECT_THAT(ErrorOf(no_embed, no_embed.prompts, Options(1)),
              HasSubstr("the module has no Relax function 'embed'"));
  // Errors are reported as the worker's.
  EXPECT_THAT(ErrorOf(no_embed, no_embed.prompts, Options(1)),
              HasSubstr("worker 0 (group 0) failed setting up"));
}

TEST(GenerateApi, KeepsTheLogitsOfEveryStepAndComparesThem) {
  Example one = Make(1);
  Example two = Make(2);
  two.mod = transform::RewritePipelineStages(two.mod);
  runtime::InMemoryWeights weights(one.weights);
  serve::GenerateOptions o = Options(1);
  o.engine.keep_logits = true;
  o.engine.batches_in_flight = 2;
  serve::GenerateResult a =
      serve::Generate(*runtime::MakeThreadLauncher(), one.mod, weights, one.prompts, o);
  o.engine.session.num_groups = 2;
  serve::GenerateResult b =
      serve::Generate(*runtime::MakeThreadLauncher(), two.mod, weights, two.prompts, o);
  ASSERT_EQ(a.requests.size(), 3u);
  for (const serve::RequestOutput& r : a.requests) {
    ASSERT_EQ(r.tokens.size(), 3u);
    ASSERT_EQ(r.logits.size(), 3u);
    EXPECT_EQ(r.logits[0].size(), 32u);
  }
  EXPECT_EQ(serve::CompareGenerations(a, b), "");
  EXPECT_EQ(b.trace.num_groups, 2);
  EXPECT_EQ(b.workers.size(), 2u);
  // A flipped bit and a different token are both found.
  serve::GenerateResult c = b;
  c.requests[1].logits[2][5] = std::nextafter(c.requests[1].logits[2][5], 1e9f);
  EXPECT_THAT(serve::CompareGenerations(a, c), HasSubstr("request 1, token 2: logit 5 is"));
  c = b;
  c.requests[2].tokens[1] += 1;
  EXPECT_THAT(serve::CompareGenerations(a, c), HasSubstr("request 2, token 1:"));
}

}  // namespace
}  // namespace pipesplit::serving_test
