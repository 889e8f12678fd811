// Parser tests: the tokenizer — indentation tokens, newlines inside brackets and after a
// backslash, comments and blank lines, strings, numbers, and the header facts it records.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pipesplit/support/source.h"
#include "src/script/syntax/lexer.h"

namespace pipesplit::script {
namespace {

// Tokens as short strings: names/numbers/punctuation by spelling, strings quoted, and
// NEWLINE / INDENT / DEDENT / END.
std::vector<std::string> Tokens(const std::string& text, LexInfo* info = nullptr) {
  const SourceFile& file = SourceManager::Global().Add("lex.py", text);
  LexInfo local;
  std::vector<Token> tokens = Lex(file, 200, info ? info : &local);
  std::vector<std::string> out;
  for (const Token& t : tokens) {
    switch (t.kind) {
      case TokenKind::kNewline:
        out.push_back("NEWLINE");
        break;
      case TokenKind::kIndent:
        out.push_back("INDENT");
        break;
      case TokenKind::kDedent:
        out.push_back("DEDENT");
        break;
      case TokenKind::kEnd:
        out.push_back("END");
        break;
      default:
        out.push_back(text.substr(t.begin, t.end - t.begin));
        break;
    }
  }
  return out;
}

using V = std::vector<std::string>;

TEST(Lexer, IndentationAndNewlines) {
  EXPECT_EQ(Tokens("class A:\n    def f():\n        return x\n    y = 1\n"),
            (V{"class", "A", ":",       "NEWLINE", "INDENT", "def", "f",       "(",
               ")",     ":", "NEWLINE", "INDENT",  "return", "x",   "NEWLINE", "DEDENT",
               "y",     "=", "1",       "NEWLINE", "DEDENT", "END"}));
}

TEST(Lexer, BracketsAndBackslashesContinueLines) {
  EXPECT_EQ(
      Tokens("x = f(a,\n      b)\ny = \\\n  c\n"),
      (V{"x", "=", "f", "(", "a", ",", "b", ")", "NEWLINE", "y", "=", "c", "NEWLINE", "END"}));
}

TEST(Lexer, CommentsAndBlankLinesAtAnyIndentation) {
  EXPECT_EQ(Tokens("if a:\n\n  # deeper\n# shallower\n    b\n      \n"),
            (V{"if", "a", ":", "NEWLINE", "INDENT", "b", "NEWLINE", "DEDENT", "END"}));
}

TEST(Lexer, StringsNumbersAndOperators) {
  EXPECT_EQ(Tokens("a = r'x\\'' + \"\"\"m\nn\"\"\" ** 0x1F // 1.5e-3 -> b\n"),
            (V{"a", "=", "r'x\\''", "+", "\"\"\"m\nn\"\"\"", "**", "0x1F", "//", "1.5e-3", "->",
               "b", "NEWLINE", "END"}));
  EXPECT_EQ(Tokens("x[...] != y <= z >>= 1\n"),
            (V{"x", "[", "...", "]", "!=", "y", "<=", "z", ">>=", "1", "NEWLINE", "END"}));
}

TEST(Lexer, RecordsHeaderFacts) {
  LexInfo info;
  Tokens("# from tvm.script import tir as T\nx\n# Metadata omitted. Use show_meta=True.\n", &info);
  EXPECT_TRUE(info.legacy_tir_header);
  EXPECT_TRUE(info.metadata_omitted_comment);
  LexInfo current;
  Tokens("# from tvm.script import tirx as T\nx = '# Metadata omitted'\n", &current);
  EXPECT_FALSE(current.legacy_tir_header);
  EXPECT_FALSE(current.metadata_omitted_comment);
}

TEST(Lexer, NoTrailingNewlineStillEndsTheLine) {
  EXPECT_EQ(Tokens("if a:\n    b"),
            (V{"if", "a", ":", "NEWLINE", "INDENT", "b", "NEWLINE", "DEDENT", "END"}));
  EXPECT_EQ(Tokens(""), (V{"END"}));
}

}  // namespace
}  // namespace pipesplit::script
