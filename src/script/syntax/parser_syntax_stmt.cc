// Syntax parser, part 2: statements, definitions and the opaque text of TIR/Python functions.
#include <cctype>

#include "pipesplit/support/diagnostic.h"
#include "src/script/syntax/parser_syntax.h"

namespace pipesplit::script {
std::string DottedName(const PyExpr* e) {
  // Two walks down the attribute chain (size, then the parts filled in from the right): one
  // allocation at most, none for names that fit in the string's inline buffer.
  size_t size = 0;
  const PyExpr* root = e;
  for (; root->kind == PyExprKind::kAttribute; root = root->items[0]) size += root->text.size() + 1;
  if (root->kind != PyExprKind::kName) return {};
  size += root->text.size();
  std::string name(size, '.');
  for (; e->kind == PyExprKind::kAttribute; e = e->items[0]) {
    size -= e->text.size();
    name.replace(size, e->text.size(), e->text);
    --size;  // the dot
  }
  name.replace(0, e->text.size(), e->text);
  return name;
}

namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Whether the decorators mark a TIR function (and not an @I.pyfunc).
bool IsPrimFuncDecorator(const std::vector<PyExpr*>& decorators) {
  bool prim = false;
  for (const PyExpr* d : decorators) {
    const PyExpr* callee = d->kind == PyExprKind::kCall ? d->items[0] : d;
    std::string name = DottedName(callee);
    if (name == "pyfunc" || EndsWith(name, ".pyfunc")) return false;
    prim |= name == "prim_func" || EndsWith(name, ".prim_func");
  }
  return prim;
}

}  // namespace

void SyntaxParser::ParseFile() {
  while (!AtKind(TokenKind::kEnd)) {
    if (AtKind(TokenKind::kNewline) || AtKind(TokenKind::kDedent)) {
      Next();
      continue;
    }
    if (AtKind(TokenKind::kSplice)) {
      Splice(&tree_->body, true);
      continue;
    }
    ParseStatement(&tree_->body);
  }
}

ParsedTail SyntaxParser::ParseTail(uint32_t base) {
  // The statement loop of ParseFile (base 0) or of ParseSuite; the piece ends with kEnd where
  // the file's suite would end with a dedent.
  ParsedTail tail;
  tail.base = base;
  while (!AtKind(TokenKind::kEnd)) {
    if (base == 0 && (AtKind(TokenKind::kNewline) || AtKind(TokenKind::kDedent))) {
      Next();
      continue;
    }
    if (AtKind(TokenKind::kDedent)) throw SplitAbandoned{};
    ParseStatement(&tail.body);
  }
  tail.prev_end = prev_end_;
  tail.max_recursion = max_recursion_;
  return tail;
}

void SyntaxParser::Splice(std::vector<PyStmt*>* out, bool top_level) {
  // The tail parsed like this parser would here when it starts a statement of the same list,
  // outside a @T.prim_func body (its `for` statements), and nests no deeper than allowed.
  const ParsedTail* tail = splice_ ? splice_() : nullptr;
  if (tail == nullptr || (tail->base == 0) != top_level || prim_func_depth_ != 0 ||
      recursion_ + tail->max_recursion > max_depth_) {
    throw SplitAbandoned{};
  }
  out->insert(out->end(), tail->body.begin(), tail->body.end());
  prev_end_ = tail->prev_end;
  ++pos_;  // the kSplice token (never the last one: kEnd follows)
}

void SyntaxParser::ParseStatement(std::vector<PyStmt*>* out) {
  const Token& t = Peek();
  if (t.kind == TokenKind::kIndent) ErrorAt(t.begin, t.begin + 1, "unexpected indent");
  if (t.kind == TokenKind::kPunct && t.punct == Punct::kAt) {
    out->push_back(ParseDecorated());
    return;
  }
  if (t.kind == TokenKind::kName) {
    std::string_view kw = TokenText(t);
    if (kw == "if") {
      Next();
      out->push_back(ParseIf(t.begin));
      return;
    }
    if (kw == "with") {
      out->push_back(ParseWith());
      return;
    }
    if (kw == "def") {
      out->push_back(ParseFunctionDef(t.begin, {}));
      return;
    }
    if (kw == "class") {
      out->push_back(ParseClassDef(t.begin, {}));
      return;
    }
    if (kw == "for" && prim_func_depth_ > 0) {
      out->push_back(ParseFor());
      return;
    }
    if (kw == "while" && prim_func_depth_ > 0) {
      out->push_back(ParseWhile());
      return;
    }
    if (kw == "for" || kw == "while" || kw == "try" || kw == "async") {
      ErrorAt(t, "unsupported statement '" + std::string(kw) + "'");
    }
    if (kw == "elif" || kw == "else" || kw == "except" || kw == "finally") {
      ErrorAt(t, "'" + std::string(kw) + "' without a matching statement");
    }
  }
  ParseSimpleStatements(out);
}

void SyntaxParser::ParseSimpleStatements(std::vector<PyStmt*>* out) {
  while (true) {
    out->push_back(ParseSmallStatement());
    if (!AcceptPunct(Punct::kSemicolon)) break;
    if (AtKind(TokenKind::kNewline) || AtKind(TokenKind::kEnd)) break;
  }
  ExpectNewline();
}

PyStmt* SyntaxParser::ParseSmallStatement() {
  const Token& t = Peek();
  if (t.kind == TokenKind::kName) {
    std::string_view kw = TokenText(t);
    if (kw == "pass") {
      Next();
      PyStmt* s = tree_->NewStmt(PyStmtKind::kPass);
      s->begin = t.begin;
      s->end = t.end;
      return s;
    }
    if (kw == "return") {
      Next();
      PyStmt* s = tree_->NewStmt(PyStmtKind::kReturn);
      s->begin = t.begin;
      if (CanStartExpression(Peek())) s->value = ParseTestList();
      s->end = prev_end_;
      return s;
    }
    if (kw == "import" || kw == "from") return ParseImport();
    if (kw == "assert" && prim_func_depth_ > 0) {
      Next();
      PyStmt* s = tree_->NewStmt(PyStmtKind::kAssert);
      s->begin = t.begin;
      s->value = ParseTest();
      if (AcceptPunct(Punct::kComma)) s->target = ParseTest();
      s->end = prev_end_;
      return s;
    }
    if (kw == "del" || kw == "global" || kw == "nonlocal" || kw == "assert" || kw == "raise" ||
        kw == "break" || kw == "continue" || kw == "yield" || kw == "await") {
      ErrorAt(t, "unsupported statement '" + std::string(kw) + "'");
    }
  }
  uint32_t begin = t.begin;
  PyExpr* lhs = ParseTestList();
  PyStmt* s;
  if (AtPunct(Punct::kColon)) {
    Next();
    s = tree_->NewStmt(PyStmtKind::kAnnAssign);
    s->target = lhs;
    s->annotation = ParseTest();
    if (AcceptPunct(Punct::kAssign)) s->value = ParseTestList();
  } else if (AtPunct(Punct::kAugAssign)) {
    std::string_view op = TokenText(Peek());
    Next();
    s = tree_->NewStmt(PyStmtKind::kAugAssign);
    s->text = op;  // "+=", "//=", ...
    s->target = lhs;
    s->value = ParseTestList();
  } else if (AtPunct(Punct::kAssign)) {
    Next();
    s = tree_->NewStmt(PyStmtKind::kAssign);
    s->target = lhs;
    s->value = ParseTestList();
    if (AtPunct(Punct::kAssign)) {
      ErrorAt(Peek(), "chained assignments like 'a = b = c' are not supported");
    }
  } else {
    s = tree_->NewStmt(PyStmtKind::kExpr);
    s->value = lhs;
  }
  s->begin = begin;
  s->end = prev_end_;
  return s;
}

std::vector<PyStmt*> SyntaxParser::ParseSuite() {
  std::vector<PyStmt*> body;
  if (!AtKind(TokenKind::kNewline)) {
    ParseSimpleStatements(&body);
    return body;
  }
  Next();
  if (!AtKind(TokenKind::kIndent)) ExpectedError("an indented block");
  Next();
  while (!AtKind(TokenKind::kDedent) && !AtKind(TokenKind::kEnd)) {
    if (AtKind(TokenKind::kSplice)) {
      Splice(&body, false);
      continue;
    }
    ParseStatement(&body);
  }
  if (AtKind(TokenKind::kDedent)) Next();
  return body;
}

PyStmt* SyntaxParser::ParseIf(uint32_t begin) {
  DepthGuard guard(this, begin);  // an elif chain nests
  PyStmt* s = tree_->NewStmt(PyStmtKind::kIf);
  s->begin = begin;
  s->value = ParseTest();
  ExpectPunct(Punct::kColon);
  s->body = ParseSuite();
  s->end = prev_end_;
  if (AtKeyword("elif")) {
    uint32_t elif_begin = Next().begin;
    s->orelse.push_back(ParseIf(elif_begin));
    s->has_else = true;
  } else if (AtKeyword("else")) {
    Next();
    ExpectPunct(Punct::kColon);
    s->orelse = ParseSuite();
    s->has_else = true;
  }
  s->end = prev_end_;
  return s;
}

PyStmt* SyntaxParser::ParseWith() {
  PyStmt* s = tree_->NewStmt(PyStmtKind::kWith);
  s->begin = Next().begin;  // 'with'
  s->value = ParseTest();
  if (AtKeyword("as")) {
    Next();
    s->target = ParseAtomExpr();
  }
  if (AtPunct(Punct::kComma)) ErrorAt(Peek(), "only one item is allowed in a with statement");
  ExpectPunct(Punct::kColon);
  s->end = prev_end_;
  s->body = ParseSuite();
  return s;
}

PyStmt* SyntaxParser::ParseDecorated() {
  uint32_t begin = Peek().begin;
  std::vector<PyExpr*> decorators;
  while (AtPunct(Punct::kAt)) {
    Next();
    decorators.push_back(ParseTest());
    ExpectNewline();
  }
  bool opaque = false;
  for (const PyExpr* d : decorators) opaque |= IsOpaqueDecorator(d);
  if (AtKeyword("def")) {
    if (opaque && IsPrimFuncDecorator(decorators)) {
      return ParsePrimFuncDef(begin, std::move(decorators));
    }
    if (opaque) return ParseOpaqueDef(begin, std::move(decorators));
    return ParseFunctionDef(begin, std::move(decorators));
  }
  if (AtKeyword("class")) return ParseClassDef(begin, std::move(decorators));
  ExpectedError("'def' or 'class' after decorators");
}

bool SyntaxParser::IsOpaqueDecorator(const PyExpr* decorator) const {
  const PyExpr* callee = decorator->kind == PyExprKind::kCall ? decorator->items[0] : decorator;
  std::string name = DottedName(callee);
  return name == "prim_func" || EndsWith(name, ".prim_func") || name == "pyfunc" ||
         EndsWith(name, ".pyfunc");
}

PyStmt* SyntaxParser::ParseFunctionDef(uint32_t begin, std::vector<PyExpr*> decorators) {
  PyStmt* s = tree_->NewStmt(PyStmtKind::kFunctionDef);
  s->begin = begin;
  s->decorators = std::move(decorators);
  Next();  // 'def'
  s->name_begin = Peek().begin;
  s->name = ExpectName("a function name");
  if (AtPunct(Punct::kLBracket)) s->type_params = ParseTypeParams();
  s->params = ParseParams();
  if (AcceptPunct(Punct::kArrow)) s->returns = ParseTest();
  ExpectPunct(Punct::kColon);
  s->end = prev_end_;
  s->body = ParseSuite();
  return s;
}

std::vector<PyParam> SyntaxParser::ParseParams() {
  ExpectPunct(Punct::kLParen);
  std::vector<PyParam> params;
  while (!AtPunct(Punct::kRParen)) {
    if (AtPunct(Punct::kStar) || AtPunct(Punct::kDoubleStar) || AtPunct(Punct::kSlash)) {
      ErrorAt(Peek(), "variadic and positional-only parameters are not supported");
    }
    PyParam param;
    param.begin = Peek().begin;
    param.name = ExpectName("a parameter name");
    param.end = prev_end_;
    if (AcceptPunct(Punct::kColon)) param.annotation = ParseTest();
    if (AcceptPunct(Punct::kAssign)) param.default_value = ParseTest();
    params.push_back(param);
    if (!AcceptPunct(Punct::kComma)) break;
  }
  ExpectPunct(Punct::kRParen);
  return params;
}

std::vector<PyParam> SyntaxParser::ParseTypeParams() {
  Next();  // '['
  std::vector<PyParam> params;
  while (!AtPunct(Punct::kRBracket)) {
    if (AtPunct(Punct::kStar) || AtPunct(Punct::kDoubleStar)) {
      ErrorAt(Peek(), "only plain type parameters are supported");
    }
    PyParam param;
    param.begin = Peek().begin;
    param.name = ExpectName("a type parameter name");
    param.end = prev_end_;
    if (AcceptPunct(Punct::kColon)) param.annotation = ParseTest();
    if (AcceptPunct(Punct::kAssign)) param.default_value = ParseTest();
    params.push_back(param);
    if (!AcceptPunct(Punct::kComma)) break;
  }
  ExpectPunct(Punct::kRBracket);
  return params;
}

PyStmt* SyntaxParser::ParseClassDef(uint32_t begin, std::vector<PyExpr*> decorators) {
  PyStmt* s = tree_->NewStmt(PyStmtKind::kClassDef);
  s->begin = begin;
  s->decorators = std::move(decorators);
  Next();  // 'class'
  s->name_begin = Peek().begin;
  s->name = ExpectName("a class name");
  if (AcceptPunct(Punct::kLParen)) {
    while (!AtPunct(Punct::kRParen)) {
      if (Peek().kind == TokenKind::kName && AtPunct(Punct::kAssign, 1)) {
        ErrorAt(Peek(), "class keywords are not supported");
      }
      s->bases.push_back(ParseTest());
      if (!AcceptPunct(Punct::kComma)) break;
    }
    ExpectPunct(Punct::kRParen);
  }
  ExpectPunct(Punct::kColon);
  s->end = prev_end_;
  s->body = ParseSuite();
  return s;
}

PyStmt* SyntaxParser::ParseOpaqueDef(uint32_t begin, std::vector<PyExpr*> decorators) {
  PyStmt* s = tree_->NewStmt(PyStmtKind::kOpaqueDef);
  s->begin = begin;
  s->decorators = std::move(decorators);
  Next();  // 'def'
  s->name_begin = Peek().begin;
  s->name = ExpectName("a function name");
  // Skip the rest of the header (its newlines are inside brackets, so the first NEWLINE ends
  // it), then the indented body, remembering where its last logical line ends.
  while (!AtKind(TokenKind::kNewline) && !AtKind(TokenKind::kEnd)) Next();
  uint32_t text_end = Peek().begin;
  if (AtKind(TokenKind::kNewline)) Next();
  if (AtKind(TokenKind::kIndent)) {
    int depth = 0;
    while (!AtKind(TokenKind::kEnd)) {
      const Token& t = Next();
      if (t.kind == TokenKind::kSplice) throw SplitAbandoned{};  // a split inside the body
      if (t.kind == TokenKind::kIndent) ++depth;
      if (t.kind == TokenKind::kNewline) text_end = t.begin;
      if (t.kind == TokenKind::kDedent && --depth == 0) break;
    }
  }
  const std::string& text = file_.text();
  // Comment lines after the body that are indented deeper than the decorator belong to it.
  size_t line_start = begin;
  while (line_start > 0 && text[line_start - 1] != '\n') --line_start;
  size_t decorator_col = begin - line_start;
  size_t p = text_end;
  while (p < text.size() && text[p] == '\n') {
    size_t q = p + 1;
    size_t col = 0;
    while (q < text.size() && (text[q] == ' ' || text[q] == '\t')) ++q, ++col;
    size_t line_end = text.find('\n', q);
    if (line_end == std::string::npos) line_end = text.size();
    if (q < text.size() && (text[q] == '\n' || text[q] == '\r')) {
      p = line_end;
      continue;
    }
    if (q >= text.size() || text[q] != '#' || col <= decorator_col) break;
    text_end = static_cast<uint32_t>(line_end);
    p = line_end;
  }
  if (text_end > begin && text[text_end - 1] == '\r') --text_end;
  s->text_begin = begin;
  s->text_end = text_end;
  s->end = text_end;
  return s;
}

PyStmt* SyntaxParser::ParsePrimFuncDef(uint32_t begin, std::vector<PyExpr*> decorators) {
  PyStmt* s = tree_->NewStmt(PyStmtKind::kOpaqueDef);
  s->begin = begin;
  s->decorators = std::move(decorators);
  Next();  // 'def'
  s->name_begin = Peek().begin;
  s->name = ExpectName("a function name");
  if (AtPunct(Punct::kLBracket)) s->type_params = ParseTypeParams();
  s->params = ParseParams();
  if (AcceptPunct(Punct::kArrow)) s->returns = ParseTest();
  ExpectPunct(Punct::kColon);
  ++prim_func_depth_;
  s->body = ParseSuite();
  --prim_func_depth_;
  s->text_begin = begin;
  s->text_end = prev_end_;
  s->end = prev_end_;
  return s;
}

PyStmt* SyntaxParser::ParseFor() {
  PyStmt* s = tree_->NewStmt(PyStmtKind::kFor);
  s->begin = Next().begin;  // 'for'
  uint32_t target_begin = Peek().begin;
  std::vector<PyExpr*> targets;
  bool comma = false;
  while (true) {
    targets.push_back(ParseAtomExpr());
    if (!AcceptPunct(Punct::kComma)) break;
    comma = true;
    if (AtKeyword("in")) break;
  }
  s->target = targets.size() == 1 && !comma
                  ? targets[0]
                  : NewNode(PyExprKind::kTuple, PyOp::kNone, targets, target_begin, prev_end_);
  if (!AtKeyword("in")) ExpectedError("'in'");
  Next();
  s->value = ParseTestList();
  ExpectPunct(Punct::kColon);
  s->end = prev_end_;
  s->body = ParseSuite();
  return s;
}

PyStmt* SyntaxParser::ParseWhile() {
  PyStmt* s = tree_->NewStmt(PyStmtKind::kWhile);
  s->begin = Next().begin;  // 'while'
  s->value = ParseTest();
  ExpectPunct(Punct::kColon);
  s->end = prev_end_;
  s->body = ParseSuite();
  if (AtKeyword("else")) ErrorAt(Peek(), "'else' after a while loop is not supported");
  return s;
}

PyStmt* SyntaxParser::ParseImport() {
  PyStmt* s = tree_->NewStmt(PyStmtKind::kImport);
  const Token& kw = Next();
  s->begin = kw.begin;
  auto dotted = [&]() {
    uint32_t b = Peek().begin;
    ExpectName("a module name");
    while (AcceptPunct(Punct::kDot)) ExpectName("a module name");
    return std::string_view(file_.text()).substr(b, prev_end_ - b);
  };
  if (TokenText(kw) == "from") {
    uint32_t b = Peek().begin;
    while (AtPunct(Punct::kDot) || AtPunct(Punct::kEllipsis)) Next();
    if (!AtKeyword("import")) dotted();
    s->text = std::string_view(file_.text()).substr(b, prev_end_ - b);
    if (!AtKeyword("import")) ExpectedError("'import'");
    Next();
    bool paren = AcceptPunct(Punct::kLParen);
    if (AtPunct(Punct::kStar)) {
      Next();
      s->names.push_back("*");
    } else {
      while (true) {
        s->names.push_back(ExpectName("a name to import"));
        if (AtKeyword("as")) {
          Next();
          ExpectName("an alias");
        }
        if (!AcceptPunct(Punct::kComma)) break;
        if (paren && AtPunct(Punct::kRParen)) break;
      }
    }
    if (paren) ExpectPunct(Punct::kRParen);
  } else {
    while (true) {
      s->names.push_back(dotted());
      if (AtKeyword("as")) {
        Next();
        ExpectName("an alias");
      }
      if (!AcceptPunct(Punct::kComma)) break;
    }
  }
  s->end = prev_end_;
  return s;
}

}  // namespace pipesplit::script
