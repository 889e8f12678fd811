// Helpers shared by the parser tests: parsing snippets, the first line of a diagnostic, and
// walking a function's bindings.
#ifndef PIPESPLIT_TESTS_SCRIPT_PARSER_PARSER_TEST_UTIL_H_
#define PIPESPLIT_TESTS_SCRIPT_PARSER_PARSER_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "pipesplit/ir/expr.h"
#include "pipesplit/ir/module.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/support/diagnostic.h"
#include "pipesplit/support/source.h"

namespace pipesplit::script::testing {

inline ir::IRModule Parse(std::string_view text, const ParseOptions& options = {}) {
  return ParseModule(text, "test.py", options);
}

// The first line of the diagnostic the text produces ("test.py:3:5: error: ..."), or a
// description of what happened instead.
inline std::string ParseError(std::string_view text, const ParseOptions& options = {}) {
  try {
    ParseModule(text, "test.py", options);
  } catch (const DiagnosticError& e) {
    std::string what = e.what();
    return what.substr(0, what.find('\n'));
  } catch (const std::exception& e) {
    return std::string("non-diagnostic exception: ") + e.what();
  }
  return "no error";
}

// "line:col" of the start of a span.
inline std::string Pos(Span span) {
  LineCol lc = SourceManager::Global().Locate(span);
  return std::to_string(lc.line) + ":" + std::to_string(lc.col);
}

// The text a span covers.
inline std::string SpanText(Span span) {
  if (!span.valid()) return "<invalid>";
  const SourceFile& file = SourceManager::Global().Get(span.file);
  return file.text().substr(span.begin, span.end - span.begin);
}

inline ir::Function GetFunction(const ir::IRModule& mod, std::string_view name) {
  ir::Function f = mod.LookupFunction(name);
  EXPECT_NE(f, nullptr) << "no function " << name;
  return f;
}

inline const ir::SeqExprNode& Body(const ir::Function& f) {
  return *ir::As<ir::SeqExprNode>(f->body());
}

// Every binding of a SeqExpr, block after block.
inline std::vector<ir::Binding> AllBindings(const ir::SeqExprNode& seq) {
  std::vector<ir::Binding> out;
  for (const ir::BindingBlock& block : seq.blocks()) {
    out.insert(out.end(), block->bindings().begin(), block->bindings().end());
  }
  return out;
}

inline std::vector<ir::Binding> AllBindings(const ir::Function& f) { return AllBindings(Body(f)); }

// The binding whose var is named `name` (the last one when several are).
inline ir::Binding FindBinding(const ir::Function& f, std::string_view name) {
  ir::Binding found;
  for (const ir::Binding& b : AllBindings(f)) {
    if (b->var()->name_hint() == name) found = b;
  }
  EXPECT_NE(found, nullptr) << "no binding " << name;
  return found;
}

// The op name of a call value ("relax.add"), or "" when it is not an op call.
inline std::string OpName(const ir::Expr& e) {
  const auto* call = ir::As<ir::CallNode>(e);
  if (call == nullptr || call->op_node() == nullptr) return "";
  return call->op_node()->name();
}

}  // namespace pipesplit::script::testing

#endif  // PIPESPLIT_TESTS_SCRIPT_PARSER_PARSER_TEST_UTIL_H_
