// Tokenizer for the Python subset TVMScript is written in.
//
// Produces Python's token stream (names, numbers, strings, punctuation, NEWLINE, INDENT,
// DEDENT, END) in one linear, non-recursive pass: comments and blank lines are skipped,
// newlines inside brackets and after a backslash are not tokens, brackets are matched here
// (so an unclosed or mismatched bracket is reported where it was opened), and bracket and
// indentation nesting are capped. Tokens are 12-byte (kind, punct, byte range) records into the
// file text; string and number tokens are decoded by the parser.
#ifndef PIPESPLIT_SRC_SCRIPT_SYNTAX_LEXER_H_
#define PIPESPLIT_SRC_SCRIPT_SYNTAX_LEXER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "pipesplit/support/source.h"

namespace pipesplit::script {

enum class TokenKind : uint8_t {
  kName,
  kNumber,
  kString,
  kPunct,
  kNewline,
  kIndent,
  kDedent,
  kEnd,
  kSplice  // a stretch of lines lexed and parsed on another thread (LexWithSplit)
};

enum class Punct : uint8_t {
  kNone,
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kLBrace,
  kRBrace,
  kComma,
  kColon,
  kDot,
  kSemicolon,
  kAt,
  kAssign,  // =
  kArrow,   // ->
  kPlus,
  kMinus,
  kStar,
  kDoubleStar,
  kSlash,
  kDoubleSlash,
  kPercent,
  kLess,
  kGreater,
  kLessEq,
  kGreaterEq,
  kEqEq,
  kNotEq,
  kTilde,
  kAmp,
  kPipe,
  kCaret,
  kLShift,
  kRShift,
  kAugAssign,  // += -= *= ... (any augmented assignment)
  kWalrus,     // :=
  kEllipsis,   // ...
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  Punct punct = Punct::kNone;
  uint32_t begin = 0;  // byte offsets into the file text
  uint32_t end = 0;
};

// Facts about the file the lexer notices on the way.
struct LexInfo {
  // A "# Metadata omitted..." comment (TVM's marker for constants not shown).
  bool metadata_omitted_comment = false;
  // A "# from tvm.script import tir as T" header comment (TVM before 2026 names the TIR
  // dialect `tir`; newer dumps say `tirx`).
  bool legacy_tir_header = false;
  // A name `Any`, `out_ty` or `ty_args` occurs (without one, no expression can use the current
  // syntax's R.Any, out_ty= or ty_args=, and the lowering need not look for them).
  bool current_spelling_names = false;
};

// The indentation column of the line whose first byte is text[*pos] (a tab advances to the next
// multiple of 8, a form feed resets to 0, as Python counts); *pos moves past the indentation,
// stopping at `end`.
inline uint32_t IndentColumn(std::string_view text, size_t end, size_t* pos) {
  uint32_t col = 0;
  for (; *pos < end; ++*pos) {
    const char c = text[*pos];
    if (c == ' ') {
      ++col;
    } else if (c == '\t') {
      col = (col / 8 + 1) * 8;
    } else if (c == '\f') {
      col = 0;
    } else {
      break;
    }
  }
  return col;
}

// Tokenizes `file`. Throws DiagnosticError (located) on lexical errors: unterminated strings,
// unexpected characters, invalid UTF-8, mismatched indentation or brackets, nesting deeper
// than `max_depth`.
std::vector<Token> Lex(const SourceFile& file, int max_depth, LexInfo* info);

// ---- Lexing a file in two pieces (parse_split.h) ----

// Thrown when a two-piece lex or parse is abandoned (the caller then lexes serially).
struct SplitAbandoned {};

// The second piece of a file.
struct LexedTail {
  // Its tokens, then a dedent for each level opened in it, then kEnd.
  std::vector<Token> tokens;
  // Where the piece ends: the end of the file, or the start of the first line indented less
  // than the piece's base (that line is not lexed).
  uint32_t stop = 0;
  // The largest indentation stack (base included) before a push, for the nesting limit.
  size_t max_stack = 0;
  LexInfo info;
};

// Lexes from `begin`, a logical line start indented `base` columns, as if the indentation
// stack held only `base`, until the end of the file or the first line indented less than
// `base`. Throws DiagnosticError like Lex, SplitAbandoned when *cancel becomes true.
LexedTail LexTail(const SourceFile& file, uint32_t begin, uint32_t base, int max_depth,
                  const std::atomic<bool>* cancel);

// Lexes like Lex, except that when the lexer reaches the line start `split` in the state
// LexTail assumes (no bracket open, the line indented `base` columns, which is the top of the
// indentation stack: no indent or dedent due), it calls at_split(indentation stack size). When
// that returns a tail, the lexer emits one kSplice token [split, tail->stop), merges the
// tail's LexInfo and goes on at tail->stop; when it returns null, it lexes on as Lex.
std::vector<Token> LexWithSplit(const SourceFile& file, int max_depth, LexInfo* info,
                                uint32_t split, uint32_t base,
                                const std::function<const LexedTail*(size_t)>& at_split);

// Tokenizes the byte range [begin, end) of `file` as one expression (no indentation tokens),
// e.g. the content of a string literal holding a symbolic expression ("n * 2").
std::vector<Token> LexExpression(const SourceFile& file, uint32_t begin, uint32_t end,
                                 int max_depth);

// The source spelling of a punctuation token, for messages ("')'").
const char* PunctSpelling(Punct punct);

// A short description of a token for "expected X but found Y" messages: "'foo'", "')'",
// "newline", "indent", "end of file", "string", "number".
std::string DescribeToken(const SourceFile& file, const Token& token);

}  // namespace pipesplit::script

#endif  // PIPESPLIT_SRC_SCRIPT_SYNTAX_LEXER_H_
