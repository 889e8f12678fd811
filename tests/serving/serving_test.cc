// The serving example (`pipesplit example llama --serving`): MLC's functions, weights and
// metadata; it round-trips through the printer; the pipeline-parallel rewrite splits its model
// functions (and leaves embed and create_paged_kv_cache whole); the interpreter runs it with the
// paged KV cache, batch_prefill agreeing with prefill of each request alone and decode with
// batch_decode; and the command's flags and errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "pipesplit/ir/protocol.h"
#include "pipesplit/models/llama_serving.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/transform/pass.h"
#include "tests/cli/cli_test_util.h"
#include "tests/serving/serving_driver.h"

namespace pipesplit::serving_test {
namespace {

using ::testing::HasSubstr;
using testing_cli::Pipesplit;
using testing_cli::Result;

const char* const kModelFunctions[] = {"prefill", "decode", "batch_prefill", "batch_decode"};

models::LlamaServingExample Generate(int layers = 4, int stages = 2) {
  models::LlamaConfig config;
  config.layers = layers;
  config.stages = stages;
  return models::GenerateLlamaServing(config, {});
}

std::string Canonical(const std::string& text) {
  return script::PrintModule(script::ParseModule(text, "serving.py"));
}

TEST(ServingExample, HasMlcFunctionsWeightsAndMetadata) {
  models::LlamaServingExample ex = Generate();
  ir::IRModule mod = script::ParseModule(ex.module_text, "serving.py");
  for (const char* f :
       {"embed", "prefill", "decode", "batch_prefill", "batch_decode", "create_paged_kv_cache"}) {
    EXPECT_NE(mod.LookupFunction(f), nullptr) << f;
  }
  ASSERT_EQ(ex.weights.size(), 1u + 4 * 6 + 2);
  EXPECT_EQ(ex.weights[0].first, "model.embed_tokens.weight");
  const char* per_layer[] = {"self_attn.qkv_proj.weight", "self_attn.o_proj.weight",
                             "mlp.gate_up_proj.weight",   "mlp.down_proj.weight",
                             "input_layernorm.weight",    "post_attention_layernorm.weight"};
  for (int l = 0; l < 4; ++l) {
    for (int i = 0; i < 6; ++i) {
      EXPECT_EQ(ex.weights[1 + 6 * l + i].first,
                "model.layers." + std::to_string(l) + "." + per_layer[i]);
    }
  }
  EXPECT_EQ(ex.weights[25].first, "model.norm.weight");
  EXPECT_EQ(ex.weights[26].first, "lm_head.weight");
  // qkv_proj ((h_q + 2 h_kv) * d, H) with 4 query heads, 2 kv heads, d 16.
  EXPECT_EQ(ex.weights[1].second.shape(), (runtime::Shape{128, 64}));
  EXPECT_EQ(ex.weights[3].second.shape(), (runtime::Shape{256, 64}));
  EXPECT_EQ(ex.weights[26].second.shape(), (runtime::Shape{256, 64}));
  ASSERT_EQ(ex.weight_metadata.size(), 2u);
  nlohmann::json config = nlohmann::json::parse(ex.weight_metadata[1].second);
  EXPECT_EQ(ex.weight_metadata[1].first, "serving_config");
  EXPECT_EQ(config["kv_heads"], 2);
  EXPECT_EQ(config["head_dim"], 16);
  EXPECT_EQ(config["layer_partition"], (std::vector<int>{0, 2, 4}));
  EXPECT_EQ(config["rope_theta"], 10000.0);
  EXPECT_EQ(nlohmann::json::parse(ex.weight_metadata[0].second).size(), ex.weights.size());
  nlohmann::json prompts = nlohmann::json::parse(ex.prompts_json);
  ASSERT_EQ(prompts.size(), 4u);
  for (const auto& p : prompts) EXPECT_EQ(p.size(), 8u);
  EXPECT_THAT(ex.module_text, HasSubstr("R.prim_value(T.float64(0.25))"));  // 16 ** -0.5
}

TEST(ServingExample, MarkersFollowMlcsLayerPartition) {
  EXPECT_EQ(models::ServingLayerPartition(4, 2), (std::vector<int64_t>{0, 2, 4}));
  EXPECT_EQ(models::ServingLayerPartition(5, 3), (std::vector<int64_t>{0, 2, 4, 5}));
  EXPECT_EQ(models::ServingLayerPartition(4, 1), (std::vector<int64_t>{0, 4}));
  models::LlamaServingExample ex = Generate(5, 3);
  size_t markers = 0;
  const std::string call = std::string("\"") + ir::protocol::kStageBoundary + "\"";
  for (size_t at = 0; (at = ex.module_text.find(call, at)) != std::string::npos; ++at) ++markers;
  // Two markers (before layers 2 and 4) in each of the 4 model functions.
  EXPECT_EQ(markers, 4u * 2);
  EXPECT_THAT(ex.module_text, HasSubstr("R.shape([0, 2, 4, 5])"));
}

TEST(ServingExample, RoundTripsThroughThePrinter) {
  for (int stages : {1, 2}) {
    std::string once = Canonical(Generate(4, stages).module_text);
    EXPECT_EQ(Canonical(once), once);
  }
}

// pipeline-parallel-rewrite splits each model function into `stages` functions.
void ExpectSplit(const ir::IRModule& mod, int stages) {
  transform::PassContext ctx;
  ir::IRModule split = transform::ParsePipeline("pipeline-parallel-rewrite,verify")->Run(mod, ctx);
  for (const char* f : kModelFunctions) {
    const std::string name = f;
    EXPECT_NE(split.LookupFunction(name), nullptr) << name;
    for (int s = 0; stages > 1 && s < stages; ++s) {
      EXPECT_NE(split.LookupFunction(name + "_stage" + std::to_string(s)), nullptr)
          << name << " stage " << s << " of " << stages;
    }
    EXPECT_EQ(split.LookupFunction(name + "_stage" + std::to_string(stages > 1 ? stages : 0)),
              nullptr);
  }
  for (const char* f : {"embed", "create_paged_kv_cache"}) {
    EXPECT_EQ(split.LookupFunction(std::string(f) + "_stage0"), nullptr) << f;
  }
  // The printed split module parses again.
  std::string text = script::PrintModule(split);
  EXPECT_EQ(Canonical(text), text);
}

TEST(ServingExample, PipelineParallelSplitsEveryModelFunction) {
  const std::pair<int, int> cases[] = {{4, 1}, {4, 2}, {4, 4}, {3, 3}, {5, 3}, {6, 3}};
  for (auto [layers, stages] : cases) {
    SCOPED_TRACE(std::to_string(layers) + " layers, " + std::to_string(stages) + " stages");
    ExpectSplit(script::ParseModule(Generate(layers, stages).module_text, "serving.py"), stages);
  }
}

TEST(ServingExample, LoweredModuleSplitsToo) {
  ir::IRModule mod = script::ParseModule(Generate(4, 2).module_text, "serving.py");
  transform::PassContext ctx;
  ir::IRModule lowered = transform::ParsePipeline("legalize-ops")->Run(mod, ctx);
  ExpectSplit(lowered, 2);
}

std::string ErrorOf(const models::LlamaConfig& config, models::ServingRequests requests = {}) {
  try {
    models::GenerateLlamaServing(config, requests);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(ServingExample, RejectsImpossibleConfigurations) {
  models::LlamaConfig c;
  c.stages = 3;  // 4 layers: MLC's partition [0, 2, 4, 4]
  EXPECT_EQ(ErrorOf(c),
            "--stages (3) with --layers (4) leaves stage 2 without layers (mlc's layer partition "
            "[0, 2, 4, 4])");
  c = {};
  c.kv_heads = 3;
  EXPECT_EQ(ErrorOf(c), "--heads (4) must be a multiple of --kv-heads (3)");
  c = {};
  c.heads = 3;
  c.hidden = 96;
  EXPECT_EQ(ErrorOf(c), "no error");  // odd heads: kv heads default to heads
  c.kv_heads = -1;
  EXPECT_EQ(ErrorOf(c), "--kv-heads must be at least 1");
  EXPECT_EQ(ErrorOf({}, {0, 8}), "--requests must be at least 1");
  EXPECT_EQ(ErrorOf({}, {4, 0}), "--prompt-len must be at least 1");
}

// The interpreter runs the unsplit module (one stage: outside a worker group of an S-stage
// session, MLC's cache creation accepts only the layer partition of one group): batch_prefill of
// two requests in one cache against prefill of each in its own cache, then greedy decode steps
// against decode.
TEST(ServingRun, BatchedFunctionsAgreeWithSingleRequestOnes) {
  models::LlamaServingExample ex = Generate(4, 1);
  ServingModel model(script::ParseModule(ex.module_text, "serving.py"), ex.weights);
  const std::vector<Tokens> prompts = {ex.prompts[0],
                                       {ex.prompts[1].begin(), ex.prompts[1].begin() + 5}};
  const runtime::Value batched = model.CreateCache();
  std::vector<runtime::Value> alone;
  for (int k = 0; k < 2; ++k) {
    model.AddSequence(batched, k);
    alone.push_back(model.CreateCache());
    model.AddSequence(alone[k], k);
  }
  model.BeginForward(batched, {0, 1}, {8, 5});
  std::vector<std::vector<double>> rows = LogitRows(model.BatchPrefill(batched, prompts));
  model.EndForward(batched);
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_EQ(rows[0].size(), 256u);
  for (int k = 0; k < 2; ++k) {
    model.BeginForward(alone[k], {k}, {static_cast<int64_t>(prompts[k].size())});
    std::vector<std::vector<double>> single = LogitRows(model.Prefill(alone[k], prompts[k]));
    model.EndForward(alone[k]);
    ASSERT_EQ(single.size(), 1u);
    for (size_t i = 0; i < single[0].size(); ++i) ASSERT_NEAR(single[0][i], rows[k][i], 1e-5);
  }
  for (int step = 0; step < 3; ++step) {
    const Tokens next = {ArgMax(rows[0]), ArgMax(rows[1])};
    model.BeginForward(batched, {0, 1}, {1, 1});
    rows = LogitRows(model.BatchDecode(batched, next));
    model.EndForward(batched);
    ASSERT_EQ(rows.size(), 2u);
    for (int k = 0; k < 2; ++k) {
      model.BeginForward(alone[k], {k}, {1});
      std::vector<std::vector<double>> single = LogitRows(model.Decode(alone[k], next[k]));
      model.EndForward(alone[k]);
      for (size_t i = 0; i < single[0].size(); ++i) ASSERT_NEAR(single[0][i], rows[k][i], 1e-5);
    }
  }
}

TEST(ServingRun, GreedyGenerationIsDeterministic) {
  models::LlamaServingExample ex = Generate(4, 1);
  ServingModel model(script::ParseModule(ex.module_text, "serving.py"), ex.weights);
  GreedyResult a = Greedy(model, ex.prompts, 4);
  GreedyResult b = Greedy(model, ex.prompts, 4);
  ASSERT_EQ(a.tokens.size(), 4u);
  for (const Tokens& t : a.tokens) EXPECT_EQ(t.size(), 4u);
  EXPECT_EQ(a.tokens, b.tokens);
}

// A module with S > 1 stages run on one group (unsplit; TVM would refuse outside a session of
// S groups): its cache holds every layer, and it generates what the one-stage module does.
TEST(ServingRun, AStagedModuleRunUnsplitHoldsEveryLayer) {
  models::LlamaServingExample staged = Generate(4, 2);
  models::LlamaServingExample single = Generate(4, 1);
  ServingModel a(script::ParseModule(staged.module_text, "staged.py"), staged.weights);
  ServingModel b(script::ParseModule(single.module_text, "single.py"), single.weights);
  EXPECT_EQ(Greedy(a, staged.prompts, 3).tokens, Greedy(b, single.prompts, 3).tokens);
}

// The command line.
TEST(ServingCli, WritesModelWeightsAndPrompts) {
  for (const char* command : {"llama", "llama-lowered"}) {
    auto dir = testing_cli::ScratchDir(std::string("serving_cli_") + command);
    Result r = Pipesplit(std::string("example ") + command +
                         " --serving --layers 2 --requests 3 --prompt-len 5 -o " + dir.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_THAT(r.output, HasSubstr("(serving, 2 layers, 2 stages, 2 kv heads)"));
    nlohmann::json prompts = nlohmann::json::parse(testing_cli::ReadText(dir / "prompts.json"));
    ASSERT_EQ(prompts.size(), 3u);
    EXPECT_EQ(prompts[2].size(), 5u);
    ir::IRModule mod = script::ParseModule(testing_cli::ReadText(dir / "model.py"), "model.py");
    EXPECT_NE(mod.LookupFunction("batch_decode"), nullptr);
    runtime::SafetensorsFile file =
        runtime::SafetensorsFile::Open((dir / "params.safetensors").string());
    ASSERT_EQ(file.metadata().size(), 2u);
    EXPECT_EQ(file.metadata()[1].first, "serving_config");
  }
  auto dir = testing_cli::ScratchDir("serving_cli_split");
  ASSERT_EQ(Pipesplit("example llama --serving --layers 3 --stages 3 -o " + dir.string()).exit_code,
            0);
  Result split =
      Pipesplit("opt " + (dir / "model.py").string() + " -p pipeline-parallel-rewrite,verify -o " +
                (dir / "split.py").string());
  ASSERT_EQ(split.exit_code, 0) << split.output;
  EXPECT_THAT(testing_cli::ReadText(dir / "split.py"), HasSubstr("def batch_decode_stage2("));
}

TEST(ServingCli, BadFlagsAreErrors) {
  auto dir = testing_cli::ScratchDir("serving_cli_bad");
  const std::pair<const char*, const char*> cases[] = {
      {"llama --serving --kv-heads 3", "error: --heads (4) must be a multiple of --kv-heads (3)"},
      {"llama --serving --requests 0", "error: --requests must be at least 1"},
      {"llama --serving --prompt-len 0", "error: --prompt-len must be at least 1"},
      {"llama --serving --stages 3", "error: --stages (3) with --layers (4) leaves stage 2"},
      {"llama --serving --stages 5", "error: --stages (5) must not exceed --layers (4)"},
      {"llama --serving --hidden 30", "error: --hidden must be a multiple of 2 * --heads"},
      {"llama --serving --seq 4", "error: --seq does not apply to --serving"},
      {"llama-lowered --serving --microbatches 2",
       "error: --microbatches does not apply to --serving"},
      {"llama --kv-heads 2", "error: --kv-heads needs --serving"},
      {"llama-lowered --prompt-len 4", "error: --prompt-len needs --serving"},
  };
  for (const auto& [flags, message] : cases) {
    Result r = Pipesplit(std::string("example ") + flags + " -o " + dir.string());
    EXPECT_EQ(r.exit_code, 1) << flags;
    EXPECT_THAT(r.output, HasSubstr(message)) << flags;
  }
}

}  // namespace
}  // namespace pipesplit::serving_test
