// `pipesplit opt -p pipeline-parallel-rewrite --stage-report` on MLC's serving form: the report's
// "mlc" object gives the layer partition and the stages of each parameter (named through
// --param-names); a module whose layers cannot be identified gets {"error": ...} instead.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_test_util.h"

namespace pipesplit::testing_cli {
namespace {

using testing::HasSubstr;
namespace fs = std::filesystem;

TEST(MlcPartitionCliTest, StageReportHasTheMlcObject) {
  fs::path dir = ScratchDir("mlc_partition_report");
  Result gen = Pipesplit(
      "example llama --serving --layers 30 --stages 4 --hidden 32 --heads 4 --ffn 64 --vocab 64 "
      "-o " +
      dir.string());
  ASSERT_EQ(gen.exit_code, 0) << gen.output;
  std::string model = (dir / "model.py").string(), json = (dir / "report.json").string();
  std::string params = (dir / "params.safetensors").string();
  Result opt = Pipesplit("opt " + model + " -p pipeline-parallel-rewrite -o /dev/null " +
                         "--stage-report " + json + " --param-names " + params);
  ASSERT_EQ(opt.exit_code, 0) << opt.output;
  auto report = nlohmann::json::parse(ReadText(json));
  const auto& mlc = report["mlc"];
  EXPECT_EQ(mlc["pipeline_parallel_stages"], 4);
  EXPECT_EQ(mlc["layer_partition"], nlohmann::json::parse("[0, 8, 16, 24, 30]"));
  EXPECT_EQ(mlc["param_stages"]["model.embed_tokens.weight"], nlohmann::json::parse("[0,1,2,3]"));
  EXPECT_EQ(mlc["param_stages"]["model.layers.7.mlp.down_proj.weight"],
            nlohmann::json::parse("[0]"));
  EXPECT_EQ(mlc["param_stages"]["model.layers.29.self_attn.qkv_proj.weight"],
            nlohmann::json::parse("[3]"));
  EXPECT_EQ(mlc["param_stages"]["lm_head.weight"], nlohmann::json::parse("[3]"));
  EXPECT_EQ(mlc["params"].size(), mlc["param_stages"].size());
  EXPECT_EQ(mlc["params"][0]["name"], "model.embed_tokens.weight");

  // Without names the parameters are keyed by index; the text format has a section.
  Result text = Pipesplit("opt " + model +
                          " -p pipeline-parallel-rewrite -o /dev/null --stage-report - "
                          "--stage-report-format text");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_THAT(text.output, HasSubstr("mlc partition (4 stages)\n"
                                     "  layer_partition [0, 8, 16, 24, 30]\n"
                                     "  stage 0: layers 0-7, "));
  EXPECT_THAT(text.output, HasSubstr("packed_params[0] in stages 0, 1, 2, 3"));
}

TEST(MlcPartitionCliTest, UnidentifiedLayersAreReportedAsAnError) {
  fs::path dir = ScratchDir("mlc_partition_error");
  std::string model =
      (fs::path(PIPESPLIT_SOURCE_DIR) / "tests/transform/golden/three_stages.input.py").string();
  std::string json = (dir / "report.json").string();
  Result opt = Pipesplit("opt " + model + " -p pipeline-parallel-rewrite -o /dev/null " +
                         "--stage-report " + json);
  ASSERT_EQ(opt.exit_code, 0) << opt.output;
  auto report = nlohmann::json::parse(ReadText(json));
  ASSERT_TRUE(report["mlc"].contains("error"));
  EXPECT_THAT(report["mlc"]["error"].get<std::string>(),
              HasSubstr("mlc partition: cannot identify the transformer layers of 'main'"));
  EXPECT_FALSE(report["mlc"].contains("layer_partition"));
}

}  // namespace
}  // namespace pipesplit::testing_cli
