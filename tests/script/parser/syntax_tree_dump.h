// Test helper: every field of a syntax tree (and of the LexInfo) as text, to compare the
// trees two parses of one file build.
#ifndef PIPESPLIT_TESTS_SCRIPT_PARSER_SYNTAX_TREE_DUMP_H_
#define PIPESPLIT_TESTS_SCRIPT_PARSER_SYNTAX_TREE_DUMP_H_

#include <string>
#include <vector>

#include "src/script/syntax/lexer.h"
#include "src/script/syntax/parser_ast.h"

namespace pipesplit::script::testing {

inline void DumpExpr(const PyExpr* e, std::string* out) {
  if (e == nullptr) {
    *out += "_";
    return;
  }
  *out += "(" + std::to_string(static_cast<int>(e->kind)) + " " +
          std::to_string(static_cast<int>(e->op)) + " " + std::to_string(e->bool_value) +
          std::to_string(e->parenthesized) + " " + std::to_string(e->begin) + "-" +
          std::to_string(e->end) + " d" + std::to_string(e->depth) + " '" + std::string(e->text) +
          "' '" + std::string(e->str) + "'";
  for (const PyExpr* item : e->items) {
    *out += " ";
    DumpExpr(item, out);
  }
  for (const PyKeyword& kw : e->keywords) {
    *out += " " + std::string(kw.name) + "@" + std::to_string(kw.name_begin) + "=";
    DumpExpr(kw.value, out);
  }
  *out += ")";
}

inline void DumpStmt(const PyStmt* s, std::string* out, int indent);

inline void DumpStmts(const char* what, const std::vector<PyStmt*>& stmts, std::string* out,
                      int indent) {
  *out += std::string(indent, ' ') + what + " [\n";
  for (const PyStmt* s : stmts) DumpStmt(s, out, indent + 2);
  *out += std::string(indent, ' ') + "]\n";
}

inline void DumpParams(const char* what, const std::vector<PyParam>& params, std::string* out) {
  *out += what;
  for (const PyParam& p : params) {
    *out += " " + std::string(p.name) + "@" + std::to_string(p.begin) + "-" +
            std::to_string(p.end) + ":";
    DumpExpr(p.annotation, out);
    *out += "=";
    DumpExpr(p.default_value, out);
  }
}

inline void DumpStmt(const PyStmt* s, std::string* out, int indent) {
  *out += std::string(indent, ' ') + "stmt " + std::to_string(static_cast<int>(s->kind)) + " " +
          std::to_string(s->begin) + "-" + std::to_string(s->end) + " else" +
          std::to_string(s->has_else) + " name '" + std::string(s->name) + "'@" +
          std::to_string(s->name_begin) + " text '" + std::string(s->text) + "' " +
          std::to_string(s->text_begin) + "-" + std::to_string(s->text_end) + " target ";
  DumpExpr(s->target, out);
  *out += " value ";
  DumpExpr(s->value, out);
  *out += " annotation ";
  DumpExpr(s->annotation, out);
  *out += " returns ";
  DumpExpr(s->returns, out);
  *out += " decorators";
  for (const PyExpr* d : s->decorators) DumpExpr(d, out);
  *out += " bases";
  for (const PyExpr* b : s->bases) DumpExpr(b, out);
  DumpParams(" params", s->params, out);
  DumpParams(" type_params", s->type_params, out);
  *out += " names";
  for (std::string_view n : s->names) *out += " " + std::string(n);
  *out += "\n";
  DumpStmts("body", s->body, out, indent + 2);
  DumpStmts("orelse", s->orelse, out, indent + 2);
}

inline std::string DumpTree(const SyntaxTree& tree, const LexInfo& info) {
  std::string out = "lexinfo " + std::to_string(info.metadata_omitted_comment) +
                    std::to_string(info.legacy_tir_header) +
                    std::to_string(info.current_spelling_names) + "\n";
  DumpStmts("module", tree.body, &out, 0);
  return out;
}

}  // namespace pipesplit::script::testing

#endif  // PIPESPLIT_TESTS_SCRIPT_PARSER_SYNTAX_TREE_DUMP_H_
