// MLC-LLM's 2026 dumps (shared/corpus/mlc-llm-2026: `mlc_llm compile --debug-dump` on TVM
// 5d4dc87, CPU and CUDA, every phase, tensor-parallel ones, MLC's own pipeline-parallel rewrite),
// read in place and skipped when absent: each prints back byte for byte (the dumps end without
// a final newline, the printer with one), printing what was printed gives it again, and the
// modules before MLC's memory planning (phases 0-4, before-ppr.py) are well-formed with their
// sends and receives paired.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "pipesplit/analysis/pipeline_checks.h"
#include "pipesplit/analysis/well_formed.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/diagnostic.h"
#include "pipesplit/support/text.h"
#include "tests/mlc2026_corpus_dir.h"

namespace pipesplit::script {
namespace {

namespace fs = std::filesystem;

fs::path CorpusDir() { return testing_corpus::Mlc2026Dir(); }

// Every .py under the corpus folder, relative to it, sorted.
std::vector<std::string> Dumps() {
  std::vector<std::string> out;
  fs::path dir = CorpusDir();
  if (dir.empty()) return out;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".py") {
      out.push_back(fs::relative(entry.path(), dir).string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string Read(const fs::path& path) {
  std::string text, error;
  if (!ReadFile(path.string(), &text, &error)) ADD_FAILURE() << error;
  return text;
}

// "line N: expected ... printed ..." for the first line where the texts differ.
std::string FirstDifference(const std::string& expected, const std::string& actual) {
  std::istringstream e(expected), a(actual);
  std::string le, la;
  for (int line = 1;; ++line) {
    bool he = static_cast<bool>(std::getline(e, le));
    bool ha = static_cast<bool>(std::getline(a, la));
    if (!he && !ha) return "texts differ only in line endings";
    if (!he || !ha || le != la) {
      return "line " + std::to_string(line) + ":\n  expected: " + (he ? le : "<end>") +
             "\n  printed:  " + (ha ? la : "<end>");
    }
  }
}

class Mlc2026Dump : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam().empty()) GTEST_SKIP() << "corpus mlc-llm-2026 not available";
    path_ = CorpusDir() / GetParam();
  }
  fs::path path_;
};

TEST_P(Mlc2026Dump, PrintsBackByteForByte) {
  std::string text = Read(path_);
  std::string printed;
  try {
    printed = PrintModule(ParseModule(text, GetParam()));
  } catch (const DiagnosticError& e) {
    FAIL() << e.what();
  }
  // The dump has no final newline; the printer ends with one.
  ASSERT_FALSE(text.ends_with('\n'));
  EXPECT_TRUE(printed == text + "\n") << FirstDifference(text + "\n", printed);
}

TEST_P(Mlc2026Dump, PrintingIsAFixedPoint) {
  std::string printed = PrintModule(ParseModule(Read(path_), GetParam()));
  std::string again = PrintModule(ParseModule(printed, "printed/" + GetParam()));
  EXPECT_TRUE(again == printed) << FirstDifference(printed, again);
}

TEST_P(Mlc2026Dump, BeforeMemoryPlanningIsWellFormed) {
  // Phase 5 (after MLC's rewrite and memory planning) and after-ppr.py (MLC's rewrite marks its
  // dispatcher pure) are not required to pass.
  std::string name = path_.filename().string();
  bool checked =
      name == "before-ppr.py" || (name.starts_with("debug-phase") && name != "debug-phase5.py");
  if (!checked) GTEST_SKIP() << "not a module before memory planning";
  ir::IRModule mod = ParseModule(Read(path_), GetParam());
  std::vector<Diagnostic> problems = analysis::CheckWellFormed(mod);
  std::vector<Diagnostic> pairing = analysis::CheckSendRecvPairing(mod);
  problems.insert(problems.end(), pairing.begin(), pairing.end());
  EXPECT_TRUE(problems.empty()) << DiagnosticError(std::move(problems)).what();
}

std::vector<std::string> DumpsOrPlaceholder() {
  std::vector<std::string> dumps = Dumps();
  if (dumps.empty()) dumps.push_back("");  // one skipped instance when the corpus is absent
  return dumps;
}

INSTANTIATE_TEST_SUITE_P(Corpus, Mlc2026Dump, ::testing::ValuesIn(DumpsOrPlaceholder()),
                         [](const auto& info) {
                           std::string name = info.param.empty() ? "absent" : info.param;
                           std::replace_if(
                               name.begin(), name.end(),
                               [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
                               '_');
                           return name;
                         });

// The corpus holds the 50 dumps its README lists (46, and the phase 4 and 5 dumps of the two
// TinyLlamas): a guard against reading a partial copy.
TEST(Mlc2026Corpus, HoldsEveryDump) {
  std::vector<std::string> dumps = Dumps();
  if (dumps.empty()) GTEST_SKIP() << "corpus mlc-llm-2026 not available";
  EXPECT_EQ(dumps.size(), 50u);
}

}  // namespace
}  // namespace pipesplit::script
