// Golden tests of the fast path's pattern match (codegen/fast_path.h): the kernels of
// tests/codegen/fast_path/*.py each carry `# expect NAME: fast: DESCRIPTION` (what the match
// must recognise) or `# expect NAME: written: REASON` (why it must refuse), and every MLC CPU
// kernel of the 2026 corpus's big matmuls is recognised whatever its name or schedule.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "pipesplit/codegen/fast_path.h"
#include "pipesplit/script/parser.h"
#include "tests/codegen/kernel_test_util.h"
#include "tests/mlc2026_corpus_dir.h"

namespace pipesplit::codegen {
namespace {

namespace fs = std::filesystem;

using testing::ReadText;

std::map<std::string, FastPathMatch> MatchAll(const ir::IRModule& mod) {
  std::map<std::string, FastPathMatch> out;
  for (const ir::IRModule::Member& m : mod.members()) {
    if (!ir::Is<ir::PrimFuncNode>(m.func)) continue;
    out[m.gvar->name_hint()] =
        MatchFastPath(std::static_pointer_cast<const ir::PrimFuncNode>(m.func));
  }
  return out;
}

TEST(FastPathMatchTest, Golden) {
  const fs::path dir = fs::path(PIPESPLIT_SOURCE_DIR) / "tests/codegen/fast_path";
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".py") continue;
    ++files;
    const std::string text = ReadText(entry.path());
    std::map<std::string, std::pair<std::string, std::string>> expected;
    const std::regex line(R"(^ *# expect (\w+): (fast|written): (.*)$)");
    std::istringstream lines(text);
    for (std::string l; std::getline(lines, l);) {
      std::smatch m;
      if (std::regex_match(l, m, line)) expected[m[1]] = {m[2], m[3]};
    }
    const std::map<std::string, FastPathMatch> matches =
        MatchAll(script::ParseModule(text, entry.path().string()));
    for (const auto& [name, match] : matches) {
      SCOPED_TRACE(entry.path().filename().string() + ": " + name);
      auto it = expected.find(name);
      ASSERT_NE(it, expected.end()) << "no `# expect " << name << ":` line";
      const auto& [path, what] = it->second;
      if (path == "fast") {
        ASSERT_TRUE(match.contraction.has_value()) << "refused: " << match.refusal;
        EXPECT_EQ(match.contraction->description, what);
      } else {
        EXPECT_FALSE(match.contraction.has_value()) << match.contraction->description;
        EXPECT_EQ(match.refusal, what);
      }
      expected.erase(it);
    }
    for (const auto& [name, unused] : expected) ADD_FAILURE() << "no kernel " << name;
  }
  EXPECT_GT(files, 0);
}

// In MLC's CPU modules every matmul of the model (the q/k/v, o, gate/up and down projections
// and the head, for prefill, decode and batches, scheduled by dlight or not) is recognised, and
// nothing else is.
TEST(FastPathMatchTest, EveryMatmulOfTheCorpus) {
  const fs::path corpus = testing_corpus::Mlc2026Dir();
  if (corpus.empty()) GTEST_SKIP() << "no MLC 2026 corpus";
  for (const char* model :
       {"llama-q0f32", "llama-q4f16_1", "tinyllama-q4f16_1", "tinyllama-q0f16"}) {
    for (const char* phase : {"debug-phase4.py", "debug-phase5.py"}) {
      const fs::path path = corpus / model / "cpu-pp1" / phase;
      if (!fs::exists(path)) continue;
      SCOPED_TRACE(path.string());
      const std::map<std::string, FastPathMatch> matches =
          MatchAll(script::ParseModule(ReadText(path), path.string()));
      int fast = 0;
      for (const auto& [name, match] : matches) {
        // MLC names a kernel after what it fuses; the match never looks at the name, the test
        // uses it to know what to expect.
        const bool matmul = name.find("matmul") != std::string::npos;
        EXPECT_EQ(match.contraction.has_value(), matmul)
            << name << ": " << (match.contraction ? match.contraction->description : match.refusal);
        fast += match.contraction.has_value();
      }
      EXPECT_GE(fast, 8);
    }
  }
}

}  // namespace
}  // namespace pipesplit::codegen
