// Parser tests: no input crashes the parser, recurses without bound or throws anything but a
// located DiagnosticError — truncated files, binary garbage, invalid UTF-8, huge numbers,
// nesting a million deep, and random mutations of a valid module.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "tests/script/parser/parser_test_util.h"

namespace pipesplit::script {
namespace {

using testing::ParseError;

constexpr const char* kModule = R"(# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def add(A: T.Buffer((T.int64(2),), "float32"), B: T.Buffer((T.int64(2),), "float32")):
        for i in range(2):
            B[i] = A[i] + T.float32(1)

    @R.function
    def helper(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        return x

    @R.function
    def main(x: R.Tensor((2,), dtype="float32"), c: R.Prim("bool")) -> R.Tensor((2,), dtype="float32"):
        R.func_attr({"num_input": 1})
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.add, (x,), out_sinfo=R.Tensor((2,), dtype="float32"))
            lv1: R.Tensor((2,), dtype="float32") = R.add(lv, metadata["relax.expr.Constant"][0])
            gv = cls.helper(lv1)
            R.output(gv)
        if c:
            y = R.multiply(gv, gv)
        else:
            y = gv
        t = y, R.shape([2, 3]), R.prim_value(1), R.str("s\x41")
        z = t[0]
        return z

# Metadata omitted. Use show_meta=True in script() method to show it.
)";

// Parses `text`; anything but success or a located DiagnosticError fails the test.
void ExpectParsesOrDiagnoses(const std::string& text, const std::string& what) {
  try {
    testing::Parse(text);
  } catch (const DiagnosticError& e) {
    ASSERT_FALSE(e.diagnostics().empty()) << what;
    Span span = e.diagnostics()[0].span;
    ASSERT_TRUE(span.valid()) << what << ": " << e.what();
    const SourceFile& file = SourceManager::Global().Get(span.file);
    EXPECT_LE(span.begin, file.text().size()) << what;
    EXPECT_LE(span.end, file.text().size()) << what;
    EXPECT_FALSE(e.diagnostics()[0].message.empty()) << what;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": non-diagnostic exception: " << e.what();
  }
}

TEST(ParserRobustness, TheReferenceModuleParses) { EXPECT_EQ(ParseError(kModule), "no error"); }

TEST(ParserRobustness, EveryTruncationIsParsedOrDiagnosed) {
  std::string text = kModule;
  for (size_t n = 0; n <= text.size(); ++n) {
    ExpectParsesOrDiagnoses(text.substr(0, n), "prefix of " + std::to_string(n) + " bytes");
  }
}

TEST(ParserRobustness, BinaryGarbage) {
  std::mt19937 rng(1234);
  for (int sample = 0; sample < 300; ++sample) {
    std::string text;
    size_t size = rng() % 400;
    for (size_t i = 0; i < size; ++i) text.push_back(static_cast<char>(rng() & 0xFF));
    ExpectParsesOrDiagnoses(text, "garbage sample " + std::to_string(sample));
    ExpectParsesOrDiagnoses(std::string(kModule).substr(0, 300) + text,
                            "module prefix + garbage sample " + std::to_string(sample));
  }
  EXPECT_EQ(ParseError(std::string("\x00\x01", 2)), "test.py:1:1: error: unexpected byte 0x00");
}

TEST(ParserRobustness, RandomMutationsOfAValidModule) {
  std::mt19937 rng(42);
  const std::string alphabet = "()[]{}:,.=+-*/\"'#\\ \n\tRTIabcxyz0123456789_@";
  std::string base = kModule;
  for (int sample = 0; sample < 1500; ++sample) {
    std::string text = base;
    int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      size_t pos = rng() % text.size();
      switch (rng() % 3) {
        case 0:
          text.erase(pos, 1 + rng() % 4);
          break;
        case 1:
          text.insert(pos, 1, alphabet[rng() % alphabet.size()]);
          break;
        default:
          text[pos] = alphabet[rng() % alphabet.size()];
          break;
      }
    }
    ExpectParsesOrDiagnoses(text, "mutation sample " + std::to_string(sample));
  }
}

TEST(ParserRobustness, InvalidUtf8InStringsCommentsAndCode) {
  std::string base =
      "@I.ir_module\nclass Module:\n    @R.function\n"
      "    def main(x: R.Object) -> R.Object:\n";
  EXPECT_EQ(ParseError(base + "        y = R.str(\"a\xff\")\n        return x\n"),
            "test.py:5:21: error: invalid utf-8 byte 0xff in string");
  EXPECT_EQ(ParseError(base + "        y = x\xe2\x82\n        return x\n"),
            "test.py:5:14: error: invalid utf-8 byte 0xe2");
  EXPECT_EQ(ParseError(base + "        y = \xc3\xa9\n        return x\n"),
            "test.py:5:13: error: unexpected character '\xc3\xa9'");
  // Valid UTF-8 in strings and comments is fine.
  EXPECT_EQ(ParseError(base + "        # caf\xc3\xa9\n        y = R.str(\"\xe2\x82\xac\")\n"
                              "        return x\n"),
            "no error");
}

TEST(ParserRobustness, HugeNumbers) {
  std::string base =
      "@I.ir_module\nclass Module:\n    @R.function\n"
      "    def main(x: R.Object) -> R.Object:\n";
  EXPECT_EQ(ParseError(base + "        y = R.shape([" + std::string(1000, '9') + "])\n"),
            "test.py:5:22: error: integer literal 9999999999999999999999999999999999999999... "
            "is out of the int64 range");
  EXPECT_EQ(ParseError(base + "        y = R.shape([9223372036854775807 + 1])\n"),
            "test.py:5:22: error: integer overflow in constant expression");
  EXPECT_EQ(ParseError(base + "        y = R.shape([3 ** 100])\n"),
            "test.py:5:22: error: integer overflow in constant expression");
  EXPECT_EQ(ParseError(base + "        y = R.const(5000000000, \"int32\")\n"),
            "test.py:5:21: error: 5000000000 is out of range for int32");
  EXPECT_EQ(
      ParseError(base + "        y = R.shape([-9223372036854775807 - 1])\n        return x\n"),
      "no error");
}

TEST(ParserRobustness, NestingAMillionDeep) {
  const std::string base =
      "@I.ir_module\nclass Module:\n    @R.function\n"
      "    def main(x: R.Object) -> R.Object:\n        y = ";
  const size_t kMillion = 1000000;
  EXPECT_EQ(ParseError(base + std::string(kMillion, '(') + "x" + std::string(kMillion, ')')),
            "test.py:5:213: error: brackets are nested too deeply (limit 200 levels)");
  EXPECT_EQ(ParseError(base + std::string(kMillion, '[')),
            "test.py:5:213: error: brackets are nested too deeply (limit 200 levels)");
  EXPECT_EQ(ParseError(base + std::string(kMillion, '-') + "x\n"),
            "test.py:5:212: error: expression is nested too deeply (limit 200 levels)");
  std::string nots;
  for (size_t i = 0; i < kMillion / 4; ++i) nots += "not ";
  EXPECT_EQ(ParseError(base + nots + "x\n"),
            "test.py:5:809: error: expression is nested too deeply (limit 200 levels)");
  std::string subscripts = base + "x";
  for (size_t i = 0; i < kMillion / 3; ++i) subscripts += "[0]";
  EXPECT_EQ(ParseError(subscripts + "\n"),
            "test.py:5:13: error: expression is nested too deeply (limit 200 levels)");
  std::string sums = base + "x";
  for (size_t i = 0; i < kMillion / 4; ++i) sums += " + x";
  EXPECT_EQ(ParseError(sums + "\n"),
            "test.py:5:13: error: expression is nested too deeply (limit 200 levels)");
  std::string attrs = base + "x";
  for (size_t i = 0; i < kMillion / 2; ++i) attrs += ".a";
  EXPECT_EQ(ParseError(attrs + "\n"),
            "test.py:5:13: error: expression is nested too deeply (limit 200 levels)");
}

TEST(ParserRobustness, DeepStatementNesting) {
  std::string text =
      "@I.ir_module\nclass Module:\n    @R.function\n"
      "    def main(x: R.Object) -> R.Object:\n";
  std::string indent = "        ";
  for (int level = 0; level < 300; ++level) {
    text += indent + "if x:\n";
    indent += " ";
  }
  text += indent + "y = x\n";
  EXPECT_EQ(ParseError(text),
            "test.py:204:208: error: indentation is nested too deeply (limit 200 levels)");
  std::string elifs =
      "@I.ir_module\nclass Module:\n    @R.function\n"
      "    def main(x: R.Object) -> R.Object:\n        if x:\n            y = x\n";
  for (int i = 0; i < 100000; ++i) elifs += "        elif x:\n            y = x\n";
  elifs += "        else:\n            y = x\n        return y\n";
  EXPECT_EQ(ParseError(elifs),
            "test.py:403:14: error: expression is nested too deeply (limit 200 levels)");
}

TEST(ParserRobustness, LongFlatInputsAreFine) {
  std::string text =
      "@I.ir_module\nclass Module:\n    @R.function\n"
      "    def main(x: R.Object) -> R.Object:\n        y = R.shape([";
  for (int i = 0; i < 100000; ++i) text += "1, ";
  text += "])\n        z = R.str(\"" + std::string(1000000, 'a') + "\")\n        return x\n";
  EXPECT_EQ(ParseError(text), "no error");
}

}  // namespace
}  // namespace pipesplit::script
