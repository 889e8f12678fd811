// PassContext results: typed values keyed by their C++ type (Set<T> / Get<T>).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "pipesplit/script/parser.h"
#include "pipesplit/support/text.h"
#include "pipesplit/transform/pass.h"
#include "pipesplit/transform/pipeline_stage_plan.h"

namespace pipesplit::transform {
namespace {

struct Counts {
  int functions = 0;
};

TEST(PassContextTest, GetOfAnUnsetTypeIsNull) {
  PassContext ctx;
  EXPECT_EQ(ctx.Get<Counts>(), nullptr);
  EXPECT_EQ(ctx.Get<std::vector<StagePlan>>(), nullptr);
}

TEST(PassContextTest, SetThenGetReturnsTheValue) {
  PassContext ctx;
  ctx.Set(Counts{3});
  const Counts* counts = ctx.Get<Counts>();
  ASSERT_NE(counts, nullptr);
  EXPECT_EQ(counts->functions, 3);
}

TEST(PassContextTest, TwoTypesCoexist) {
  PassContext ctx;
  ctx.Set(Counts{2});
  ctx.Set(std::string("note"));
  ASSERT_NE(ctx.Get<Counts>(), nullptr);
  ASSERT_NE(ctx.Get<std::string>(), nullptr);
  EXPECT_EQ(ctx.Get<Counts>()->functions, 2);
  EXPECT_EQ(*ctx.Get<std::string>(), "note");
  // The key is the exact type: a related type is not found.
  EXPECT_EQ(ctx.Get<std::vector<std::string>>(), nullptr);
}

TEST(PassContextTest, SetReplacesTheValueOfTheSameType) {
  PassContext ctx;
  ctx.Set(Counts{1});
  ctx.Set(Counts{5});
  ASSERT_NE(ctx.Get<Counts>(), nullptr);
  EXPECT_EQ(ctx.Get<Counts>()->functions, 5);
}

TEST(PassContextTest, HoldsMoveOnlyValues) {
  PassContext ctx;
  ctx.Set(std::make_unique<int>(7));
  const auto* value = ctx.Get<std::unique_ptr<int>>();
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(**value, 7);
}

TEST(PassContextTest, PipelineParallelRewriteLeavesItsPlans) {
  const std::string name = "skip_stage_forwarding.input.py";
  std::string text, error;
  ASSERT_TRUE(ReadFile(std::string(PIPESPLIT_SOURCE_DIR) + "/tests/transform/golden/" + name, &text,
                       &error))
      << error;
  PassContext ctx;
  ParsePipeline("pipeline-parallel-rewrite")->Run(script::ParseModule(text, name), ctx);
  const auto* plans = ctx.Get<std::vector<StagePlan>>();
  ASSERT_NE(plans, nullptr);
  ASSERT_EQ(plans->size(), 1u);
  EXPECT_EQ((*plans)[0].num_stages, 3);
}

}  // namespace
}  // namespace pipesplit::transform
