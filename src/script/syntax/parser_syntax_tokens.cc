// Syntax parser: construction, token access, diagnostics and node construction (the
// expression grammar is in parser_syntax_expr.cc, statements in parser_syntax_stmt.cc).
#include "pipesplit/support/diagnostic.h"
#include "src/script/syntax/parser_syntax.h"

namespace pipesplit::script {

bool IsPythonKeyword(std::string_view s) {
  // Python's keywords grouped by length (2 to 8 letters): a name is compared only with the
  // few of its own length, and the first letter rejects nearly every identifier at once.
  static constexpr std::string_view k2[] = {"as", "if", "in", "is", "or"};
  static constexpr std::string_view k3[] = {"and", "def", "del", "for", "not", "try"};
  static constexpr std::string_view k4[] = {"None", "True", "elif", "else", "from", "pass", "with"};
  static constexpr std::string_view k5[] = {"False", "async", "await", "break",
                                            "class", "raise", "while", "yield"};
  static constexpr std::string_view k6[] = {"assert", "except", "global",
                                            "import", "lambda", "return"};
  static constexpr std::string_view k7[] = {"finally"};
  static constexpr std::string_view k8[] = {"continue", "nonlocal"};
  auto any_of = [s](const auto& keywords) {
    for (std::string_view k : keywords) {
      if (k[0] == s[0] && k == s) return true;
    }
    return false;
  };
  switch (s.size()) {
    case 2:
      return any_of(k2);
    case 3:
      return any_of(k3);
    case 4:
      return any_of(k4);
    case 5:
      return any_of(k5);
    case 6:
      return any_of(k6);
    case 7:
      return any_of(k7);
    case 8:
      return any_of(k8);
    default:
      return false;
  }
}

SyntaxParser::SyntaxParser(const SourceFile& file, const std::vector<Token>& tokens, int max_depth,
                           SyntaxTree* tree)
    : file_(file), tokens_(tokens), max_depth_(max_depth), tree_(tree) {}

SyntaxParser::DepthGuard::DepthGuard(SyntaxParser* parser, uint32_t begin) : parser_(parser) {
  if (++parser_->recursion_ > parser_->max_depth_) {
    --parser_->recursion_;
    parser_->ErrorAt(begin, begin + 1,
                     "expression is nested too deeply (limit " +
                         std::to_string(parser_->max_depth_) + " levels)");
  }
  parser_->max_recursion_ = std::max(parser_->max_recursion_, parser_->recursion_);
}

// ---- Token access ----

const Token& SyntaxParser::ExpectPunct(Punct punct) {
  if (!AtPunct(punct)) {
    ErrorAt(Peek(), std::string("expected '") + PunctSpelling(punct) + "' but found " +
                        DescribeToken(file_, Peek()));
  }
  return Next();
}

std::string_view SyntaxParser::ExpectName(const char* what) {
  const Token& t = Peek();
  if (t.kind != TokenKind::kName || IsPythonKeyword(TokenText(t))) ExpectedError(what);
  Next();
  return TokenText(t);
}

void SyntaxParser::ExpectNewline() {
  if (AtKind(TokenKind::kNewline)) {
    Next();
    return;
  }
  if (AtKind(TokenKind::kEnd)) return;
  ErrorAt(Peek(), "expected newline but found " + DescribeToken(file_, Peek()));
}

void SyntaxParser::ErrorAt(const Token& token, std::string message) const {
  uint32_t end = token.end > token.begin ? token.end : token.begin + 1;
  ErrorAt(token.begin, end, std::move(message));
}

void SyntaxParser::ErrorAt(uint32_t begin, uint32_t end, std::string message) const {
  uint32_t size = static_cast<uint32_t>(file_.text().size());
  begin = std::min(begin, size);
  ThrowError(Span{file_.id(), begin, std::clamp(end, begin, size)}, std::move(message));
}

void SyntaxParser::ExpectedError(const char* what) const {
  ErrorAt(Peek(), std::string("expected ") + what + " but found " + DescribeToken(file_, Peek()));
}

bool SyntaxParser::CanStartExpression(const Token& t) const {
  switch (t.kind) {
    case TokenKind::kNumber:
    case TokenKind::kString:
      return true;
    case TokenKind::kName: {
      std::string_view s = TokenText(t);
      return !IsPythonKeyword(s) || s == "None" || s == "True" || s == "False" || s == "not" ||
             s == "lambda";
    }
    case TokenKind::kPunct:
      return t.punct == Punct::kLParen || t.punct == Punct::kLBracket ||
             t.punct == Punct::kLBrace || t.punct == Punct::kMinus || t.punct == Punct::kPlus ||
             t.punct == Punct::kTilde || t.punct == Punct::kEllipsis || t.punct == Punct::kStar;
    default:
      return false;
  }
}

// ---- Node construction ----

PyExpr* SyntaxParser::NewExpr(PyExprKind kind, uint32_t begin, uint32_t end) {
  PyExpr* e = tree_->NewExpr(kind);
  e->begin = begin;
  e->end = end;
  return e;
}

PyExpr* SyntaxParser::NewNode(PyExprKind kind, PyOp op, const std::vector<PyExpr*>& items,
                              uint32_t begin, uint32_t end) {
  return NewNode(kind, op, items.data(), items.size(), begin, end);
}

PyExpr* SyntaxParser::NewNode(PyExprKind kind, PyOp op, std::initializer_list<PyExpr*> items,
                              uint32_t begin, uint32_t end) {
  return NewNode(kind, op, items.begin(), items.size(), begin, end);
}

PyExpr* SyntaxParser::NewNode(PyExprKind kind, PyOp op, PyExpr* const* items, size_t size,
                              uint32_t begin, uint32_t end) {
  PyExpr* e = NewExpr(kind, begin, end);
  e->op = op;
  e->items = tree_->List(items, size);
  SetDepth(e);
  return e;
}

void SyntaxParser::SetDepth(PyExpr* e) {
  uint32_t depth = 0;
  for (const PyExpr* item : e->items) {
    if (item != nullptr) depth = std::max(depth, item->depth);
  }
  for (const PyKeyword& kw : e->keywords) {
    if (kw.value != nullptr) depth = std::max(depth, kw.value->depth);
  }
  e->depth = depth + 1;
  if (e->depth > static_cast<uint32_t>(max_depth_)) {
    ErrorAt(e->begin, e->end,
            "expression is nested too deeply (limit " + std::to_string(max_depth_) + " levels)");
  }
}

}  // namespace pipesplit::script
