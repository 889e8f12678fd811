// Tokenizer for the Python subset TVMScript is written in.
//
// Produces Python's token stream (names, numbers, strings, punctuation, NEWLINE, INDENT,
// DEDENT, END) in one linear, non-recursive pass: comments and blank lines are skipped,
// newlines inside brackets and after a backslash are not tokens, brackets are matched here
// (so an unclosed or mismatched bracket is reported where it was opened), and bracket and
// indentation nesting are capped. Tokens are 12-byte (kind, punct, byte range) records into the
// file text; string and number tokens are decoded by the parser.
#ifndef PIPESPLIT_SRC_SCRIPT_LEXER_H_
#define PIPESPLIT_SRC_SCRIPT_LEXER_H_

#include <cstdint>
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
  kEnd
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

// Tokenizes `file`. Throws DiagnosticError (located) on lexical errors: unterminated strings,
// unexpected characters, invalid UTF-8, mismatched indentation or brackets, nesting deeper
// than `max_depth`.
std::vector<Token> Lex(const SourceFile& file, int max_depth, LexInfo* info);

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

#endif  // PIPESPLIT_SRC_SCRIPT_LEXER_H_
