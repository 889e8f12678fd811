// MLC-LLM's own pipeline-parallel rewrite, watched inside `mlc_llm compile` (shared/corpus/
// mlc-llm-2026/*/mlc-ppr: before-ppr.py, its input, and after-ppr.py, its output; skipped when
// the corpus is absent): pipesplit's rewrite of the input with `param-order=first-use` is
// structurally equal to MLC's output but for one difference made on purpose, the dispatcher's
// purity (MLC declares it pure; it runs stages that send and receive, so pipesplit's is
// impure). With the default order a stage's parameters are the function's, in its order.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "pipesplit/analysis/structural_equal.h"
#include "pipesplit/ir/expr.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/support/text.h"
#include "pipesplit/transform/pipeline_parallel_rewrite.h"
#include "tests/mlc2026_corpus_dir.h"

namespace pipesplit::transform {
namespace {

namespace fs = std::filesystem;

fs::path CorpusDir() { return testing_corpus::Mlc2026Dir(); }

ir::IRModule Load(const fs::path& path) {
  std::string text, error;
  if (!ReadFile(path.string(), &text, &error)) throw std::runtime_error(error);
  return script::ParseModule(text, path.string());
}

// `mod` with the dispatchers of `plans` declared pure, as MLC declares them.
ir::IRModule WithPureDispatchers(ir::IRModule mod, const std::vector<StagePlan>& plans) {
  for (const StagePlan& plan : plans) {
    const auto* f = ir::As<ir::FunctionNode>(mod.Lookup(plan.gvar->name_hint()));
    EXPECT_NE(f, nullptr);
    if (f == nullptr) continue;
    EXPECT_FALSE(f->is_pure()) << plan.gvar->name_hint();
    mod.Update(plan.gvar, ir::Make<ir::FunctionNode>(f->params(), f->body(), f->ret_struct_info(),
                                                     /*is_pure=*/true, f->attrs(), f->span()));
  }
  return mod;
}

class MlcRewrite : public testing::TestWithParam<std::string> {};

TEST_P(MlcRewrite, EqualsMlcsOutputButForTheDispatchersPurity) {
  fs::path dir = CorpusDir();
  if (dir.empty()) GTEST_SKIP() << "shared/corpus/mlc-llm-2026 is absent";
  fs::path ppr = dir / "llama-q0f32" / GetParam() / "mlc-ppr";
  ir::IRModule before = Load(ppr / "before-ppr.py");
  ir::IRModule mlc = Load(ppr / "after-ppr.py");
  StagePlanOptions options;
  options.param_order = StageParamOrder::kFirstUse;
  std::vector<StagePlan> plans;
  ir::IRModule ours = RewritePipelineStages(before, &plans, options);
  EXPECT_GE(plans.size(), 10u);  // prefill, decode, their batch_ and _to_last_hidden_states forms
  analysis::StructuralDifference difference;
  EXPECT_TRUE(analysis::StructuralEqual(WithPureDispatchers(ours, plans), mlc, &difference))
      << difference.ToString();
  // As is, the dispatchers are the one difference.
  EXPECT_FALSE(analysis::StructuralEqual(ours, mlc));
}

TEST_P(MlcRewrite, TheDefaultOrderKeepsTheFunctionsParameterOrder) {
  fs::path dir = CorpusDir();
  if (dir.empty()) GTEST_SKIP() << "shared/corpus/mlc-llm-2026 is absent";
  ir::IRModule before = Load(dir / "llama-q0f32" / GetParam() / "mlc-ppr" / "before-ppr.py");
  std::vector<StagePlan> plans;
  RewritePipelineStages(before, &plans);
  for (const StagePlan& plan : plans) {
    const std::vector<ir::Var>& declared = plan.func->params();
    for (const Stage& stage : plan.stages) {
      size_t at = 0;
      for (const ir::Var& p : stage.params) {
        while (at < declared.size() && declared[at].get() != p.get()) ++at;
        EXPECT_LT(at, declared.size()) << plan.gvar->name_hint() << " stage " << stage.index
                                       << ": '" << p->name_hint() << "' out of order";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, MlcRewrite, testing::Values("cpu-pp2", "cuda-pp2", "cpu-tp2pp2"),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace pipesplit::transform
