// The rewrite on a real-sized input: an 80-layer lowered Llama-like module with 4 and 8
// stages is split, and the result is well-formed and its sends and receives pair up.
#include <gtest/gtest.h>

#include "pipesplit/analysis/pipeline_checks.h"
#include "pipesplit/analysis/well_formed.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/transform/pipeline_parallel_rewrite.h"
#include "pipesplit/models/synthetic_llama.h"

namespace pipesplit::transform {
namespace {

class LargeModuleTest : public testing::TestWithParam<int> {};

TEST_P(LargeModuleTest, EightyLayersSplitCleanly) {
  models::SyntheticLlamaConfig config;
  config.layers = 80;
  config.stages = GetParam();
  ir::IRModule mod = script::ParseModule(models::GenerateSyntheticLlama(config), "llama80.py");
  std::vector<StagePlan> plans;
  ir::IRModule out = RewritePipelineStages(mod, &plans);
  ASSERT_EQ(plans.size(), 2u);  // decode and prefill
  for (const StagePlan& plan : plans) {
    ASSERT_EQ(plan.num_stages, GetParam());
    size_t bindings = 0;
    for (const Stage& stage : plan.stages) {
      bindings += stage.bindings.size();
      // Every stage holds 80 / N layers' worth of bindings, give or take the embedding/head.
      EXPECT_GE(stage.bindings.size(), 28u * (80 / GetParam()) - 28);
      EXPECT_FALSE(stage.weights.empty());
    }
    // Boundaries each pass exactly the hidden state: nothing is forwarded.
    for (const auto& transfers : plan.transfers) {
      ASSERT_EQ(transfers.size(), 1u);
      EXPECT_FALSE(transfers[0].forwarded);
    }
    EXPECT_GT(bindings, 80u * 28u);
  }
  EXPECT_TRUE(analysis::CheckWellFormed(out).empty());
  EXPECT_TRUE(analysis::CheckSendRecvPairing(out).empty());
  // Printing and re-parsing keeps it well-formed.
  ir::IRModule reparsed = script::ParseModule(script::PrintModule(out), "llama80.split.py");
  EXPECT_TRUE(analysis::CheckWellFormed(reparsed).empty());
}

INSTANTIATE_TEST_SUITE_P(Stages, LargeModuleTest, testing::Values(4, 8));

}  // namespace
}  // namespace pipesplit::transform
