// Printer round trips on the real IR corpus (shared/corpus, read in place; skipped when
// absent): the MLC-LLM dumps must reproduce byte for byte; TVM's own printer output
// (tvm-printer/*.tvm.py) must reproduce; hand-written inputs (*.in.py) are compared with what
// TVM printed for them; printing is idempotent on everything that parses.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "pipesplit/script/parser.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/diagnostic.h"
#include "pipesplit/support/text.h"
#include "tests/script/mlc_defaults.h"

namespace pipesplit::script {
namespace {

namespace fs = std::filesystem;

const fs::path kCorpus = fs::path(PIPESPLIT_SOURCE_DIR) / ".." / "shared" / "corpus";

std::string Read(const fs::path& path) {
  std::string text, error;
  if (!ReadFile(path.string(), &text, &error)) ADD_FAILURE() << error;
  return text;
}

// "line N: expected `...` got `...`" for the first line where the texts differ.
std::string FirstDifference(const std::string& expected, const std::string& actual) {
  std::istringstream e(expected), a(actual);
  std::string le, la;
  for (int line = 1;; ++line) {
    bool he = static_cast<bool>(std::getline(e, le));
    bool ha = static_cast<bool>(std::getline(a, la));
    if (!he && !ha) return "texts differ only in the final newline";
    if (!he) le = "<end of text>";
    if (!ha) la = "<end of text>";
    if (!he || !ha || le != la) {
      return "line " + std::to_string(line) + ":\n  expected: " + le + "\n  printed:  " + la;
    }
  }
}

// Parses and prints; sets *error instead when the parser rejects the text.
bool RoundTrip(const std::string& text, const std::string& name, std::string* printed,
               std::string* error) {
  try {
    *printed = PrintModule(ParseModule(text, name));
    return true;
  } catch (const DiagnosticError& e) {
    *error = e.what();
  } catch (const std::exception& e) {
    *error = std::string("exception: ") + e.what();
  }
  return false;
}

std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

class MlcRoundTrip : public ::testing::TestWithParam<const char*> {};

TEST_P(MlcRoundTrip, PrintsTheDumpByteForByte) {
  fs::path path = kCorpus / "mlc-llm-2023" / GetParam();
  if (!fs::exists(path)) GTEST_SKIP() << "corpus not available: " << path;
  std::string text = Read(path);
  std::string printed, error;
  ASSERT_TRUE(RoundTrip(text, path.filename().string(), &printed, &error)) << error;
  // Byte for byte, apart from attributes newer than the dump that now print with their default.
  int added = 0;
  std::string comparable = testing::WithoutPost2023Defaults(printed, &added);
  EXPECT_TRUE(comparable == text) << GetParam() << ": " << FirstDifference(text, comparable);
  if (added > 0) std::cout << "[mlc] " << GetParam() << ": " << added << " defaults added\n";
  // Printing what was printed gives the same text again.
  std::string again;
  ASSERT_TRUE(RoundTrip(printed, "printed", &again, &error)) << error;
  EXPECT_TRUE(again == printed) << FirstDifference(printed, again);
}

INSTANTIATE_TEST_SUITE_P(Corpus, MlcRoundTrip,
                         ::testing::Values("0.before_quantize.py", "1.gourp_quantized.py",
                                           "2.get_pipeline.py", "3.fuse_decode_matmul_ewise.py",
                                           "4.dead_code_elim.py", "5.liftTransformParams.py",
                                           "6a.split_transform_deploy.transform_params.py",
                                           "6b.split_transform_deploy.deploy.py"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace_if(
                               name.begin(), name.end(),
                               [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
                               '_');
                           return name;
                         });

std::vector<fs::path> Files(const std::string& suffix) {
  std::vector<fs::path> out;
  fs::path dir = kCorpus / "tvm-printer";
  if (!fs::exists(dir)) return out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name.size() > suffix.size() && name.ends_with(suffix)) out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Reports the files of one corpus check: counts, then every parse or idempotence failure and
// the first differences (at most 40).
struct Report {
  int total = 0, parsed = 0, exact = 0, idempotent = 0;
  std::vector<std::string> problems;     // parse errors, idempotence failures
  std::vector<std::string> differences;  // first differing line of each inexact file
  std::vector<std::string> unexpected;   // idempotence failures not known to come from the parser
  void Print(const std::string& title) const {
    std::cout << "[corpus] " << title << ": " << exact << "/" << total << " exact, " << parsed
              << " parsed, " << idempotent << "/" << parsed << " idempotent\n";
    for (const std::string& p : problems) std::cout << "  " << p << "\n";
    for (size_t i = 0; i < differences.size() && i < 40; ++i) {
      std::cout << "  " << differences[i] << "\n";
    }
    if (differences.size() > 40) std::cout << "  ... " << differences.size() - 40 << " more\n";
  }
};

// Inputs whose printed text does not parse back the same because of the parser, not the
// printer (none today: add one here only with the reason).
const std::set<std::string> kKnownParserIssues = {};

void Check(const fs::path& input, const std::string& expected, const PrintOptions& options,
           Report* report) {
  ++report->total;
  std::string name = input.filename().string();
  std::string printed, error;
  try {
    printed = PrintModule(ParseModule(Read(input), name), options);
  } catch (const std::exception& e) {
    report->problems.push_back(name + ": parse error: " + FirstLine(e.what()));
    return;
  }
  ++report->parsed;
  if (printed == expected) {
    ++report->exact;
  } else {
    report->differences.push_back(name + ": " + FirstDifference(expected, printed));
  }
  std::string again;
  try {
    again = PrintModule(ParseModule(printed, name), options);
  } catch (const std::exception& e) {
    error = FirstLine(e.what());
  }
  if (error.empty() && again == printed) {
    ++report->idempotent;
    return;
  }
  std::string problem =
      name + ": not idempotent: " + (error.empty() ? FirstDifference(printed, again) : error);
  report->problems.push_back(problem);
  if (kKnownParserIssues.count(name) == 0) report->unexpected.push_back(problem);
}

// Floors measured when the tests were written (regression guards): every file. The parser
// completes op attributes as TVM does, so inputs print the same with and without
// PrintOptions::complete_attrs.
constexpr int kMinTvmExact = 1260;
constexpr int kMinInExact = 1260;
constexpr int kMinInExactCompleted = 1260;

TEST(PrinterCorpusTest, TvmOutputReproduces) {
  std::vector<fs::path> files = Files(".tvm.py");
  if (files.empty()) GTEST_SKIP() << "corpus not available";
  Report report;
  for (const fs::path& f : files) Check(f, Read(f), {}, &report);
  report.Print("tvm-printer/*.tvm.py, print(parse(x)) == x");
  EXPECT_GE(report.exact, kMinTvmExact);
  EXPECT_EQ(report.parsed, report.total);
  EXPECT_TRUE(report.unexpected.empty()) << report.unexpected.front();
}

void CheckInputs(const PrintOptions& options, const std::string& title, int floor) {
  std::vector<fs::path> files = Files(".in.py");
  if (files.empty()) GTEST_SKIP() << "corpus not available";
  Report report;
  for (const fs::path& f : files) {
    std::string stem = f.filename().string();
    stem.resize(stem.size() - std::string(".in.py").size());
    fs::path expected = f.parent_path() / (stem + ".tvm.py");
    if (fs::exists(expected)) Check(f, Read(expected), options, &report);
  }
  report.Print(title);
  EXPECT_GE(report.exact, floor);
  EXPECT_TRUE(report.unexpected.empty()) << report.unexpected.front();
}

TEST(PrinterCorpusTest, HandWrittenInputsPrintAsTvmDoes) {
  CheckInputs({}, "tvm-printer/*.in.py, print(parse(in)) == tvm", kMinInExact);
}

TEST(PrinterCorpusTest, HandWrittenInputsWithCompletedAttrs) {
  PrintOptions options;
  options.complete_attrs = true;
  CheckInputs(options, "tvm-printer/*.in.py, attrs completed, print(parse(in)) == tvm",
              kMinInExactCompleted);
}

}  // namespace
}  // namespace pipesplit::script
