// `pipesplit opt -p pipeline-parallel-rewrite --stage-report` on MLC's serving form: the report's
// "mlc" object gives the layer partition and the stages of each parameter (named through
// --param-names); a module not in MLC's form gets {"note": ...}, one whose layers are cut by the
// split gets {"error": ...}.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <utility>

#include "tests/cli/cli_test_util.h"

namespace pipesplit::testing_cli {
namespace {

using testing::HasSubstr;
using testing::Not;
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

// A sharded module (`--tensor-parallel 2`): the export carries its tensor_parallel_shards from
// the module's _metadata, 1 for an unsharded one.
TEST(MlcPartitionCliTest, TheExportCarriesTensorParallelShards) {
  fs::path dir = ScratchDir("mlc_partition_tp");
  const std::string flags =
      "example llama --serving --layers 4 --stages 2 --hidden 32 --heads 4 --ffn 64 --vocab 64 ";
  ASSERT_EQ(Pipesplit(flags + "--tensor-parallel 2 -o " + (dir / "tp").string()).exit_code, 0);
  ASSERT_EQ(Pipesplit(flags + "-o " + (dir / "full").string()).exit_code, 0);
  for (const auto& [name, shards] : {std::pair{"tp", 2}, std::pair{"full", 1}}) {
    const fs::path json = dir / (std::string(name) + ".json");
    Result opt =
        Pipesplit("opt " + (dir / name / "model.py").string() +
                  " -p pipeline-parallel-rewrite -o /dev/null --stage-report " + json.string());
    ASSERT_EQ(opt.exit_code, 0) << opt.output;
    const auto mlc = nlohmann::json::parse(ReadText(json))["mlc"];
    EXPECT_EQ(mlc["tensor_parallel_shards"], shards) << name;
    EXPECT_EQ(mlc["pipeline_parallel_stages"], 2) << name;
    EXPECT_EQ(mlc["layer_partition"], nlohmann::json::parse("[0, 2, 4]")) << name;
  }
  Result text = Pipesplit("opt " + (dir / "tp" / "model.py").string() +
                          " -p pipeline-parallel-rewrite -o /dev/null --stage-report - "
                          "--stage-report-format text");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_THAT(text.output, HasSubstr("mlc partition (2 stages, 2 tensor-parallel shards each)\n"
                                     "  layer_partition [0, 2, 4]\n"));
}

TEST(MlcPartitionCliTest, AModuleNotInMlcFormGetsANoteNotAnError) {
  fs::path dir = ScratchDir("mlc_partition_note");
  std::string model =
      (fs::path(PIPESPLIT_SOURCE_DIR) / "tests/transform/golden/three_stages.input.py").string();
  std::string json = (dir / "report.json").string();
  Result opt = Pipesplit("opt " + model + " -p pipeline-parallel-rewrite -o /dev/null " +
                         "--stage-report " + json);
  ASSERT_EQ(opt.exit_code, 0) << opt.output;
  auto report = nlohmann::json::parse(ReadText(json));
  ASSERT_TRUE(report["mlc"].contains("note")) << report.dump();
  EXPECT_THAT(report["mlc"]["note"].get<std::string>(),
              HasSubstr("not an MLC-form model (no KV-cache call, weights not named)"));
  EXPECT_FALSE(report["mlc"].contains("error"));
  EXPECT_FALSE(report["mlc"].contains("layer_partition"));
  Result text = Pipesplit("opt " + model +
                          " -p pipeline-parallel-rewrite -o /dev/null --stage-report - "
                          "--stage-report-format text");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_THAT(text.output, HasSubstr("mlc partition: not an MLC-form model"));
  EXPECT_THAT(text.output, Not(HasSubstr("error")));
}

// The high-level example names its weights 'layers.<i>.', so with --param-names its partition
// is reported; without, it is not in MLC's form.
TEST(MlcPartitionCliTest, TheHighLevelExampleIsPartitionedByItsWeightNames) {
  fs::path dir = ScratchDir("mlc_partition_high");
  ASSERT_EQ(Pipesplit("example llama --layers 4 --hidden 32 --heads 4 --ffn 64 --vocab 64 "
                      "--seq 8 --stages 2 -o " +
                      dir.string())
                .exit_code,
            0);
  std::string model = (dir / "model.py").string();
  std::string opt = "opt " + model +
                    " -p pipeline-parallel-rewrite -o /dev/null --stage-report - "
                    "--stage-report-format text";
  Result named = Pipesplit(opt + " --param-names " + (dir / "params.safetensors").string());
  ASSERT_EQ(named.exit_code, 0) << named.output;
  EXPECT_THAT(named.output, HasSubstr("mlc partition (2 stages)\n  layer_partition [0, 2, 4]"));
  Result unnamed = Pipesplit(opt);
  ASSERT_EQ(unnamed.exit_code, 0) << unnamed.output;
  EXPECT_THAT(unnamed.output, HasSubstr("mlc partition: not an MLC-form model"));
}

// A module in MLC's form whose split cuts a layer: an error, in the report (opt still succeeds).
TEST(MlcPartitionCliTest, ALayerCutInTwoIsReportedAsAnError) {
  fs::path dir = ScratchDir("mlc_partition_error");
  ASSERT_EQ(Pipesplit("example llama --layers 1 --hidden 32 --heads 4 --ffn 64 --vocab 64 "
                      "--seq 8 --stages 1 -o " +
                      dir.string())
                .exit_code,
            0);
  std::string json = (dir / "report.json").string();
  Result opt = Pipesplit("opt " + (dir / "model.py").string() +
                         " -p \"auto-pipeline-stages{stages=2},pipeline-parallel-rewrite\" "
                         "-o /dev/null --stage-report " +
                         json + " --param-names " + (dir / "params.safetensors").string());
  ASSERT_EQ(opt.exit_code, 0) << opt.output;
  auto report = nlohmann::json::parse(ReadText(json));
  ASSERT_TRUE(report["mlc"].contains("error")) << report.dump();
  EXPECT_THAT(report["mlc"]["error"].get<std::string>(),
              HasSubstr("mlc partition: layer 0 straddles stages 0 and 1"));
  EXPECT_FALSE(report["mlc"].contains("layer_partition"));
}

}  // namespace
}  // namespace pipesplit::testing_cli
