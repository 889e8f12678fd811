// Syntax parser: tokens to the syntax tree of parser_ast.h (Python grammar subset).
//
// Recursive descent with Python's precedence levels. Recursion follows the input's nesting,
// which the lexer caps for brackets and indentation; the remaining recursive forms (unary
// operators, lambdas, conditional expressions) and the depth of every built node are capped
// at max_depth here. Function definitions decorated with @I.pyfunc are not parsed: their text
// is kept (kOpaqueDef) from the decorator to the end of the body. @T.prim_func definitions are
// kOpaqueDef too, but parsed, with `for` statements allowed in their bodies.
#ifndef PIPESPLIT_SRC_SCRIPT_SYNTAX_PARSER_SYNTAX_H_
#define PIPESPLIT_SRC_SCRIPT_SYNTAX_PARSER_SYNTAX_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipesplit/support/source.h"
#include "src/script/syntax/lexer.h"
#include "src/script/syntax/parser_ast.h"

namespace pipesplit::script {

// Whether `s` is a Python keyword (a name that cannot be an identifier).
bool IsPythonKeyword(std::string_view s);

// The statements of the second piece of a split parse (parse_split.h).
struct ParsedTail {
  uint32_t base = 0;  // the indentation of its statements
  std::vector<PyStmt*> body;
  uint32_t prev_end = 0;  // the end of its last name/number/string/punct token
  int max_recursion = 0;  // the deepest nesting of recursive forms it reached (from 0)
};

class SyntaxParser {
 public:
  SyntaxParser(const SourceFile& file, const std::vector<Token>& tokens, int max_depth,
               SyntaxTree* tree);

  // Parses a whole file into tree->body.
  void ParseFile();
  // Parses the tokens as a single expression (from LexExpression).
  PyExpr* ParseStandaloneExpression();
  // Parses the tokens of LexTail as a list of statements indented `base` columns.
  ParsedTail ParseTail(uint32_t base);
  // Where a statement list reaches a kSplice token (LexWithSplit), `splice` gives the
  // statements it stands for (waiting for them), or null; the parser throws SplitAbandoned
  // when it is null or when the tail would not parse the same at this point.
  void set_splice(std::function<const ParsedTail*()> splice) { splice_ = std::move(splice); }

 private:
  // ---- Token access ----
  const Token& Peek(size_t ahead = 0) const;
  const Token& Next();
  bool AtPunct(Punct punct, size_t ahead = 0) const;
  bool AtKeyword(std::string_view keyword, size_t ahead = 0) const;
  bool AtKind(TokenKind kind) const { return Peek().kind == kind; }
  bool AcceptPunct(Punct punct);
  const Token& ExpectPunct(Punct punct);
  std::string_view ExpectName(const char* what);
  void ExpectNewline();
  std::string_view TokenText(const Token& token) const;
  [[noreturn]] void ErrorAt(const Token& token, std::string message) const;
  [[noreturn]] void ErrorAt(uint32_t begin, uint32_t end, std::string message) const;
  [[noreturn]] void ExpectedError(const char* what) const;

  // ---- Statements (parser_syntax_stmt.cc) ----
  void ParseStatement(std::vector<PyStmt*>* out);
  void Splice(std::vector<PyStmt*>* out, bool top_level);
  void ParseSimpleStatements(std::vector<PyStmt*>* out);
  PyStmt* ParseSmallStatement();
  std::vector<PyStmt*> ParseSuite();
  PyStmt* ParseIf(uint32_t begin);
  PyStmt* ParseWith();
  PyStmt* ParseDecorated();
  PyStmt* ParseFunctionDef(uint32_t begin, std::vector<PyExpr*> decorators);
  PyStmt* ParseClassDef(uint32_t begin, std::vector<PyExpr*> decorators);
  PyStmt* ParseOpaqueDef(uint32_t begin, std::vector<PyExpr*> decorators);
  PyStmt* ParsePrimFuncDef(uint32_t begin, std::vector<PyExpr*> decorators);
  PyStmt* ParseFor();
  PyStmt* ParseWhile();  // inside a @T.prim_func
  PyStmt* ParseImport();
  std::vector<PyParam> ParseParams();
  std::vector<PyParam> ParseTypeParams();
  bool IsOpaqueDecorator(const PyExpr* decorator) const;
  bool CanStartExpression(const Token& token) const;

  // ---- Expressions (parser_syntax_expr.cc) ----
  PyExpr* ParseTestList();  // test (',' test)* [','] -> tuple when a comma appears
  PyExpr* ParseTest();      // conditional expression / lambda
  PyExpr* ParseLambda();
  // `first`, when given, is the expression's first operand (what ParseFactor returns), already
  // parsed from `first_begin` on; see ParseTest.
  PyExpr* ParseOrTest(PyExpr* first = nullptr, uint32_t first_begin = 0);
  PyExpr* ParseAndTest(PyExpr* first = nullptr, uint32_t first_begin = 0);
  PyExpr* ParseNotTest(PyExpr* first = nullptr, uint32_t first_begin = 0);
  PyExpr* ParseComparison(PyExpr* first = nullptr, uint32_t first_begin = 0);
  // | ^ & << >> + - * / // % @
  PyExpr* ParseBinary(int level, PyExpr* first = nullptr, uint32_t first_begin = 0);
  PyExpr* ParseFactor();
  PyExpr* ParsePower();
  PyExpr* ParseAtomExpr();
  PyExpr* ParseAtom();
  PyExpr* ParseParenthesized();
  PyExpr* ParseListDisplay();
  PyExpr* ParseDictDisplay();
  PyExpr* ParseCallArgs(PyExpr* func);
  PyExpr* ParseSubscript(PyExpr* value);
  PyExpr* ParseSliceItem();
  PyExpr* ParseStrings();

  // Node construction; the node's depth is 1 + its deepest child, capped at max_depth.
  PyExpr* NewExpr(PyExprKind kind, uint32_t begin, uint32_t end);
  PyExpr* NewNode(PyExprKind kind, PyOp op, const std::vector<PyExpr*>& items, uint32_t begin,
                  uint32_t end);
  PyExpr* NewNode(PyExprKind kind, PyOp op, std::initializer_list<PyExpr*> items, uint32_t begin,
                  uint32_t end);
  PyExpr* NewNode(PyExprKind kind, PyOp op, PyExpr* const* items, size_t size, uint32_t begin,
                  uint32_t end);

  // The items of the list being parsed are pushed on one stack shared by all nesting levels
  // (no vector per call or tuple); a level takes its items from its mark on, then pops them.
  class StackMark {
   public:
    explicit StackMark(SyntaxParser* parser)
        : parser_(parser),
          exprs_(parser->expr_stack_.size()),
          keywords_(parser->keyword_stack_.size()) {}
    ~StackMark() {
      parser_->expr_stack_.resize(exprs_);
      parser_->keyword_stack_.resize(keywords_);
    }
    PyExpr* const* exprs() const { return parser_->expr_stack_.data() + exprs_; }
    size_t num_exprs() const { return parser_->expr_stack_.size() - exprs_; }
    const PyKeyword* keywords() const { return parser_->keyword_stack_.data() + keywords_; }
    size_t num_keywords() const { return parser_->keyword_stack_.size() - keywords_; }

   private:
    SyntaxParser* parser_;
    size_t exprs_;
    size_t keywords_;
  };
  void SetDepth(PyExpr* e);

  // Decodes one string token's value (prefixes, escapes); appends to *out.
  void DecodeString(const Token& token, std::string* out) const;

  // Guards recursion on input-controlled depth.
  class DepthGuard {
   public:
    DepthGuard(SyntaxParser* parser, uint32_t begin);
    ~DepthGuard() { --parser_->recursion_; }

   private:
    SyntaxParser* parser_;
  };

  const SourceFile& file_;
  const std::vector<Token>& tokens_;
  int max_depth_;
  SyntaxTree* tree_;
  size_t pos_ = 0;
  uint32_t prev_end_ = 0;  // end of the last consumed name/number/string/punct token
  int recursion_ = 0;
  int max_recursion_ = 0;  // the largest recursion_ reached (ParseTail)
  std::function<const ParsedTail*()> splice_;
  int prim_func_depth_ = 0;               // > 0 while parsing a @T.prim_func body
  std::vector<PyExpr*> expr_stack_;       // see StackMark
  std::vector<PyKeyword> keyword_stack_;  // see StackMark
};

// ---- Token access, inline: called for nearly every token ----

inline const Token& SyntaxParser::Peek(size_t ahead) const {
  size_t i = std::min(pos_ + ahead, tokens_.size() - 1);
  return tokens_[i];
}

inline const Token& SyntaxParser::Next() {
  const Token& t = tokens_[pos_];
  if (pos_ + 1 < tokens_.size()) ++pos_;
  if (t.kind != TokenKind::kNewline && t.kind != TokenKind::kIndent &&
      t.kind != TokenKind::kDedent && t.kind != TokenKind::kEnd) {
    prev_end_ = t.end;
  }
  return t;
}

inline bool SyntaxParser::AtPunct(Punct punct, size_t ahead) const {
  const Token& t = Peek(ahead);
  return t.kind == TokenKind::kPunct && t.punct == punct;
}

inline bool SyntaxParser::AtKeyword(std::string_view keyword, size_t ahead) const {
  const Token& t = Peek(ahead);
  // Length and first letter first: most names are not the keyword asked about.
  if (t.kind != TokenKind::kName || t.end - t.begin != keyword.size()) return false;
  const char* text = file_.text().data() + t.begin;
  return text[0] == keyword[0] && std::string_view(text, keyword.size()) == keyword;
}

inline bool SyntaxParser::AcceptPunct(Punct punct) {
  if (!AtPunct(punct)) return false;
  Next();
  return true;
}

inline std::string_view SyntaxParser::TokenText(const Token& token) const {
  return std::string_view(file_.text().data() + token.begin, token.end - token.begin);
}

enum class IntLiteralStatus : uint8_t { kOk, kOverflow, kInvalid };
// Decodes a Python integer literal ("123", "0x1f", "1_000") into an int64.
IntLiteralStatus DecodeIntLiteral(std::string_view text, int64_t* value);
// Decodes a Python float literal ("1.5", "1e-05"); nullopt for imaginary literals.
std::optional<double> DecodeFloatLiteral(std::string_view text);

}  // namespace pipesplit::script

#endif  // PIPESPLIT_SRC_SCRIPT_SYNTAX_PARSER_SYNTAX_H_
