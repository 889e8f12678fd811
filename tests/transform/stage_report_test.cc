// The stage report: parameters, weights with bytes, received/sent/forwarded values.
#include "pipesplit/transform/stage_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "pipesplit/script/parser.h"
#include "pipesplit/support/text.h"
#include "pipesplit/transform/pipeline_parallel_rewrite.h"

namespace pipesplit::transform {
namespace {

std::vector<StagePlan> Plans(const std::string& golden) {
  std::string text, error;
  EXPECT_TRUE(ReadFile(std::string(PIPESPLIT_SOURCE_DIR) + "/tests/transform/golden/" + golden,
                       &text, &error));
  std::vector<StagePlan> plans;
  RewritePipelineStages(script::ParseModule(text, golden), &plans);
  return plans;
}

TEST(StageReportTest, ListsForwardedValuesWeightsAndBytes) {
  auto report = nlohmann::json::parse(StageReportJson(Plans("skip_stage_forwarding.input.py")));
  const auto& stages = report["functions"][0]["stages"];
  ASSERT_EQ(stages.size(), 3u);
  // Stage 1 forwards `a` (received as b1) to stage 2.
  EXPECT_EQ(stages[1]["forwarded"], nlohmann::json::array({"a"}));
  EXPECT_EQ(stages[1]["sent"].size(), 2u);
  EXPECT_EQ(stages[2]["received"][1]["name"], "a");
  EXPECT_EQ(stages[2]["received"][1]["forwarded"], true);
  EXPECT_EQ(stages[2]["received"][1]["bytes"], 16);
  // Only stage 2 reads packed_params[0], a float32[4]: 16 bytes.
  EXPECT_EQ(stages[0]["weights"].size(), 0u);
  EXPECT_EQ(stages[2]["weights"][0]["index"], 0);
  EXPECT_EQ(stages[2]["weight_bytes"], 16);
  EXPECT_EQ(stages[0]["params"][0]["name"], "x");
}

TEST(StageReportTest, SymbolicSizesStaySymbolic) {
  auto report = nlohmann::json::parse(StageReportJson(Plans("spec_example.input.py")));
  const auto& stage1 = report["functions"][0]["stages"][1];
  EXPECT_EQ(stage1["received"][0]["bytes"], "n * 64");
  EXPECT_EQ(stage1["shape_vars"], nlohmann::json::array({"n"}));
  EXPECT_EQ(stage1["weight_bytes"], 1024);
}

TEST(StageReportTest, TextTableHasOneRowPerStage) {
  std::string text = StageReportText(Plans("three_stages.input.py"));
  EXPECT_THAT(text, testing::HasSubstr("function main (3 stages)"));
  EXPECT_THAT(text, testing::HasSubstr("recv b : R.Tensor((2, 8), dtype=\"float32\") (64 bytes)"));
}

TEST(StageReportTest, BytesOf) {
  ir::IRModule mod = script::ParseModule(R"(@I.ir_module
class Module:
    @R.function
    def f(x: R.Tensor(("n", 3), dtype="float16"), y: R.Tensor(dtype="float32", ndim=2)) -> R.Tensor(("n", 3), dtype="float16"):
        return x
)",
                                         "bytes.py");
  ir::Function f = mod.LookupFunction("f");
  EXPECT_EQ(BytesOf(f->params()[0]->struct_info()), "n * 6");
  EXPECT_EQ(BytesOf(f->params()[1]->struct_info()), "?");
}

}  // namespace
}  // namespace pipesplit::transform
