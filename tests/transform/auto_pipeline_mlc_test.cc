// auto-pipeline-stages on modules in MLC-LLM's form: stages cut only between transformer layers
// (found from the weights' names), in every function MLC marks with pipeline_parallel_stages,
// the KV cache's layer partition set to match. On MLC's own phase 4 modules of the 2026 corpus
// (skipped when absent): every boundary right after a layer's residual add of down_proj, the
// partition [0, 2, 4] / [0, 1, 2, 3, 4], each weight in the stage of its layer. On small
// modules: a module without layers cut as before, and the error paths.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "pipesplit/analysis/auto_partition.h"
#include "pipesplit/ir/attr_names.h"
#include "pipesplit/ir/protocol.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/support/diagnostic.h"
#include "pipesplit/support/text.h"
#include "pipesplit/transform/mlc_partition.h"
#include "pipesplit/transform/pass.h"
#include "pipesplit/transform/pipeline_stage_plan.h"
#include "src/transform/auto_pipeline_layers.h"
#include "tests/mlc2026_corpus_dir.h"

namespace pipesplit::transform {
namespace {

namespace fs = std::filesystem;
using testing::ElementsAre;
using testing::HasSubstr;

fs::path CorpusDir() { return testing_corpus::Mlc2026Dir(); }

struct PassRun {
  ir::IRModule input, output;
  analysis::PartitionResult result;
  std::vector<StagePlan> plans;
};

PassRun RunPipeline(const ir::IRModule& input, const std::string& pipeline) {
  PassRun run;
  run.input = input;
  PassContext ctx;
  run.output = ParsePipeline(pipeline)->Run(input, ctx);
  if (const auto* result = ctx.Get<analysis::PartitionResult>()) run.result = *result;
  if (const auto* plans = ctx.Get<std::vector<StagePlan>>()) run.plans = *plans;
  return run;
}

std::string ErrorOf(const std::string& text, const std::string& pipeline) {
  try {
    PassContext ctx;
    ParsePipeline(pipeline)->Run(script::ParseModule(text, "input.py"), ctx);
  } catch (const DiagnosticError& e) {
    return e.what();
  }
  return "no error";
}

// The bindings of a function's single dataflow block.
const std::vector<ir::Binding>& Bindings(const ir::Function& func) {
  return ir::As<ir::SeqExprNode>(func->body())->blocks()[0]->bindings();
}

// The layer partition of the module's paged KV cache creation.
std::vector<int64_t> KvPartition(const ir::IRModule& mod) {
  std::vector<int64_t> out;
  for (const auto& member : mod.members()) {
    const auto* func = ir::As<ir::FunctionNode>(member.func);
    const auto* seq = func != nullptr ? ir::As<ir::SeqExprNode>(func->body()) : nullptr;
    if (seq == nullptr) continue;
    for (const ir::BindingBlock& block : seq->blocks()) {
      for (const ir::Binding& b : block->bindings()) {
        const ir::CallNode* call = ir::IsExternCall(b->value(), ir::protocol::kCallPurePacked,
                                                    ir::protocol::kPagedKvCacheCreate);
        if (call == nullptr) continue;
        for (const ir::PrimExpr& v : ir::As<ir::ShapeExprNode>(call->args()[2])->values()) {
          out.push_back(*ir::AsConstInt(v));
        }
      }
    }
  }
  return out;
}

// The names of the functions carrying pipeline_parallel_stages.
std::set<std::string> MarkedFunctions(const ir::IRModule& mod) {
  std::set<std::string> out;
  for (const auto& member : mod.members()) {
    const auto* func = ir::As<ir::FunctionNode>(member.func);
    if (func != nullptr && func->GetAttr(ir::attr::kPipelineParallelStages) != nullptr) {
      out.insert(member.gvar->name_hint());
    }
  }
  return out;
}

// The layer of the weight vars a binding's call passes (-1: none), and whether one of them is
// a down_proj weight.
std::pair<int64_t, bool> LayerOfCall(const ir::Binding& b) {
  const auto* call = ir::As<ir::CallNode>(b->value());
  if (call == nullptr) return {-1, false};
  for (const ir::Expr& arg : call->args()) {
    const auto* tuple = ir::As<ir::TupleNode>(arg);
    for (const ir::Expr& field : tuple != nullptr ? tuple->fields() : std::vector<ir::Expr>{}) {
      const auto* var = ir::As<ir::VarNode>(field);
      if (var == nullptr) continue;
      if (std::optional<int64_t> layer = LayerOfWeightName(var->name_hint())) {
        return {*layer, var->name_hint().find("mlp_down_proj") != std::string::npos};
      }
    }
  }
  return {-1, false};
}

class AutoPipelineMlcCorpusTest : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(AutoPipelineMlcCorpusTest, CutsBetweenLayersInEveryMarkedFunction) {
  const fs::path dir = CorpusDir();
  if (dir.empty()) GTEST_SKIP() << "shared/corpus/mlc-llm-2026 is absent";
  const auto [model, stages] = GetParam();
  std::string text, error;
  const fs::path path = dir / model / "cpu-pp1/debug-phase4.py";
  ASSERT_TRUE(ReadFile(path.string(), &text, &error)) << error;
  const ir::IRModule input = script::ParseModule(text, path.string());
  const PassRun cut =
      RunPipeline(input, "auto-pipeline-stages{stages=" + std::to_string(stages) + "}");
  const std::vector<int64_t> expected =
      stages == 2 ? std::vector<int64_t>{0, 2, 4} : std::vector<int64_t>{0, 1, 2, 3, 4};
  EXPECT_EQ(KvPartition(input), (std::vector<int64_t>{0, 4}));
  EXPECT_EQ(KvPartition(cut.output), expected);

  // Every function MLC marks is cut (batch_prefill, batch_decode, prefill, decode, ...), and
  // only those (embed, get_logits read packed_params too).
  const std::set<std::string> marked = MarkedFunctions(input);
  EXPECT_EQ(marked.size(), 10u);
  EXPECT_EQ(std::set<std::string>(cut.result.functions.begin(), cut.result.functions.end()),
            marked);
  for (const std::string& name : marked) {
    const ir::Function func = cut.output.LookupFunction(name);
    EXPECT_EQ(func->GetAttr(ir::attr::kPipelineParallelStages)->ToInt(), stages) << name;
    // Each boundary carries the value of a layer's down_proj residual add, layer l_k - 1.
    std::unordered_map<const ir::VarNode*, ir::Binding> defs;
    size_t k = 0;
    for (const ir::Binding& b : Bindings(func)) {
      defs[b->var().get()] = b;
      const ir::CallNode* boundary =
          ir::IsExternCall(b->value(), ir::protocol::kCallPurePacked, ir::protocol::kStageBoundary);
      if (boundary == nullptr) continue;
      ++k;
      ASSERT_EQ(boundary->args().size(), 2u) << name;
      const auto* carried = ir::As<ir::VarNode>(boundary->args()[1]);
      ASSERT_NE(carried, nullptr);
      auto [layer, down_proj] = LayerOfCall(defs.at(carried));
      EXPECT_TRUE(down_proj) << name << ": boundary " << k << " carries " << carried->name_hint();
      ASSERT_LT(k, expected.size());
      EXPECT_EQ(layer, expected[k] - 1) << name << ": boundary " << k;
    }
    EXPECT_EQ(k, static_cast<size_t>(stages - 1)) << name;
  }

  // Split: MLC's partition read back from the stage functions; each weight in its layer's stage.
  const PassRun split = RunPipeline(cut.output, "pipeline-parallel-rewrite");
  std::vector<std::string> names;
  for (const ir::Binding& b : Bindings(input.LookupFunction("batch_decode"))) {
    const auto* get = ir::As<ir::TupleGetItemNode>(b->value());
    if (get == nullptr) continue;
    if (names.size() <= static_cast<size_t>(get->index())) names.resize(get->index() + 1);
    std::string name = b->var()->name_hint();
    for (char& c : name) c = c == '_' ? '.' : c;  // model.layers.3.mlp... for mlc_partition
    names[get->index()] = name;
  }
  names[0] = "model.embed.tokens";  // read by embed only, not by batch_decode
  const MlcPartition mlc = ComputeMlcPartition(split.output, split.plans, names);
  EXPECT_EQ(mlc.layer_partition, expected);
  int checked = 0;
  for (const MlcParamStages& p : mlc.params) {
    std::optional<int64_t> layer = LayerOfWeightName(p.name);
    if (!layer) continue;
    int stage = 0;
    while (expected[stage + 1] <= *layer) ++stage;
    EXPECT_THAT(p.stages, ElementsAre(stage)) << p.name;
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

INSTANTIATE_TEST_SUITE_P(Models, AutoPipelineMlcCorpusTest,
                         ::testing::Combine(::testing::Values(std::string("llama-q0f32"),
                                                              std::string("llama-q4f16_1")),
                                            ::testing::Values(2, 4)),
                         [](const ::testing::TestParamInfo<std::tuple<std::string, int>>& info) {
                           std::string name = std::get<0>(info.param);
                           for (char& c : name) c = c == '-' ? '_' : c;
                           return name + "_stages" + std::to_string(std::get<1>(info.param));
                         });

// Two layers of two bindings each over weights named `<prefix>0_w` / `<prefix>1_w`, a head,
// a KV cache created with the partition `kv`, and `embed`, which reads packed_params unmarked.
std::string TwoLayers(const std::string& prefix, const std::string& kv = "0, 2") {
  std::string layers;
  std::string x = "x";
  for (int l = 0; l < 2; ++l) {
    const std::string w = prefix + std::to_string(l) + "_w";
    const std::string a = "a" + std::to_string(l), b = "b" + std::to_string(l);
    layers += "            " + w + " = packed_params[" + std::to_string(l) + "]\n";
    layers += "            " + a + " = R.add(" + x + ", " + w + ")\n";
    layers += "            " + b + " = R.multiply(" + a + ", " + x + ")\n";
    x = b;
  }
  return R"(@I.ir_module
class Module:
    @R.function
    def create_kv() -> R.Object:
        kv: R.Object = R.call_pure_packed("vm.builtin.paged_attention_kv_cache_create", R.shape([4, 64]), R.shape([)" +
         kv + R"(]), sinfo_args=(R.Object,))
        return kv

    @R.function
    def embed(ids: R.Tensor((8,), dtype="float32"), packed_params: R.Tuple(R.Tensor((8,), dtype="float32"), R.Tensor((8,), dtype="float32"), R.Tensor((8,), dtype="float32"))) -> R.Tensor((8,), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            e = packed_params[2]
            y = R.add(ids, e)
            R.output(y)
        return y

    @R.function
    def decode(x: R.Tensor((8,), dtype="float32"), packed_params: R.Tuple(R.Tensor((8,), dtype="float32"), R.Tensor((8,), dtype="float32"), R.Tensor((8,), dtype="float32"))) -> R.Tensor((8,), dtype="float32"):
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 1})
        with R.dataflow():
)" + layers +
         R"(            head = packed_params[2]
            y = R.multiply(b1, head)
            R.output(y)
        return y
)";
}

TEST(AutoPipelineLayersTest, WeightNamesGiveLayers) {
  EXPECT_EQ(LayerOfWeightName("model_layers_3_mlp_down_proj_weight7"), 3);
  EXPECT_EQ(LayerOfWeightName("model.layers.12.self_attn.qkv_proj.q_weight"), 12);
  EXPECT_EQ(LayerOfWeightName("layers_0_w"), 0);
  EXPECT_EQ(LayerOfWeightName("model_norm_weight7"), std::nullopt);
  EXPECT_EQ(LayerOfWeightName("model_layers_norm"), std::nullopt);
  EXPECT_EQ(LayerOfWeightName("mylayers_3_w"), std::nullopt);
  EXPECT_EQ(LayerOfWeightName("layers.3_w"), std::nullopt);  // separators must agree
}

TEST(AutoPipelineLayersTest, NamedLayersAreCutBetweenAndTheKvCachePartitioned) {
  const PassRun run = RunPipeline(script::ParseModule(TwoLayers("model_layers_"), "two.py"),
                                  "auto-pipeline-stages{stages=2}");
  EXPECT_THAT(run.result.functions, ElementsAre("decode"));  // not embed: it is not marked
  ASSERT_EQ(run.result.cuts.size(), 1u);
  // Bindings: w0 a0 b0 | w1 a1 b1 head y: the cut after layer 0's last binding.
  EXPECT_THAT(run.result.cuts[0], ElementsAre(3));
  EXPECT_EQ(KvPartition(run.output), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(run.output.LookupFunction("embed"), run.input.LookupFunction("embed"));
}

TEST(AutoPipelineLayersTest, WithoutLayersCutPointsInsideLayersRemain) {
  // The same module with weights that name no layer: 3 stages of 2 "layers" are allowed (the
  // cost model's cut points), and the KV cache keeps its partition.
  const PassRun run =
      RunPipeline(script::ParseModule(TwoLayers("w"), "two.py"), "auto-pipeline-stages{stages=3}");
  ASSERT_EQ(run.result.cuts.size(), 1u);
  EXPECT_EQ(run.result.cuts[0].size(), 2u);
  EXPECT_EQ(KvPartition(run.output), (std::vector<int64_t>{0, 2}));
}

TEST(AutoPipelineLayersTest, MoreStagesThanLayersIsALocatedError) {
  EXPECT_THAT(ErrorOf(TwoLayers("model_layers_"), "auto-pipeline-stages{stages=3}"),
              HasSubstr("<pipeline>:1:1: error: auto-pipeline-stages: cannot make 3 stages of a "
                        "model with 2 transformer layers (stages are cut only between layers)"));
}

TEST(AutoPipelineLayersTest, AKvCacheOfOtherLayersIsALocatedError) {
  EXPECT_THAT(ErrorOf(TwoLayers("model_layers_", "0, 3"), "auto-pipeline-stages{stages=2}"),
              HasSubstr("input.py:5:107: error: auto-pipeline-stages: the KV cache's layer "
                        "partition [0, 3] does not span the 2 transformer layers the weights "
                        "name"));
}

TEST(AutoPipelineLayersTest, AMarkedFunctionWithoutLayersIsALocatedError) {
  std::string text = TwoLayers("model_layers_");
  // Mark embed too: it reads no layer's weights.
  const std::string attr = "R.func_attr({\"num_input\": 1})";
  text.replace(text.find(attr), attr.size(),
               "R.func_attr({\"num_input\": 1, \"pipeline_parallel_stages\": 1})");
  EXPECT_THAT(ErrorOf(text, "auto-pipeline-stages{stages=2}"),
              HasSubstr("error: auto-pipeline-stages: function 'embed' reads no transformer "
                        "layer's weights while 'decode' reads 2 layers; name the functions to "
                        "cut with funcs="));
}

}  // namespace
}  // namespace pipesplit::transform
