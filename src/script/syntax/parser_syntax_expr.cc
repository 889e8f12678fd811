// Syntax parser, part 1: expressions (token access and node construction are in
// parser_syntax_tokens.cc).
#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "pipesplit/support/diagnostic.h"
#include "src/script/syntax/parser_syntax.h"

namespace pipesplit::script {
namespace {

// `-x`, `+x`, `~x`.
bool IsUnaryOperator(const Token& t) {
  return t.kind == TokenKind::kPunct &&
         (t.punct == Punct::kMinus || t.punct == Punct::kPlus || t.punct == Punct::kTilde);
}

// Tokens that end an expression (no operator or keyword can follow the operand before them).
bool EndsOperand(const Token& t) {
  if (t.kind == TokenKind::kNewline || t.kind == TokenKind::kEnd) return true;
  if (t.kind != TokenKind::kPunct) return false;
  switch (t.punct) {
    case Punct::kRParen:
    case Punct::kRBracket:
    case Punct::kRBrace:
    case Punct::kComma:
    case Punct::kColon:
    case Punct::kAssign:
    case Punct::kSemicolon:
    case Punct::kArrow:
      return true;
    default:
      return false;
  }
}

}  // namespace

// ---- Expressions ----

PyExpr* SyntaxParser::ParseStandaloneExpression() {
  PyExpr* e = ParseTest();
  while (AtKind(TokenKind::kNewline)) Next();
  if (!AtKind(TokenKind::kEnd)) ExpectedError("end of expression");
  return e;
}

PyExpr* SyntaxParser::ParseTestList() {
  uint32_t begin = Peek().begin;
  PyExpr* first = ParseTest();
  if (!AtPunct(Punct::kComma)) return first;
  std::vector<PyExpr*> items{first};
  while (AcceptPunct(Punct::kComma)) {
    if (!CanStartExpression(Peek())) break;
    items.push_back(ParseTest());
  }
  return NewNode(PyExprKind::kTuple, PyOp::kNone, items, begin, prev_end_);
}

PyExpr* SyntaxParser::ParseTest() {
  DepthGuard guard(this, Peek().begin);
  if (AtKeyword("lambda")) return ParseLambda();
  uint32_t begin = Peek().begin;
  PyExpr* body = nullptr;
  if (!IsUnaryOperator(Peek()) && !AtKeyword("not")) {
    // Most expressions are one operand (a name, a number, a call, a subscript): it is parsed
    // directly, and the operator levels run only when an operator follows it.
    PyExpr* first = ParsePower();
    if (EndsOperand(Peek())) return first;
    body = ParseOrTest(first, begin);
  } else {
    body = ParseOrTest();
  }
  if (!AtKeyword("if")) return body;
  Next();
  PyExpr* cond = ParseOrTest();
  if (!AtKeyword("else")) ExpectedError("'else'");
  Next();
  PyExpr* orelse = ParseTest();
  return NewNode(PyExprKind::kIfExp, PyOp::kNone, {cond, body, orelse}, begin, prev_end_);
}

PyExpr* SyntaxParser::ParseLambda() {
  uint32_t begin = Next().begin;  // 'lambda'
  std::vector<PyKeyword> params;
  while (!AtPunct(Punct::kColon)) {
    uint32_t name_begin = Peek().begin;
    std::string_view name = ExpectName("a lambda parameter name");
    params.push_back({name, name_begin, nullptr});
    if (AtPunct(Punct::kAssign)) ErrorAt(Peek(), "lambda parameter defaults are not supported");
    if (!AcceptPunct(Punct::kComma)) break;
  }
  ExpectPunct(Punct::kColon);
  PyExpr* body = ParseTest();
  PyExpr* e = NewExpr(PyExprKind::kLambda, begin, prev_end_);
  e->items = tree_->List(std::vector<PyExpr*>{body});
  e->keywords = tree_->List(params);
  SetDepth(e);
  return e;
}

PyExpr* SyntaxParser::ParseOrTest(PyExpr* first_operand, uint32_t first_begin) {
  uint32_t begin = first_operand != nullptr ? first_begin : Peek().begin;
  PyExpr* first = ParseAndTest(first_operand, first_begin);
  if (!AtKeyword("or")) return first;
  std::vector<PyExpr*> items{first};
  while (AtKeyword("or")) {
    Next();
    items.push_back(ParseAndTest());
  }
  return NewNode(PyExprKind::kBoolOp, PyOp::kOr, items, begin, prev_end_);
}

PyExpr* SyntaxParser::ParseAndTest(PyExpr* first_operand, uint32_t first_begin) {
  uint32_t begin = first_operand != nullptr ? first_begin : Peek().begin;
  PyExpr* first = ParseNotTest(first_operand, first_begin);
  if (!AtKeyword("and")) return first;
  std::vector<PyExpr*> items{first};
  while (AtKeyword("and")) {
    Next();
    items.push_back(ParseNotTest());
  }
  return NewNode(PyExprKind::kBoolOp, PyOp::kAnd, items, begin, prev_end_);
}

PyExpr* SyntaxParser::ParseNotTest(PyExpr* first, uint32_t first_begin) {
  if (first != nullptr || !AtKeyword("not")) return ParseComparison(first, first_begin);
  DepthGuard guard(this, Peek().begin);
  uint32_t begin = Next().begin;
  PyExpr* operand = ParseNotTest();
  return NewNode(PyExprKind::kUnaryOp, PyOp::kNot, {operand}, begin, prev_end_);
}

PyExpr* SyntaxParser::ParseComparison(PyExpr* first, uint32_t first_begin) {
  uint32_t begin = first != nullptr ? first_begin : Peek().begin;
  PyExpr* lhs = ParseBinary(0, first, first_begin);
  auto comparison_op = [&]() -> PyOp {
    const Token& t = Peek();
    if (t.kind == TokenKind::kPunct) {
      switch (t.punct) {
        case Punct::kLess:
          return PyOp::kLt;
        case Punct::kGreater:
          return PyOp::kGt;
        case Punct::kLessEq:
          return PyOp::kLtE;
        case Punct::kGreaterEq:
          return PyOp::kGtE;
        case Punct::kEqEq:
          return PyOp::kEq;
        case Punct::kNotEq:
          return PyOp::kNotEq;
        default:
          return PyOp::kNone;
      }
    }
    if (AtKeyword("in")) return PyOp::kIn;
    if (AtKeyword("is")) return AtKeyword("not", 1) ? PyOp::kIsNot : PyOp::kIs;
    if (AtKeyword("not") && AtKeyword("in", 1)) return PyOp::kNotIn;
    return PyOp::kNone;
  };
  PyOp op = comparison_op();
  if (op == PyOp::kNone) return lhs;
  Next();
  if (op == PyOp::kIsNot || op == PyOp::kNotIn) Next();
  PyExpr* rhs = ParseBinary(0);
  if (comparison_op() != PyOp::kNone) ErrorAt(Peek(), "chained comparisons are not supported");
  return NewNode(PyExprKind::kCompare, op, {lhs, rhs}, begin, prev_end_);
}

namespace {

// The level of a binary operator token in ParseBinary (0 `|`, 1 `^`, 2 `&`, 3 shifts,
// 4 `+ -`, 5 `* / // % @`), or -1 when the token is none.
int BinaryLevel(const Token& t, PyOp* op) {
  if (t.kind != TokenKind::kPunct) return -1;
  switch (t.punct) {
    case Punct::kPipe:
      *op = PyOp::kBitOr;
      return 0;
    case Punct::kCaret:
      *op = PyOp::kBitXor;
      return 1;
    case Punct::kAmp:
      *op = PyOp::kBitAnd;
      return 2;
    case Punct::kLShift:
      *op = PyOp::kLShift;
      return 3;
    case Punct::kRShift:
      *op = PyOp::kRShift;
      return 3;
    case Punct::kPlus:
      *op = PyOp::kAdd;
      return 4;
    case Punct::kMinus:
      *op = PyOp::kSub;
      return 4;
    case Punct::kStar:
      *op = PyOp::kMul;
      return 5;
    case Punct::kSlash:
      *op = PyOp::kDiv;
      return 5;
    case Punct::kDoubleSlash:
      *op = PyOp::kFloorDiv;
      return 5;
    case Punct::kPercent:
      *op = PyOp::kMod;
      return 5;
    case Punct::kAt:
      *op = PyOp::kMatMul;
      return 5;
    default:
      return -1;
  }
}

constexpr int kTightestBinaryLevel = 5;

}  // namespace

// Precedence climbing: one factor, then every operator of `level` or tighter, left to right;
// an operator's right operand takes only the operators tighter than its own (all of these
// associate to the left). One call per operand instead of one per level.
PyExpr* SyntaxParser::ParseBinary(int level, PyExpr* first, uint32_t first_begin) {
  uint32_t begin = first != nullptr ? first_begin : Peek().begin;
  PyExpr* lhs = first != nullptr ? first : ParseFactor();
  while (true) {
    PyOp op = PyOp::kNone;
    int op_level = BinaryLevel(Peek(), &op);
    if (op_level < level) break;
    Next();
    PyExpr* rhs = op_level < kTightestBinaryLevel ? ParseBinary(op_level + 1) : ParseFactor();
    lhs = NewNode(PyExprKind::kBinOp, op, {lhs, rhs}, begin, prev_end_);
  }
  return lhs;
}

PyExpr* SyntaxParser::ParseFactor() {
  const Token& t = Peek();
  PyOp op = PyOp::kNone;
  if (t.kind == TokenKind::kPunct) {
    if (t.punct == Punct::kMinus) op = PyOp::kUSub;
    if (t.punct == Punct::kPlus) op = PyOp::kUAdd;
    if (t.punct == Punct::kTilde) op = PyOp::kInvert;
  }
  if (op == PyOp::kNone) return ParsePower();
  DepthGuard guard(this, t.begin);
  uint32_t begin = Next().begin;
  PyExpr* operand = ParseFactor();
  return NewNode(PyExprKind::kUnaryOp, op, {operand}, begin, prev_end_);
}

PyExpr* SyntaxParser::ParsePower() {
  uint32_t begin = Peek().begin;
  PyExpr* base = ParseAtomExpr();
  if (!AtPunct(Punct::kDoubleStar)) return base;
  Next();
  PyExpr* exponent = ParseFactor();
  return NewNode(PyExprKind::kBinOp, PyOp::kPow, {base, exponent}, begin, prev_end_);
}

PyExpr* SyntaxParser::ParseAtomExpr() {
  uint32_t begin = Peek().begin;
  PyExpr* e = ParseAtom();
  while (true) {
    if (AtPunct(Punct::kLParen)) {
      e = ParseCallArgs(e);
    } else if (AtPunct(Punct::kLBracket)) {
      e = ParseSubscript(e);
    } else if (AtPunct(Punct::kDot)) {
      Next();
      uint32_t name_begin = Peek().begin;
      std::string_view name = ExpectName("an attribute name");
      PyExpr* attr = NewNode(PyExprKind::kAttribute, PyOp::kNone, {e}, begin, prev_end_);
      attr->text = name;
      (void)name_begin;
      e = attr;
    } else {
      break;
    }
  }
  return e;
}

PyExpr* SyntaxParser::ParseAtom() {
  const Token& t = Peek();
  switch (t.kind) {
    case TokenKind::kName: {
      std::string_view s = TokenText(t);
      if (s == "None" || s == "True" || s == "False") {
        Next();
        PyExpr* e = NewExpr(s == "None" ? PyExprKind::kNone : PyExprKind::kBool, t.begin, t.end);
        e->bool_value = s == "True";
        e->text = s;
        return e;
      }
      if (IsPythonKeyword(s)) ExpectedError("an expression");
      Next();
      PyExpr* e = NewExpr(PyExprKind::kName, t.begin, t.end);
      e->text = s;
      return e;
    }
    case TokenKind::kNumber: {
      Next();
      std::string_view s = TokenText(t);
      bool is_float = false;
      bool is_prefixed =
          s.size() > 1 && s[0] == '0' && std::isalpha(static_cast<unsigned char>(s[1]));
      if (!is_prefixed) {
        for (char c : s) {
          if (c == '.' || c == 'e' || c == 'E') is_float = true;
          if (c == 'j' || c == 'J') ErrorAt(t, "complex literals are not supported");
        }
      }
      PyExpr* e = NewExpr(is_float ? PyExprKind::kFloat : PyExprKind::kInt, t.begin, t.end);
      e->text = s;
      return e;
    }
    case TokenKind::kString:
      return ParseStrings();
    case TokenKind::kPunct:
      switch (t.punct) {
        case Punct::kLParen:
          return ParseParenthesized();
        case Punct::kLBracket:
          return ParseListDisplay();
        case Punct::kLBrace:
          return ParseDictDisplay();
        case Punct::kEllipsis: {
          Next();
          return NewExpr(PyExprKind::kEllipsis, t.begin, t.end);
        }
        default:
          break;
      }
      break;
    default:
      break;
  }
  ExpectedError("an expression");
}

PyExpr* SyntaxParser::ParseParenthesized() {
  uint32_t begin = Next().begin;  // '('
  if (AtPunct(Punct::kRParen)) {
    Next();
    return NewNode(PyExprKind::kTuple, PyOp::kNone, {}, begin, prev_end_);
  }
  PyExpr* first = ParseTest();
  if (AtKeyword("for")) ErrorAt(Peek(), "generator expressions are not supported");
  if (AcceptPunct(Punct::kRParen)) {
    first->parenthesized = true;
    return first;
  }
  StackMark mark(this);
  expr_stack_.push_back(first);
  while (AcceptPunct(Punct::kComma)) {
    if (AtPunct(Punct::kRParen)) break;
    PyExpr* item = ParseTest();
    expr_stack_.push_back(item);
  }
  ExpectPunct(Punct::kRParen);
  PyExpr* tuple =
      NewNode(PyExprKind::kTuple, PyOp::kNone, mark.exprs(), mark.num_exprs(), begin, prev_end_);
  tuple->parenthesized = true;
  return tuple;
}

PyExpr* SyntaxParser::ParseListDisplay() {
  uint32_t begin = Next().begin;  // '['
  std::vector<PyExpr*> items;
  while (!AtPunct(Punct::kRBracket)) {
    items.push_back(ParseTest());
    if (AtKeyword("for")) ErrorAt(Peek(), "list comprehensions are not supported");
    if (!AcceptPunct(Punct::kComma)) break;
  }
  ExpectPunct(Punct::kRBracket);
  return NewNode(PyExprKind::kList, PyOp::kNone, items, begin, prev_end_);
}

PyExpr* SyntaxParser::ParseDictDisplay() {
  uint32_t begin = Next().begin;  // '{'
  std::vector<PyExpr*> items;
  while (!AtPunct(Punct::kRBrace)) {
    if (AtPunct(Punct::kDoubleStar)) ErrorAt(Peek(), "dictionary unpacking is not supported");
    items.push_back(ParseTest());
    if (!AtPunct(Punct::kColon)) {
      if (AtPunct(Punct::kComma) || AtPunct(Punct::kRBrace)) {
        ErrorAt(Peek(), "set displays are not supported");
      }
      ExpectPunct(Punct::kColon);
    }
    Next();
    items.push_back(ParseTest());
    if (AtKeyword("for")) ErrorAt(Peek(), "dictionary comprehensions are not supported");
    if (!AcceptPunct(Punct::kComma)) break;
  }
  ExpectPunct(Punct::kRBrace);
  return NewNode(PyExprKind::kDict, PyOp::kNone, items, begin, prev_end_);
}

PyExpr* SyntaxParser::ParseCallArgs(PyExpr* func) {
  Next();  // '('
  PyExpr* call = NewExpr(PyExprKind::kCall, func->begin, func->end);
  StackMark mark(this);
  expr_stack_.push_back(func);
  while (!AtPunct(Punct::kRParen)) {
    const Token& t = Peek();
    if (t.kind == TokenKind::kName && AtPunct(Punct::kAssign, 1)) {
      std::string_view name = ExpectName("a keyword argument name");
      Next();  // '='
      PyExpr* value = ParseTest();
      for (size_t i = 0; i < mark.num_keywords(); ++i) {
        if (mark.keywords()[i].name == name) {
          ErrorAt(t, "keyword argument '" + std::string(name) + "' repeated");
        }
      }
      keyword_stack_.push_back({name, t.begin, value});
    } else if (AtPunct(Punct::kDoubleStar)) {
      ErrorAt(t, "'**' arguments are not supported");
    } else {
      if (mark.num_keywords() != 0) {
        ErrorAt(t, "positional argument follows keyword argument");
      }
      PyExpr* arg;
      if (AtPunct(Punct::kStar)) {
        uint32_t star = Next().begin;
        PyExpr* value = ParseTest();
        arg = NewNode(PyExprKind::kStarred, PyOp::kNone, {value}, star, prev_end_);
      } else {
        arg = ParseTest();
      }
      if (AtKeyword("for")) ErrorAt(Peek(), "generator expressions are not supported");
      expr_stack_.push_back(arg);
    }
    if (!AcceptPunct(Punct::kComma)) break;
  }
  ExpectPunct(Punct::kRParen);
  call->items = tree_->List(mark.exprs(), mark.num_exprs());
  call->keywords = tree_->List(mark.keywords(), mark.num_keywords());
  call->end = prev_end_;
  SetDepth(call);
  return call;
}

PyExpr* SyntaxParser::ParseSubscript(PyExpr* value) {
  uint32_t index_begin = Next().end;  // '['
  std::vector<PyExpr*> items;
  bool trailing_comma = false;
  while (!AtPunct(Punct::kRBracket)) {
    items.push_back(ParseSliceItem());
    trailing_comma = AcceptPunct(Punct::kComma);
    if (!trailing_comma) break;
  }
  if (items.empty()) ExpectedError("a subscript");
  uint32_t index_end = Peek().begin;
  ExpectPunct(Punct::kRBracket);
  PyExpr* index = items[0];
  if (items.size() > 1 || trailing_comma) {
    index = NewNode(PyExprKind::kTuple, PyOp::kNone, items, index_begin, index_end);
  }
  return NewNode(PyExprKind::kSubscript, PyOp::kNone, {value, index}, value->begin, prev_end_);
}

PyExpr* SyntaxParser::ParseSliceItem() {
  uint32_t begin = Peek().begin;
  PyExpr* lower = nullptr;
  if (!AtPunct(Punct::kColon)) {
    lower = ParseTest();
    if (!AtPunct(Punct::kColon)) return lower;
  }
  Next();  // ':'
  PyExpr* upper = nullptr;
  PyExpr* step = nullptr;
  if (!AtPunct(Punct::kColon) && !AtPunct(Punct::kComma) && !AtPunct(Punct::kRBracket)) {
    upper = ParseTest();
  }
  if (AcceptPunct(Punct::kColon)) {
    if (!AtPunct(Punct::kComma) && !AtPunct(Punct::kRBracket)) step = ParseTest();
  }
  return NewNode(PyExprKind::kSlice, PyOp::kNone, {lower, upper, step}, begin, prev_end_);
}

PyExpr* SyntaxParser::ParseStrings() {
  const Token& first = Peek();
  PyExpr* e = NewExpr(PyExprKind::kString, first.begin, first.end);
  std::string value;
  while (AtKind(TokenKind::kString)) {
    const Token& t = Next();
    DecodeString(t, &value);
    e->end = t.end;
  }
  e->str = tree_->Str(std::move(value));
  e->text = std::string_view(file_.text()).substr(e->begin, e->end - e->begin);
  return e;
}

}  // namespace pipesplit::script
