// Golden tests of the passes, driven by the files in tests/transform/golden/:
//
//   <name>.input.py     a module; its first line is `# RUN: <pipeline>`
//   <name>.expected.py  what the pipeline must produce (compared structurally)
//   <name>.error.py     `# RUN: <pipeline>` and, next to each offending line, a directive
//                       naming the diagnostic it must produce (below)
//
// On a mismatch the test prints the first difference and both modules.
//
// Expected errors. A comment line of the form
//
//   # expected-error @+N:COL {{message}}      (or @-N:COL)
//
// expects a diagnostic located N lines below (above) the directive's own line, at column COL
// (1-based, as diagnostics count), whose message is exactly `message`. N is at least 1; the
// directive usually sits on the line just above the offending one (@+1), indented like it.
// For example
//
//         # expected-error @+1:9 {{'main' must return a variable}}
//         return (gv,)
//
// Comments are ignored by the parser, so a directive moves the lines below it but changes
// nothing else; its offset is counted from its own position, so it keeps pointing at its line.
// The diagnostics must be exactly those expected, in the order of the directives in the file.
// A comment that mentions expected-error but does not parse as a directive fails the test.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "pipesplit/analysis/pipeline_checks.h"
#include "pipesplit/analysis/structural_equal.h"
#include "pipesplit/analysis/well_formed.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/diagnostic.h"
#include "pipesplit/support/text.h"
#include "pipesplit/transform/pass.h"

namespace pipesplit {
namespace {

namespace fs = std::filesystem;

const fs::path kGoldenDir = fs::path(PIPESPLIT_SOURCE_DIR) / "tests/transform/golden";

std::vector<std::string> CasesWithSuffix(const std::string& suffix) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kGoldenDir)) {
    std::string file = entry.path().filename().string();
    if (file.size() > suffix.size() && file.ends_with(suffix)) {
      names.push_back(file.substr(0, file.size() - suffix.size()));
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string Read(const fs::path& path) {
  std::string text, error;
  EXPECT_TRUE(ReadFile(path.string(), &text, &error)) << error;
  return text;
}

std::string RunLine(const std::string& text) {
  std::smatch m;
  static const std::regex kRun("^# RUN: (.*)$", std::regex::multiline);
  if (!std::regex_search(text, m, kRun)) return {};
  return m[1].str();
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
  }
  return lines;
}

// The diagnostics a .error.py file expects, each as "<path>:<line>:<col>: <message>" (the form
// SourceManager::Describe gives), in file order. Malformed directives are reported as failures.
std::vector<std::string> ExpectedErrors(const std::string& text, const std::string& path) {
  static const std::regex kDirective(
      R"(^\s*# expected-error @([+-])([0-9]+):([0-9]+) \{\{(.*)\}\}$)");
  std::vector<std::string> lines = SplitLines(text);
  std::vector<std::string> expected;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    const int line_no = static_cast<int>(i) + 1;
    EXPECT_EQ(line.find("EXPECT-ERROR"), std::string::npos)
        << path << ":" << line_no << ": the '# EXPECT-ERROR:' header is replaced by "
        << "'# expected-error @+N:COL {{message}}' next to the offending line";
    if (line.find("expected-error") == std::string::npos) continue;
    std::smatch m;
    if (!std::regex_match(line, m, kDirective)) {
      ADD_FAILURE() << path << ":" << line_no << ": malformed directive (expected "
                    << "'# expected-error @+N:COL {{message}}'): " << line;
      continue;
    }
    const int offset = std::stoi(m[2].str());
    const int target = m[1].str() == "+" ? line_no + offset : line_no - offset;
    if (offset == 0 || target < 1 || target > static_cast<int>(lines.size())) {
      ADD_FAILURE() << path << ":" << line_no << ": directive points outside the file: " << line;
      continue;
    }
    expected.push_back(path + ":" + std::to_string(target) + ":" + m[3].str() + ": " + m[4].str());
  }
  return expected;
}

std::string TestName(const testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  std::replace_if(
      name.begin(), name.end(), [](char c) { return !std::isalnum(c); }, '_');
  return name;
}

class GoldenTest : public testing::TestWithParam<std::string> {};

TEST_P(GoldenTest, MatchesExpected) {
  const fs::path input_path = kGoldenDir / (GetParam() + ".input.py");
  const fs::path expected_path = kGoldenDir / (GetParam() + ".expected.py");
  std::string input_text = Read(input_path);
  std::string pipeline = RunLine(input_text);
  ASSERT_FALSE(pipeline.empty()) << input_path << " has no '# RUN:' line";
  try {
    ir::IRModule input = script::ParseModule(input_text, input_path.string());
    transform::PassContext ctx;
    ctx.verify_each = true;
    ir::IRModule output = transform::ParsePipeline(pipeline)->Run(input, ctx);
    ir::IRModule expected = script::ParseModule(Read(expected_path), expected_path.string());
    analysis::StructuralDifference diff;
    bool equal = analysis::StructuralEqual(output, expected, &diff);
    EXPECT_TRUE(equal) << "first difference: " << diff.ToString() << "\n--- produced ---\n"
                       << script::PrintModule(output) << "--- expected ---\n"
                       << script::PrintModule(expected);
    // The output is well-formed, its sends and receives pair up, and it survives a round
    // trip through the printer and the parser.
    EXPECT_TRUE(analysis::CheckWellFormed(output).empty());
    EXPECT_TRUE(analysis::CheckSendRecvPairing(output).empty());
    std::string printed = script::PrintModule(output);
    ir::IRModule reparsed = script::ParseModule(printed, "<printed>");
    EXPECT_TRUE(analysis::StructuralEqual(reparsed, output, &diff)) << diff.ToString();
  } catch (const DiagnosticError& e) {
    FAIL() << "unexpected diagnostics:\n" << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Golden, GoldenTest, testing::ValuesIn(CasesWithSuffix(".input.py")),
                         TestName);

class ExpectedErrorTest : public testing::TestWithParam<std::string> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ExpectedErrorTest);

TEST_P(ExpectedErrorTest, ReportsTheErrors) {
  const fs::path path = kGoldenDir / (GetParam() + ".error.py");
  std::string text = Read(path);
  std::string pipeline = RunLine(text);
  ASSERT_FALSE(pipeline.empty()) << path << " has no '# RUN:' line";
  std::vector<std::string> expected = ExpectedErrors(text, path.string());
  ASSERT_FALSE(HasFailure()) << "malformed expectations in " << path;
  ASSERT_FALSE(expected.empty()) << path << " has no '# expected-error' directive";
  try {
    ir::IRModule input = script::ParseModule(text, path.string());
    transform::PassContext ctx;
    transform::ParsePipeline(pipeline)->Run(input, ctx);
    FAIL() << "no error reported; expected: " << expected[0];
  } catch (const DiagnosticError& e) {
    std::vector<std::string> got;
    for (const Diagnostic& d : e.diagnostics()) {
      got.push_back(SourceManager::Global().Describe(d.span) + ": " + d.message);
    }
    EXPECT_EQ(got, expected) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Golden, ExpectedErrorTest, testing::ValuesIn(CasesWithSuffix(".error.py")),
                         TestName);

}  // namespace
}  // namespace pipesplit
