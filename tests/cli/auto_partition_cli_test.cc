// `pipesplit opt -p "auto-pipeline-stages{...},pipeline-parallel-rewrite"` on the example
// transformer without markers: the automatically split program runs bit-identical to the
// unsplit one on the groups; the stage report shows the partition as text, JSON and SVG.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_test_util.h"

namespace pipesplit::testing_cli {
namespace {

using testing::HasSubstr;
namespace fs = std::filesystem;

fs::path Unmarked(const std::string& name) {
  fs::path dir = ScratchDir(name);
  Result gen = Pipesplit(
      "example llama --layers 6 --hidden 32 --heads 4 --ffn 64 --vocab 64 --seq 8 --stages 1 -o " +
      dir.string());
  EXPECT_EQ(gen.exit_code, 0) << gen.output;
  return dir;
}

class AutoSplitTest : public testing::TestWithParam<int> {};

TEST_P(AutoSplitTest, AutomaticallySplitRunsBitIdentical) {
  int stages = GetParam();
  fs::path dir = Unmarked("auto_split_" + std::to_string(stages));
  std::string model = (dir / "model.py").string(), marked = (dir / "auto.py").string();
  Result opt =
      Pipesplit("opt " + model + " -p \"auto-pipeline-stages{stages=" + std::to_string(stages) +
                "},verify\" -o " + marked);
  ASSERT_EQ(opt.exit_code, 0) << opt.output;
  EXPECT_THAT(ReadText(marked), HasSubstr("mlc.pipeline_parallel_stage_boundary"));
  Result r = Pipesplit(
      "verify-split " + marked + " --params " + (dir / "params.safetensors").string() +
      " --inputs " + (dir / "inputs.safetensors").string() + " --groups " + std::to_string(stages));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("verdict: bit-identical (1 output, max abs diff 0)"));
  EXPECT_THAT(r.output, HasSubstr("(" + std::to_string(stages) + " stages)"));
}

INSTANTIATE_TEST_SUITE_P(Stages, AutoSplitTest, testing::Values(2, 4));

TEST(AutoSplitCliTest, StageReportShowsThePartition) {
  fs::path dir = Unmarked("auto_split_report");
  std::string model = (dir / "model.py").string();
  std::string svg = (dir / "stages.svg").string(), json = (dir / "report.json").string();
  Result opt = Pipesplit("opt " + model +
                         " -p \"auto-pipeline-stages{stages=3},pipeline-parallel-rewrite\" "
                         "-o /dev/null --stage-report " +
                         json + " --stage-report-svg " + svg);
  ASSERT_EQ(opt.exit_code, 0) << opt.output;
  auto report = nlohmann::json::parse(ReadText(json));
  ASSERT_EQ(report["partition"]["stages"].size(), 3u);
  ASSERT_EQ(report["functions"][0]["num_stages"], 3);
  // The partition's weights are the rewrite's, stage by stage.
  for (int s = 0; s < 3; ++s) {
    std::vector<int64_t> indices;
    for (const auto& w : report["functions"][0]["stages"][s]["weights"]) {
      indices.push_back(w["index"]);
    }
    EXPECT_EQ(report["partition"]["stages"][s]["weights"].get<std::vector<int64_t>>(), indices);
  }
  std::string chart = ReadText(svg);
  EXPECT_THAT(chart, HasSubstr("<svg"));
  EXPECT_THAT(chart, HasSubstr("stage 2: weights"));

  Result text = Pipesplit("opt " + model +
                          " -p \"auto-pipeline-stages{stages=3}\" -o /dev/null --stage-report - "
                          "--stage-report-format text");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_THAT(text.output, HasSubstr("partition (3 stages, functions main)"));
}

TEST(AutoSplitCliTest, ErrorsAreOneLine) {
  fs::path dir = Unmarked("auto_split_errors");
  std::string model = (dir / "model.py").string();
  Result svg = Pipesplit("opt " + model + " -p verify -o /dev/null --stage-report-svg x.svg");
  EXPECT_EQ(svg.exit_code, 1);
  EXPECT_THAT(svg.output, HasSubstr("error: --stage-report-svg needs an auto-pipeline-stages"));
  Result mem =
      Pipesplit("opt " + model + " -p \"auto-pipeline-stages{stages=2,memory=1KiB}\" -o /dev/null");
  EXPECT_EQ(mem.exit_code, 1);
  EXPECT_THAT(mem.output, HasSubstr("error: auto-pipeline-stages: no partition into 2 stages"));
  EXPECT_THAT(mem.output, HasSubstr("the smallest feasible limit is "));
}

}  // namespace
}  // namespace pipesplit::testing_cli
