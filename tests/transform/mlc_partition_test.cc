// The MLC partition of a split module (mlc_partition.h): layer_partition and per-parameter
// stages for MLC's serving form (30 layers on 4 stages, where MLC's own weight tags are wrong),
// for the 2023 MLC dump (KV caches as a tuple parameter; split in 2 and 3 stages by hand at
// layer-safe points, and by auto-pipeline-stages, which cuts its one layer and is rejected;
// skipped without the shared corpus), and the errors: no layers, a layer straddling stages,
// layers out of stage order, a missing layer.
#include "pipesplit/transform/mlc_partition.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "pipesplit/ir/functor.h"
#include "pipesplit/ir/protocol.h"
#include "pipesplit/models/llama_serving.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/support/diagnostic.h"
#include "pipesplit/support/text.h"
#include "pipesplit/transform/pass.h"
#include "pipesplit/transform/pipeline_parallel_rewrite.h"
#include "pipesplit/transform/stage_report.h"

namespace pipesplit::transform {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct Split {
  ir::IRModule module;
  std::vector<StagePlan> plans;
};

Split RunPipeline(const std::string& text, const std::string& pipeline) {
  PassContext ctx;
  Split out;
  out.module = ParsePipeline(pipeline)->Run(script::ParseModule(text, "mlc.py"), ctx);
  const auto* plans = ctx.Get<std::vector<StagePlan>>();
  if (plans != nullptr) out.plans = *plans;
  return out;
}

// The stages whose functions read each packed_params field, straight from the split: the
// stage functions of every split function, and every stage for an unsplit function's reads.
std::map<int64_t, std::set<int>> ReadersOf(const Split& split) {
  std::map<int64_t, std::set<int>> readers;
  std::set<std::string> split_names;
  for (const StagePlan& plan : split.plans) {
    split_names.insert(plan.gvar->name_hint());
    for (int g = 0; g < plan.num_stages; ++g) {
      std::string name = plan.gvar->name_hint() + "_stage" + std::to_string(g);
      split_names.insert(name);
      for (const ir::WeightRead& r : ir::WeightReadsOf(*split.module.LookupFunction(name))) {
        readers[r.index].insert(g);
      }
    }
  }
  for (const auto& member : split.module.members()) {
    auto func = ir::Cast<ir::FunctionNode>(member.func);
    if (!func || split_names.count(member.gvar->name_hint())) continue;
    for (const ir::WeightRead& r : ir::WeightReadsOf(*func)) {
      for (int g = 0; g < split.plans[0].num_stages; ++g) readers[r.index].insert(g);
    }
  }
  return readers;
}

// Every parameter's stages are the stages that read it.
void ExpectParamsMatchReads(const Split& split, const MlcPartition& mlc) {
  std::map<int64_t, std::set<int>> readers = ReadersOf(split);
  for (const MlcParamStages& p : mlc.params) {
    std::set<int> expected = readers.count(p.index) ? readers[p.index] : std::set<int>();
    EXPECT_EQ(std::set<int>(p.stages.begin(), p.stages.end()), expected)
        << "packed_params[" << p.index << "] " << p.name;
  }
}

// The layer ids the fused-QKV attention calls of `func` name.
std::set<int64_t> AttentionLayers(const ir::FunctionNode& func) {
  struct Finder : ir::ExprVisitor {
    std::set<int64_t> layers;
    void VisitExpr_(const ir::CallNode& call) override {
      if (ir::IsExternCall(call, ir::protocol::kCallDpsPacked,
                           "vm.builtin.attention_kv_cache_attention_with_fused_qkv")) {
        const auto* args = ir::As<ir::TupleNode>(call.args()[1]);
        const auto* id = ir::As<ir::PrimValueNode>(args->fields()[1]);
        layers.insert(*ir::AsConstInt(id->value()));
      }
      ExprVisitor::VisitExpr_(call);
    }
  } finder;
  finder.VisitExpr(func.body());
  return finder.layers;
}

// The KV-cache tuple fields (`kv_cache[j]`) the 2023 form's stage function reads.
std::set<int64_t> KvCacheFields(const ir::FunctionNode& func) {
  struct Finder : ir::ExprVisitor {
    const ir::VarNode* kv = nullptr;
    std::set<int64_t> fields;
    void VisitExpr_(const ir::TupleGetItemNode& node) override {
      if (node.tuple().get() == kv) fields.insert(node.index());
      ExprVisitor::VisitExpr_(node);
    }
  } finder;
  for (const ir::Var& p : func.params()) {
    if (p->name_hint() == "kv_cache") finder.kv = p.get();
  }
  finder.VisitExpr(func.body());
  return finder.fields;
}

// Layer l of stage g lies in [layer_partition[g], layer_partition[g + 1]).
void ExpectInStage(const MlcPartition& mlc, int64_t layer, int g, const std::string& where) {
  EXPECT_LE(mlc.layer_partition[g], layer) << where;
  EXPECT_LT(layer, mlc.layer_partition[g + 1]) << where;
}

std::vector<std::string> Names(const models::LlamaServingExample& example) {
  std::vector<std::string> names;
  for (const runtime::NamedTensor& weight : example.weights) names.push_back(weight.first);
  return names;
}

TEST(MlcPartitionTest, ServingThirtyLayersOnFourStages) {
  models::LlamaConfig config;
  config.layers = 30;
  config.stages = 4;
  config.hidden = 32;
  config.ffn = 64;
  config.vocab = 64;
  models::LlamaServingExample example = models::GenerateLlamaServing(config, {});
  Split split = RunPipeline(example.module_text, "pipeline-parallel-rewrite");
  ASSERT_EQ(split.plans.size(), 4u);  // prefill, decode, batch_prefill, batch_decode
  std::vector<std::string> names = Names(example);
  MlcPartition mlc = ComputeMlcPartition(split.module, split.plans, names);
  EXPECT_EQ(mlc.pipeline_parallel_stages, 4);
  EXPECT_THAT(mlc.layer_partition, ElementsAre(0, 8, 16, 24, 30));
  EXPECT_EQ(mlc.layer_partition, example.layer_partition);
  ASSERT_EQ(mlc.params.size(), names.size());
  ExpectParamsMatchReads(split, mlc);
  // The layers each stage's attention calls name lie in its range.
  for (const StagePlan& plan : split.plans) {
    for (int g = 0; g < 4; ++g) {
      std::string name = plan.gvar->name_hint() + "_stage" + std::to_string(g);
      std::set<int64_t> layers = AttentionLayers(*split.module.LookupFunction(name));
      EXPECT_FALSE(layers.empty()) << name;
      for (int64_t l : layers) ExpectInStage(mlc, l, g, name);
    }
  }
  std::map<std::string, std::vector<int>> by_name;
  for (const MlcParamStages& p : mlc.params) {
    EXPECT_EQ(p.name, names[p.index]);
    by_name[p.name] = p.stages;
  }
  // MLC tags layer l with l // (30 // 4) = l // 7: layers 8..13 -> 1 (right), 7 -> 1 (wrong),
  // 28, 29 -> stage 4 (none). The split's own reads place them by the boundaries.
  EXPECT_THAT(by_name["model.layers.7.mlp.down_proj.weight"], ElementsAre(0));
  EXPECT_THAT(by_name["model.layers.8.self_attn.qkv_proj.weight"], ElementsAre(1));
  EXPECT_THAT(by_name["model.layers.23.input_layernorm.weight"], ElementsAre(2));
  EXPECT_THAT(by_name["model.layers.29.mlp.gate_up_proj.weight"], ElementsAre(3));
  EXPECT_THAT(by_name["model.norm.weight"], ElementsAre(3));
  EXPECT_THAT(by_name["lm_head.weight"], ElementsAre(3));
  // embed is not split: it runs on every worker.
  EXPECT_THAT(by_name["model.embed_tokens.weight"], ElementsAre(0, 1, 2, 3));

  auto json = MlcPartitionJson(mlc);
  EXPECT_EQ(json["layer_partition"], nlohmann::ordered_json::parse("[0, 8, 16, 24, 30]"));
  EXPECT_EQ(json["param_stages"]["model.layers.29.mlp.gate_up_proj.weight"],
            nlohmann::ordered_json::parse("[3]"));
  std::string text = MlcPartitionText(mlc);
  EXPECT_THAT(text, HasSubstr("layer_partition [0, 8, 16, 24, 30]"));
  EXPECT_THAT(text, HasSubstr("stage 3: layers 24-29"));
  EXPECT_THAT(text, HasSubstr("model.embed_tokens.weight in stages 0, 1, 2, 3"));

  // Without names: the same partition (from the attention calls), parameters by index.
  MlcPartition unnamed = ComputeMlcPartition(split.module, split.plans);
  EXPECT_EQ(unnamed.layer_partition, mlc.layer_partition);
  ASSERT_EQ(unnamed.params.size(), mlc.params.size());
  for (size_t i = 0; i < mlc.params.size(); ++i) {
    EXPECT_TRUE(unnamed.params[i].name.empty());
    EXPECT_EQ(unnamed.params[i].stages, mlc.params[i].stages);
  }
  EXPECT_EQ(MlcPartitionJson(unnamed)["param_stages"]["0"],
            nlohmann::ordered_json::parse("[0, 1, 2, 3]"));
}

TEST(MlcPartitionTest, StageReportCarriesTheMlcObject) {
  models::LlamaConfig config;
  config.layers = 5;
  config.stages = 2;
  models::LlamaServingExample example = models::GenerateLlamaServing(config, {});
  Split split = RunPipeline(example.module_text, "pipeline-parallel-rewrite");
  MlcPartitionOrError mlc = TryComputeMlcPartition(split.module, split.plans, Names(example));
  ASSERT_TRUE(mlc.partition) << mlc.error;
  auto report = nlohmann::json::parse(StageReportJson(split.plans, nullptr, &mlc));
  EXPECT_EQ(report["mlc"]["layer_partition"], nlohmann::json::parse("[0, 3, 5]"));
  EXPECT_EQ(report["mlc"]["pipeline_parallel_stages"], 2);
  // MLC would tag layer 2 for stage 1 (2 // (5 // 2)) and layer 4 for stage 2.
  EXPECT_EQ(report["mlc"]["param_stages"]["model.layers.2.mlp.down_proj.weight"],
            nlohmann::json::parse("[0]"));
  EXPECT_EQ(report["mlc"]["param_stages"]["model.layers.4.mlp.down_proj.weight"],
            nlohmann::json::parse("[1]"));
  EXPECT_THAT(StageReportText(split.plans, nullptr, &mlc),
              HasSubstr("mlc partition (2 stages)\n  layer_partition [0, 3, 5]\n"));
}

// The 2023 dump's `decoding`, made splittable as decode6b_test.cc does (packed_params,
// num_input, pure KV-cache calls in the dataflow block, the kv_cache parameter returned).
fs::path Dump2023() {
  return fs::path(PIPESPLIT_SOURCE_DIR) /
         "../shared/corpus/mlc-llm-2023/6b.split_transform_deploy.deploy.py";
}

// `stages` > 0 marks it by hand: a boundary after the attention block, and for 3 stages one
// after the MLP.
std::string Decoding2023(int stages) {
  std::string text;
  std::string error;
  EXPECT_TRUE(ReadFile(Dump2023().string(), &text, &error)) << error;
  auto replace_all = [&](size_t begin, size_t end, const std::string& from, const std::string& to) {
    for (size_t at = text.find(from, begin); at != std::string::npos && at < end;
         at = text.find(from, at + to.size())) {
      text.replace(at, from.size(), to);
      end = end + to.size() - from.size();
    }
    return end;
  };
  replace_all(0, text.size(), "R.call_packed(\"vm.builtin.attention_kv_cache_",
              "R.call_pure_packed(\"vm.builtin.attention_kv_cache_");
  size_t begin = text.find("    def decoding(");
  size_t end = text.find("    @R.function", begin);
  end = replace_all(begin, end, ", params: R.Tuple(", ", packed_params: R.Tuple(");
  end = replace_all(begin, end, " = params[", " = packed_params[");
  std::string attrs = "\"num_input\": 3, ";
  if (stages > 0) attrs += "\"pipeline_parallel_stages\": " + std::to_string(stages) + ", ";
  end = replace_all(begin, end, "R.func_attr({\"tir_var_upper_bound\"",
                    "R.func_attr({" + attrs + "\"tir_var_upper_bound\"");
  end = replace_all(begin, end, " = lv5, (lv79, lv81)\n", " = lv5, kv_cache\n");
  auto boundary = [&](const std::string& after, const std::string& value, const std::string& use,
                      const std::string& marker) {
    const std::string line = "R.call_pure_packed(\"mlc.pipeline_parallel_stage_boundary\", " +
                             value + ", sinfo_args=(R.Tensor((1, 1, 4096), dtype=\"float16\"),))";
    // `after` is the end of the value's line and the start of the next one.
    const size_t cut = after.rfind('\n') + 1;
    end = replace_all(
        begin, end, after,
        after.substr(0, cut) + "            " + marker + " = " + line + "\n" + after.substr(cut));
    end = replace_all(begin, end, use, "(" + marker + use.substr(value.size() + 1));
  };
  if (stages >= 2) {
    boundary("out_sinfo=R.Tensor((1, 1, 4096), dtype=\"float16\"))\n            lv38:", "lv3_1",
             "(lv3_1, lv62)", "b1");
  }
  if (stages >= 3) {
    boundary("out_sinfo=R.Tensor((1, 1, 4096), dtype=\"float16\"))\n            lv47:", "lv2_2",
             "(lv2_2, lv47)", "b2");
  }
  return text;
}

class MlcPartition2023Test : public ::testing::TestWithParam<int> {};

// Marked by hand at layer-safe points: the one layer (kv_cache holds its K and V caches) is in
// stage 0, the stages after it hold none.
TEST_P(MlcPartition2023Test, KvCacheTupleFieldsIdentifyTheLayer) {
  if (!fs::exists(Dump2023())) GTEST_SKIP() << "corpus not available: " << Dump2023();
  const int stages = GetParam();
  Split split = RunPipeline(Decoding2023(stages), "pipeline-parallel-rewrite");
  ASSERT_EQ(split.plans.size(), 1u);
  MlcPartition mlc = ComputeMlcPartition(split.module, split.plans);
  EXPECT_EQ(mlc.pipeline_parallel_stages, stages);
  std::vector<int64_t> expected(stages + 1, 1);
  expected[0] = 0;
  EXPECT_EQ(mlc.layer_partition, expected);
  int touching = 0;
  for (int g = 0; g < stages; ++g) {
    std::string name = "decoding_stage" + std::to_string(g);
    for (int64_t field : KvCacheFields(*split.module.LookupFunction(name))) {
      ++touching;
      ExpectInStage(mlc, field / 2, g, name);
    }
  }
  EXPECT_EQ(touching, 2);  // kv_cache[0] and kv_cache[1], in one stage
  ExpectParamsMatchReads(split, mlc);
  size_t fields =
      ir::As<ir::TupleSInfoNode>(split.plans[0].packed_params->struct_info())->fields().size();
  EXPECT_EQ(mlc.params.size(), fields);
}

// auto-pipeline-stages cuts the single layer between its K and V cache appends: MLC's KV cache
// (whole layers per worker group) cannot hold that, and the partition says so.
TEST_P(MlcPartition2023Test, AutomaticCutsInsideTheLayerAreRejected) {
  if (!fs::exists(Dump2023())) GTEST_SKIP() << "corpus not available: " << Dump2023();
  const int stages = GetParam();
  Split split =
      RunPipeline(Decoding2023(0), "auto-pipeline-stages{stages=" + std::to_string(stages) +
                                       "},pipeline-parallel-rewrite");
  ASSERT_EQ(split.plans.size(), 1u);
  MlcPartitionOrError mlc = TryComputeMlcPartition(split.module, split.plans);
  EXPECT_FALSE(mlc.partition);
  EXPECT_THAT(mlc.error, HasSubstr("mlc partition: layer 0 straddles stages"));
  EXPECT_THAT(mlc.error, HasSubstr("vm.builtin.attention_kv_cache_append on kv_cache[1]"));
}

INSTANTIATE_TEST_SUITE_P(Stages, MlcPartition2023Test, ::testing::Values(2, 3));

// A two-stage function: stage 0 runs attention calls for layers `first`, stage 1 for
// `second`, each stage reading one weight.
std::string TwoStages(const std::vector<int>& first, const std::vector<int>& second) {
  auto attention = [](const std::string& x, int layer, const std::string& out) {
    return "            " + out +
           " = R.call_dps_packed(\"vm.builtin.attention_kv_cache_attention_with_fused_qkv\", "
           "(kv, R.prim_value(" +
           std::to_string(layer) + "), R.prim_value(T.float64(1.0)), " + x +
           "), out_sinfo=R.Tensor((4,), dtype=\"float32\"))\n";
  };
  std::string body =
      "            w0 = packed_params[0]\n"
      "            a0 = R.add(x, w0)\n";
  std::string x = "a0";
  int n = 0;
  for (int l : first) {
    std::string out = "o" + std::to_string(n++);
    body += attention(x, l, out);
    x = out;
  }
  body += "            b = R.call_pure_packed(\"mlc.pipeline_parallel_stage_boundary\", " + x +
          ", sinfo_args=(R.Tensor((4,), dtype=\"float32\"),))\n"
          "            w1 = packed_params[1]\n"
          "            a1 = R.add(b, w1)\n";
  x = "a1";
  for (int l : second) {
    std::string out = "o" + std::to_string(n++);
    body += attention(x, l, out);
    x = out;
  }
  return "@I.ir_module\nclass Module:\n    @R.function\n"
         "    def prefill(x: R.Tensor((4,), dtype=\"float32\"), kv: R.Object, packed_params: "
         "R.Tuple(R.Tensor((4,), dtype=\"float32\"), R.Tensor((4,), dtype=\"float32\"))) -> "
         "R.Tensor((4,), dtype=\"float32\"):\n"
         "        R.func_attr({\"num_input\": 2, \"pipeline_parallel_stages\": 2})\n"
         "        with R.dataflow():\n" +
         body + "            gv = " + x + "\n            R.output(gv)\n        return gv\n";
}

std::string ErrorOf(const std::string& text, const std::vector<std::string>& names = {}) {
  Split split = RunPipeline(text, "pipeline-parallel-rewrite");
  MlcPartitionOrError mlc = TryComputeMlcPartition(split.module, split.plans, names);
  EXPECT_FALSE(mlc.partition);
  return mlc.error;
}

TEST(MlcPartitionTest, HandWrittenTwoStages) {
  Split split = RunPipeline(TwoStages({0, 1}, {2}), "pipeline-parallel-rewrite");
  MlcPartition mlc = ComputeMlcPartition(split.module, split.plans);
  EXPECT_THAT(mlc.layer_partition, ElementsAre(0, 2, 3));
  EXPECT_THAT(mlc.params[0].stages, ElementsAre(0));
  EXPECT_THAT(mlc.params[1].stages, ElementsAre(1));
  // A stage with no layer.
  split = RunPipeline(TwoStages({0}, {}), "pipeline-parallel-rewrite");
  EXPECT_THAT(ComputeMlcPartition(split.module, split.plans).layer_partition, ElementsAre(0, 1, 1));
}

TEST(MlcPartitionErrorTest, NoLayers) {
  // Asked for the partition, a module without layers is an error; the stage report's
  // TryComputeMlcPartition notes that it is not in MLC's form instead.
  Split split = RunPipeline(TwoStages({}, {}), "pipeline-parallel-rewrite");
  MlcPartitionOrError mlc = TryComputeMlcPartition(split.module, split.plans);
  EXPECT_FALSE(mlc.partition);
  EXPECT_EQ(mlc.error, "");
  EXPECT_EQ(mlc.note,
            "not an MLC-form model (no KV-cache call, weights not named): no layer partition to "
            "report");
  EXPECT_EQ(TryComputeMlcPartition(split.module, split.plans, {"a", "b"}).note,
            "not an MLC-form model (no KV-cache call, no weight named 'layers.<i>.'): no layer "
            "partition to report");
  std::string error;
  try {
    ComputeMlcPartition(split.module, split.plans);
  } catch (const DiagnosticError& e) {
    error = e.diagnostics().at(0).message;
  }
  EXPECT_EQ(error,
            "mlc partition: cannot identify the transformer layers of 'prefill': no KV-cache call "
            "of its stages names a layer (vm.builtin.attention_kv_cache_* with "
            "R.prim_value(<layer>) or on a field of a KV-cache tuple parameter) and no weight read "
            "is named 'layers.<i>.'");
}

TEST(MlcPartitionErrorTest, LayerStraddlesStages) {
  EXPECT_EQ(ErrorOf(TwoStages({0}, {}), {"model.layers.0.a.weight", "model.layers.0.b.weight"}),
            "mlc partition: layer 0 straddles stages 0 and 1 of 'prefill': in stage 0 weight "
            "'model.layers.0.a.weight' (packed_params[0]) is read, in stage 1 weight "
            "'model.layers.0.b.weight' (packed_params[1]) is read");
  EXPECT_THAT(ErrorOf(TwoStages({0}, {0})), HasSubstr("layer 0 straddles stages 0 and 1"));
}

TEST(MlcPartitionErrorTest, LayersOutOfStageOrder) {
  EXPECT_EQ(ErrorOf(TwoStages({1}, {0})),
            "mlc partition: layer 1 is in stage 0 of 'prefill' but layer 0 in stage 1: layers are "
            "not in stage order");
}

TEST(MlcPartitionErrorTest, MissingLayerAndWrongNameCount) {
  EXPECT_EQ(ErrorOf(TwoStages({0}, {2})),
            "mlc partition: layer 1 of 'prefill' is not found (its stages name layers up to 2)");
  EXPECT_EQ(ErrorOf(TwoStages({0}, {1}), {"a"}),
            "mlc partition: 1 parameter names for 2 packed_params fields");
}

}  // namespace
}  // namespace pipesplit::transform
