// The pass registry: every pass is documented and has a golden test; pipelines parse with
// typed options and located errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "pipesplit/support/diagnostic.h"
#include "pipesplit/support/text.h"
#include "pipesplit/transform/pass.h"

namespace pipesplit::transform {
namespace {

namespace fs = std::filesystem;

TEST(PassRegistryTest, EveryPassHasASummaryAndAGoldenTest) {
  // Pass names used in the RUN lines of the golden inputs.
  std::set<std::string> tested;
  static const std::regex kRun("^# RUN: (.*)$", std::regex::multiline);
  for (const auto& entry :
       fs::directory_iterator(fs::path(PIPESPLIT_SOURCE_DIR) / "tests/transform/golden")) {
    if (!entry.path().string().ends_with(".input.py")) continue;
    std::string text, error;
    ASSERT_TRUE(ReadFile(entry.path().string(), &text, &error)) << error;
    std::smatch m;
    if (!std::regex_search(text, m, kRun)) continue;
    for (const PassInfo& info : RegisteredPasses()) {
      if (m[1].str().find(info.name) != std::string::npos) tested.insert(info.name);
    }
  }
  ASSERT_FALSE(RegisteredPasses().empty());
  for (const PassInfo& info : RegisteredPasses()) {
    EXPECT_FALSE(info.summary.empty()) << info.name;
    EXPECT_EQ(info.summary.find('\n'), std::string::npos) << info.name;
    EXPECT_TRUE(tested.count(info.name)) << "no golden test runs pass " << info.name;
    for (const PassOptionSpec& option : info.options) {
      EXPECT_FALSE(option.help.empty()) << info.name << "." << option.name;
    }
  }
}

TEST(PassRegistryTest, RegistryIsSortedAndUnique) {
  const auto& passes = RegisteredPasses();
  for (size_t i = 1; i < passes.size(); ++i) EXPECT_LT(passes[i - 1].name, passes[i].name);
}

TEST(PipelineTest, ParsesPassesAndOptions) {
  auto pipeline = ParsePipeline("verify, attach-pipeline-stages{stages=4, funcs=a;b} ,verify");
  ASSERT_EQ(pipeline->passes().size(), 3u);
  EXPECT_EQ(pipeline->passes()[1]->name(), "attach-pipeline-stages");
}

std::string PipelineError(const std::string& text) {
  try {
    ParsePipeline(text, "p");
  } catch (const DiagnosticError& e) {
    const Diagnostic& d = e.diagnostics().at(0);
    return SourceManager::Global().Describe(d.span) + ": " + d.message;
  }
  return "no error";
}

TEST(PipelineTest, ErrorsAreLocated) {
  EXPECT_EQ(PipelineError(""), "p:1:1: empty pass pipeline");
  EXPECT_EQ(PipelineError("verify;verify"), "p:1:7: expected ',' between passes");
  EXPECT_EQ(PipelineError("verify,,verify"), "p:1:8: expected a pass name");
  EXPECT_EQ(PipelineError("verify,nope"), "p:1:8: unknown pass 'nope' (see 'pipesplit passes')");
  EXPECT_EQ(PipelineError("verify{x=1}"), "p:1:8: pass 'verify' has no option 'x'");
  EXPECT_EQ(PipelineError("attach-pipeline-stages{stages=2,stages=3}"),
            "p:1:33: option 'stages' given twice");
  EXPECT_EQ(PipelineError("attach-pipeline-stages{stages}"),
            "p:1:30: expected '=' after option 'stages'");
  EXPECT_EQ(PipelineError("attach-pipeline-stages{stages=}"),
            "p:1:31: option 'stages' has an empty value");
  EXPECT_EQ(PipelineError("attach-pipeline-stages{stages=2x}"),
            "p:1:31: option 'stages' expects an integer, got '2x'");
  EXPECT_EQ(PipelineError("attach-pipeline-stages{stages=0}"),
            "p:1:31: attach-pipeline-stages: stages must be at least 1, got 0");
  EXPECT_EQ(PipelineError("attach-pipeline-stages"),
            "p:1:1: pass 'attach-pipeline-stages' needs option 'stages'");
  EXPECT_EQ(PipelineError("pipeline-parallel-rewrite{param-order=mlc}"),
            "p:1:39: pipeline-parallel-rewrite: param-order must be 'original' or 'first-use', "
            "not 'mlc'");
  EXPECT_EQ(PipelineError("pipeline-parallel-rewrite{param-order=first-use}"), "no error");
  EXPECT_EQ(PipelineError("attach-pipeline-stages{stages=2"),
            "p:1:1: unterminated option list of pass 'attach-pipeline-stages' (missing '}')");
}

}  // namespace
}  // namespace pipesplit::transform
