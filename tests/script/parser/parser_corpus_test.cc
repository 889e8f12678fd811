// Parses the real IR of the shared corpus: every MLC-LLM dump and every TVM printer output
// must parse; the hand-written TVM test inputs (*.in.py) are counted, and the first
// diagnostic line of each failure is printed so that what is missing is visible.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "pipesplit/script/parser.h"
#include "pipesplit/support/diagnostic.h"
#include "pipesplit/support/text.h"

namespace pipesplit::script {
namespace {

namespace fs = std::filesystem;

fs::path CorpusDir() { return fs::path(PIPESPLIT_SOURCE_DIR) / ".." / "shared" / "corpus"; }

std::vector<fs::path> FilesEndingWith(const fs::path& dir, const std::string& suffix) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name.size() >= suffix.size() && name.substr(name.size() - suffix.size()) == suffix) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct Outcome {
  size_t passed = 0;
  std::vector<std::string> failures;  // first diagnostic line of each failure
};

Outcome ParseAll(const std::vector<fs::path>& files) {
  Outcome out;
  for (const fs::path& path : files) {
    std::string text, error;
    if (!ReadFile(path.string(), &text, &error)) {
      out.failures.push_back(path.filename().string() + ": cannot read: " + error);
      continue;
    }
    try {
      ParseModule(text, path.filename().string());
      ++out.passed;
    } catch (const DiagnosticError& e) {
      std::string what = e.what();
      out.failures.push_back(what.substr(0, what.find('\n')));
    } catch (const std::exception& e) {
      out.failures.push_back(path.filename().string() + ": internal error: " + e.what());
    }
  }
  return out;
}

void Report(const char* what, const Outcome& outcome, size_t total) {
  std::cout << what << ": " << outcome.passed << " / " << total << " parse\n";
  for (const std::string& f : outcome.failures) std::cout << "  " << f << "\n";
}

TEST(ParserCorpus, MlcLlm2023AllParse) {
  fs::path dir = CorpusDir() / "mlc-llm-2023";
  if (!fs::exists(dir)) GTEST_SKIP() << "corpus not present at " << dir;
  std::vector<fs::path> files = FilesEndingWith(dir, ".py");
  ASSERT_FALSE(files.empty());
  Outcome outcome = ParseAll(files);
  Report("mlc-llm-2023", outcome, files.size());
  EXPECT_EQ(outcome.passed, files.size());
}

TEST(ParserCorpus, TvmPrinterOutputsAllParse) {
  fs::path dir = CorpusDir() / "tvm-printer";
  if (!fs::exists(dir)) GTEST_SKIP() << "corpus not present at " << dir;
  std::vector<fs::path> files = FilesEndingWith(dir, ".tvm.py");
  ASSERT_FALSE(files.empty());
  Outcome outcome = ParseAll(files);
  Report("tvm-printer *.tvm.py", outcome, files.size());
  EXPECT_EQ(outcome.passed, files.size());
}

TEST(ParserCorpus, TvmPrinterInputsMostlyParse) {
  fs::path dir = CorpusDir() / "tvm-printer";
  if (!fs::exists(dir)) GTEST_SKIP() << "corpus not present at " << dir;
  std::vector<fs::path> files = FilesEndingWith(dir, ".in.py");
  ASSERT_FALSE(files.empty());
  Outcome outcome = ParseAll(files);
  Report("tvm-printer *.in.py", outcome, files.size());
  EXPECT_GE(outcome.passed * 100, files.size() * 95);
}

}  // namespace
}  // namespace pipesplit::script
