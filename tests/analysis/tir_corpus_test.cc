// TVM's 2026 TIR printing over ../shared/corpus/tvm-printer-tir (read in place; skipped when
// absent): for each hand-written input (*.in.py), fmt should print what TVM printed for it
// (*.tvm.py) byte for byte, or at least a module structurally equal to TVM's. Counts the
// byte-identical and structurally equal results, prints them with the failures grouped by
// class, and fails below the floors measured when the test was written. Also checks that the
// spelling (T.block or T.sblock) is not part of structural equality.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pipesplit/analysis/structural_equal.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/diagnostic.h"
#include "pipesplit/support/text.h"

namespace pipesplit::analysis {
namespace {

namespace fs = std::filesystem;

const fs::path kDir =
    fs::path(PIPESPLIT_SOURCE_DIR) / ".." / "shared" / "corpus" / "tvm-printer-tir";

std::string Read(const fs::path& path) {
  std::string text, error;
  EXPECT_TRUE(ReadFile(path.string(), &text, &error)) << error;
  return text;
}

// The diagnostic's message without its location, for grouping ("error: ..." up to a quote).
std::string ErrorClass(const std::string& what) {
  std::string line = what.substr(0, what.find('\n'));
  size_t at = line.find("error: ");
  if (at != std::string::npos) line = line.substr(at + 7);
  size_t quote = line.find_first_of("'\"");
  return quote == std::string::npos ? line : line.substr(0, quote) + "...";
}

std::optional<ir::IRModule> TryParse(const std::string& text, const std::string& name,
                                     std::string* error) {
  try {
    return script::ParseModule(text, name);
  } catch (const DiagnosticError& e) {
    *error = e.what();
  }
  return std::nullopt;
}

struct Tally {
  int total = 0, identical = 0, equal = 0;
  std::map<std::string, int> classes;  // failure class -> count
  std::vector<std::string> examples;   // the first file of each class

  void Fail(const std::string& cls, const std::string& name) {
    if (classes[cls]++ == 0) examples.push_back(cls + ": " + name);
  }
};

// Floors measured when the test was written (regression guards).
constexpr int kMinIdentical = 401;
constexpr int kMinEqual = 405;  // byte-identical or structurally equal

TEST(TirCorpusTest, InputsPrintAsTvm2026Does) {
  if (!fs::is_directory(kDir)) GTEST_SKIP() << "corpus not available: " << kDir;
  std::vector<fs::path> inputs;
  for (const auto& entry : fs::directory_iterator(kDir)) {
    if (entry.path().filename().string().ends_with(".in.py")) inputs.push_back(entry.path());
  }
  std::sort(inputs.begin(), inputs.end());
  Tally tally;
  for (const fs::path& in : inputs) {
    std::string name = in.filename().string();
    std::string stem = name.substr(0, name.size() - std::string(".in.py").size());
    fs::path expected_path = kDir / (stem + ".tvm.py");
    if (!fs::exists(expected_path)) continue;
    ++tally.total;
    std::string expected = Read(expected_path);
    std::string error;
    std::optional<ir::IRModule> mod = TryParse(Read(in), name, &error);
    if (!mod) {
      tally.Fail("input does not parse: " + ErrorClass(error), name);
      continue;
    }
    std::string printed = script::PrintModule(*mod);
    if (printed == expected) {
      ++tally.identical;
      continue;
    }
    std::optional<ir::IRModule> tvm = TryParse(expected, stem + ".tvm.py", &error);
    if (!tvm) {
      tally.Fail("TVM's output does not parse: " + ErrorClass(error), name);
      continue;
    }
    StructuralDifference diff;
    if (StructuralEqual(*mod, *tvm, &diff)) {
      ++tally.equal;
      continue;
    }
    std::string path = diff.path.substr(0, diff.path.find_first_of("[0123456789"));
    tally.Fail("structurally different at " + path, name);
  }
  int failing = tally.total - tally.identical - tally.equal;
  std::cout << "[tvm-printer-tir] " << tally.identical << "/" << tally.total << " byte-identical, "
            << tally.equal << " structurally equal, " << failing << " failing\n";
  for (const auto& [cls, count] : tally.classes) std::cout << "  " << count << "  " << cls << "\n";
  for (const std::string& e : tally.examples) std::cout << "  e.g. " << e << "\n";
  EXPECT_GE(tally.identical, kMinIdentical);
  EXPECT_GE(tally.identical + tally.equal, kMinEqual);
}

// Converting the spelling changes the text, never the IR.
TEST(TirCorpusTest, SpellingIsNotPartOfStructuralEquality) {
  if (!fs::is_directory(kDir)) GTEST_SKIP() << "corpus not available: " << kDir;
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(kDir)) {
    std::string name = entry.path().filename().string();
    if (!name.ends_with(".tvm.py") || checked >= 40) continue;
    std::string error;
    std::optional<ir::IRModule> mod = TryParse(Read(entry.path()), name, &error);
    if (!mod) continue;
    script::PrintOptions to_block;
    to_block.tir_syntax = ir::TirSyntax::kBlock;
    std::string block_text = script::PrintModule(*mod, to_block);
    ir::IRModule block = script::ParseModule(block_text, name + " (T.block)");
    EXPECT_EQ(block.script_style().tir_syntax, ir::TirSyntax::kBlock) << name;
    StructuralDifference diff;
    EXPECT_TRUE(StructuralEqual(*mod, block, &diff)) << name << ": " << diff.ToString();
    EXPECT_EQ(StructuralHash(*mod), StructuralHash(block)) << name;
    EXPECT_EQ(block_text.find("T.sblock"), std::string::npos) << name;
    // And back: the same IR again (a function without blocks does not get its s_tir=True
    // back, so the text may differ there).
    script::PrintOptions to_sblock;
    to_sblock.tir_syntax = ir::TirSyntax::kSBlock;
    ir::IRModule back =
        script::ParseModule(script::PrintModule(block, to_sblock), name + " (T.sblock)");
    if (block_text.find("T.block(") != std::string::npos) {
      EXPECT_EQ(back.script_style().tir_syntax, ir::TirSyntax::kSBlock) << name;
    }
    EXPECT_TRUE(StructuralEqual(*mod, back, &diff)) << name << ": " << diff.ToString();
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace pipesplit::analysis
