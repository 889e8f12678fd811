// Lexing and parsing in two pieces (src/script/syntax/parse_split.h): for every place the split can
// be put, the syntax tree, the LexInfo and the diagnostic are the serial ones; the split is
// taken where it is safe and refused inside strings, brackets, continuations and bodies that
// are not parsed as a statement list.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "pipesplit/script/parser.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/diagnostic.h"
#include "pipesplit/support/source.h"
#include "pipesplit/support/text.h"
#include "src/script/syntax/parse_split.h"
#include "tests/script/parser/syntax_tree_dump.h"

namespace pipesplit::script {
namespace {

namespace fs = std::filesystem;
using testing::DumpTree;

struct Outcome {
  std::string dump;   // tree and LexInfo, when it parsed
  std::string error;  // the diagnostic, when it did not
  bool split = false;
};

// split_at < 0: serial; otherwise split there.
Outcome ParseAt(const SourceFile& file, int64_t split_at, int max_depth = 200) {
  Outcome out;
  SyntaxTree tree;
  LexInfo info;
  SplitParseStats stats;
  try {
    LexAndParse(file, max_depth, split_at < 0 ? -1 : 0, &tree, &info, &stats, split_at);
    out.dump = DumpTree(tree, info);
  } catch (const DiagnosticError& e) {
    out.error = e.what();
  }
  out.split = stats.split;
  return out;
}

const SourceFile& AddFile(const std::string& text) {
  return SourceManager::Global().Add("test.py", text);
}

std::vector<size_t> LineStarts(const std::string& text) {
  std::vector<size_t> starts = {0};
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] == '\n') starts.push_back(i + 1);
  }
  return starts;
}

size_t LineOf(const std::string& text, const std::string& line) {
  size_t pos = text.find("\n" + line + "\n");
  EXPECT_NE(pos, std::string::npos) << line;
  return pos + 1;
}

// Syntax only (the lowering is not run): every construct the split must respect.
const char* kProgram = R"(# from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        T.func_attr({"tir.noalias": True})
        for i in range(4):
            B[i] = A[i] + T.float32(1)
        x = 1
        y = 2

    @I.pyfunc
    def py(self, x):
        a = 1
        b = """doc
lv = 3
"""
        c = 2
        return a

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv = R.add(x, x)
            lv1 = R.multiply(lv,
            lv)
            lv2 = R.add(lv1, \
            lv1)
            s = """a
            t = 1
b"""
            if True: q = 1
            else: q = 2
            lv3 = R.add(lv2, lv2); lv4 = lv3
            # from tvm.script import tir as T
            lv5 = lv4

            lv6 = lv5  # trailing
            # Metadata omitted. Use show_meta=True in script() method to show it.
            gv = lv6
            R.output(gv)
        if c:
            r = 1
        elif d:
            r = 2
        else:
            r = 3
        return gv
y = 2
x = Any
)";

TEST(SplitParse, EveryLineStartGivesTheSerialTree) {
  std::string text = kProgram;
  const SourceFile& file = AddFile(text);
  Outcome serial = ParseAt(file, -1);
  ASSERT_EQ(serial.error, "");
  size_t splits = 0;
  for (size_t start : LineStarts(text)) {
    Outcome split = ParseAt(file, static_cast<int64_t>(start));
    EXPECT_EQ(split.error, "") << "split at " << start;
    EXPECT_EQ(split.dump, serial.dump) << "split at " << start;
    splits += split.split;
  }
  EXPECT_GE(splits, 8u);
}

TEST(SplitParse, TakenAtPlainStatementsOfOneList) {
  std::string text = kProgram;
  const SourceFile& file = AddFile(text);
  for (const char* line :
       {"            lv1 = R.multiply(lv,", "            lv5 = lv4", "            gv = lv6",
        "            R.output(gv)", "x = Any", "        c = 2"}) {
    SCOPED_TRACE(line);
    Outcome split = ParseAt(file, static_cast<int64_t>(LineOf(text, line)));
    // The pyfunc body (c = 2) is kept as text, not parsed as a statement list.
    EXPECT_EQ(split.split, std::string(line) != "        c = 2");
  }
  // The tail's comments and names reach the LexInfo (the head has none of them).
  Outcome early =
      ParseAt(file, static_cast<int64_t>(LineOf(text, "            lv1 = R.multiply(lv,")));
  EXPECT_TRUE(early.split);
  EXPECT_NE(early.dump.find("lexinfo 111"), std::string::npos);
}

TEST(SplitParse, RefusedInsideStringsBracketsContinuationsAndTirBodies) {
  std::string text = kProgram;
  const SourceFile& file = AddFile(text);
  Outcome serial = ParseAt(file, -1);
  for (const char* line : {"lv = 3",             // in a triple-quoted string
                           "            t = 1",  // in a triple-quoted string, same indentation
                           "            lv)",    // in brackets
                           "            lv1)",   // after a backslash
                           "        y = 2",      // in a @T.prim_func body
                           "            else: q = 2", "        return gv"}) {
    SCOPED_TRACE(line);
    Outcome split = ParseAt(file, static_cast<int64_t>(LineOf(text, line)));
    EXPECT_FALSE(split.split);
    EXPECT_EQ(split.dump, serial.dump);
  }
}

TEST(SplitParse, ChooseSplitSkipsLinesThatCannotStartAStatementList) {
  auto choose = [](const std::string& text) {
    int64_t at = ChooseSplit(text, 0);
    return at < 0 ? std::string("none") : text.substr(at, text.find('\n', at) - at);
  };
  EXPECT_EQ(choose("a = 1\nb = 2\n"), "b = 2");
  EXPECT_EQ(choose("a = 1 + \\\n  2\nb = \\\nc\nd = 1\n"), "d = 1");
  EXPECT_EQ(choose("@R.function\ndef f():\n  pass\n  else_ = 1\n"), "  else_ = 1");
  EXPECT_EQ(choose("# c\nx = 1\n\ny = 1\n  z = 1\nreturn 1\nelse: 2\n"), "none");
  EXPECT_EQ(choose("a = 1\n\tb = 2\n        c = 3\n        d = 4\n"), "        d = 4");
  EXPECT_EQ(choose(""), "none");
}

// A module body with `n` statements in its dataflow block, `bad` replacing statement `at`.
std::string Body(int n, int at, const std::string& bad) {
  std::string text =
      "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((4,), "
      "\"float32\")):\n        with R.dataflow():\n            lv0 = R.add(x, x)\n";
  for (int i = 1; i < n; ++i) {
    text += i == at ? bad + "\n"
                    : "            lv" + std::to_string(i) + " = R.add(lv" + std::to_string(i - 1) +
                          ", x)\n";
  }
  text += "            R.output(lv" + std::to_string(n - 1) + ")\n        return lv" +
          std::to_string(n - 1) + "\n";
  return text;
}

TEST(SplitParse, ErrorsAfterTheSplitAreTheSerialOnes) {
  struct Case {
    std::string bad;
    std::string message;  // the serial diagnostic's first line
  };
  std::vector<Case> cases = {
      {"            lv20 = $", "test.py:26:20: error: unexpected character '$'"},
      {"            lv20 = \"abc", "test.py:26:20: error: unterminated string"},
      {"          lv20 = lv19", "test.py:26:11: error: mismatched indentation"},
      {"                lv20 = lv19", "test.py:26:17: error: unexpected indent"},
      {"            lv20 = = lv19", "test.py:26:20: error: expected an expression but found '='"},
      {"            else: pass", "test.py:26:13: error: 'else' without a matching statement"},
      {"            lv20 = R.add(lv19,", "test.py:26:25: error: '(' was never closed"},
      {"            lv20 = lv19 # \xff", "test.py:26:27: error: invalid utf-8 byte 0xff"},
      {"            lv20 = lv19 +",
       "test.py:26:26: error: expected an expression but found newline"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.bad);
    std::string text = Body(40, 20, c.bad);
    const SourceFile& file = AddFile(text);
    Outcome serial = ParseAt(file, -1);
    ASSERT_EQ(serial.error.substr(0, serial.error.find('\n')), c.message);
    for (int at : {3, 10, 19, 20, 21}) {
      std::string line =
          "            lv" + std::to_string(at) + " = R.add(lv" + std::to_string(at - 1) + ", x)";
      size_t pos = text.find(line);
      if (pos == std::string::npos) pos = text.find(c.bad);
      Outcome split = ParseAt(file, static_cast<int64_t>(pos));
      EXPECT_EQ(split.error, serial.error) << "split at line of lv" << at;
      EXPECT_FALSE(split.split);
    }
  }
}

TEST(SplitParse, ErrorsAfterTheTailAndBeforeTheSplitAreTheSerialOnes) {
  std::string text = Body(40, 5, "            lv5 = $");
  text += "y = $\n";
  const SourceFile& file = AddFile(text);
  Outcome serial = ParseAt(file, -1);
  EXPECT_EQ(serial.error.substr(0, serial.error.find('\n')),
            "test.py:11:19: error: unexpected character '$'");
  EXPECT_EQ(ParseAt(file, static_cast<int64_t>(text.find("            lv20 "))).error,
            serial.error);
  std::string late = Body(40, 0, "");
  late += "y = $\n";
  const SourceFile& late_file = AddFile(late);
  Outcome late_serial = ParseAt(late_file, -1);
  EXPECT_EQ(late_serial.error.substr(0, late_serial.error.find('\n')),
            "test.py:48:5: error: unexpected character '$'");
  EXPECT_EQ(ParseAt(late_file, static_cast<int64_t>(late.find("            lv20 "))).error,
            late_serial.error);
}

// Nesting limits count the levels before the split: an indentation, elif chain or expression
// as deep as the limit allows in the tail alone, but not in the file, is still an error.
TEST(SplitParse, NestingLimitsCountTheLevelsBeforeTheSplit) {
  std::string nested = "            if a:\n";
  std::string indent = "            ";
  for (int i = 0; i < 6; ++i) {
    indent += "    ";
    nested += indent + "if a:\n";
  }
  nested += indent + "    pass";
  std::string chain = "            if a: pass";
  for (int i = 0; i < 12; ++i) chain += "\n            elif a: pass";
  std::string deep = "            lv20 = " + std::string(12, '(') + "x" + std::string(12, ')');
  for (const std::string& bad : {nested, chain, deep}) {
    std::string text = Body(40, 20, bad);
    const SourceFile& file = AddFile(text);
    size_t split = text.find("            lv10 ");
    size_t taken = 0;
    for (int max_depth = 4; max_depth <= 24; ++max_depth) {
      SCOPED_TRACE(bad + "\nmax_depth " + std::to_string(max_depth));
      Outcome serial = ParseAt(file, -1, max_depth);
      Outcome split_outcome = ParseAt(file, static_cast<int64_t>(split), max_depth);
      EXPECT_EQ(split_outcome.error, serial.error);
      EXPECT_EQ(split_outcome.dump, serial.dump);
      taken += split_outcome.split;
      if (serial.error.empty()) {
        EXPECT_TRUE(split_outcome.split);
      }
    }
    EXPECT_GT(taken, 0u);
  }
}

// The split inside an else of an elif chain: the head is nested when it reaches the tail.
TEST(SplitParse, NestingLimitsCountTheHeadsElifChain) {
  std::string text = "def main(x):\n    if a: pass\n";
  for (int i = 0; i < 6; ++i) text += "    elif a: pass\n";
  text += "    else:\n        lv0 = x\n        lv1 = x\n        if a: pass\n";
  for (int i = 0; i < 6; ++i) text += "        elif a: pass\n";
  text += "        lv2 = x\n    return x\n";
  const SourceFile& file = AddFile(text);
  size_t split = text.find("        lv1 = x");
  size_t taken = 0;
  size_t refused = 0;
  for (int max_depth = 4; max_depth <= 24; ++max_depth) {
    SCOPED_TRACE("max_depth " + std::to_string(max_depth));
    Outcome serial = ParseAt(file, -1, max_depth);
    Outcome split_outcome = ParseAt(file, static_cast<int64_t>(split), max_depth);
    EXPECT_EQ(split_outcome.error, serial.error);
    EXPECT_EQ(split_outcome.dump, serial.dump);
    taken += split_outcome.split;
    refused += !serial.error.empty();
  }
  EXPECT_GT(taken, 0u);
  EXPECT_GT(refused, 0u);
}

fs::path CorpusDir() { return fs::path(PIPESPLIT_SOURCE_DIR) / ".." / "shared" / "corpus"; }

std::vector<fs::path> CorpusFiles() {
  std::vector<fs::path> files;
  for (const char* dir : {"mlc-llm-2023", "tvm-printer"}) {
    if (!fs::exists(CorpusDir() / dir)) continue;
    for (const auto& entry : fs::directory_iterator(CorpusDir() / dir)) {
      if (entry.path().extension() == ".py") files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Every corpus file split where ChooseSplit puts it (the middle) and, for every 10th file,
// at every line start: the tree is the serial one; and the printed module too.
TEST(SplitParse, CorpusTreesAndPrintedModulesAreTheSerialOnes) {
  std::vector<fs::path> files = CorpusFiles();
  if (files.empty()) GTEST_SKIP() << "corpus not present at " << CorpusDir();
  size_t split = 0;
  size_t parsed = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    std::string text, error;
    ASSERT_TRUE(ReadFile(files[i].string(), &text, &error)) << error;
    SCOPED_TRACE(files[i].string());
    const SourceFile& file = SourceManager::Global().Add(files[i].filename().string(), text);
    Outcome serial = ParseAt(file, -1);
    int64_t middle = ChooseSplit(text, text.size() / 2);
    Outcome halves = ParseAt(file, middle);
    EXPECT_EQ(halves.dump, serial.dump);
    EXPECT_EQ(halves.error, serial.error);
    split += halves.split;
    if (i % 10 == 0) {
      for (size_t start : LineStarts(text)) {
        Outcome at = ParseAt(file, static_cast<int64_t>(start));
        EXPECT_EQ(at.dump, serial.dump) << "split at " << start;
        EXPECT_EQ(at.error, serial.error) << "split at " << start;
      }
    }
    ParseOptions whole;
    whole.split_parse_min_bytes = -1;
    ParseOptions halved;
    halved.split_parse_min_bytes = 0;
    std::string serial_print, split_print;
    try {
      serial_print = PrintModule(ParseModule(file, whole));
      ++parsed;
    } catch (const DiagnosticError& e) {
      serial_print = e.what();
    }
    try {
      split_print = PrintModule(ParseModule(file, halved));
    } catch (const DiagnosticError& e) {
      split_print = e.what();
    }
    EXPECT_EQ(split_print, serial_print);
  }
  // Most files have a plain statement after their middle.
  EXPECT_GE(split * 3, files.size() * 2) << split << " of " << files.size();
  EXPECT_GE(parsed * 10, files.size() * 9);
}

}  // namespace
}  // namespace pipesplit::script
