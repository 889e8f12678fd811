// Lexing and syntax parsing of a file, in two pieces on two threads when the file is large.
//
// Precondition: none (any text). The result (syntax tree, LexInfo, the diagnostic thrown) is
// the one of the serial Lex + SyntaxParser::ParseFile.
// 1. ChooseSplit guesses a line start near the middle that looks like a plain statement
//    indented as the line above it (the guess is checked by the lexer, step 3).
// 2. Two chunks of support::CompileParallelFor: the head lexes from the start (LexWithSplit)
//    and parses (ParseFile); the tail job lexes from the split (LexTail) and parses its
//    statements (ParseTail) with its own tree. Whichever thread claims the tail job first runs
//    it: the head waits for it only when another thread runs it, so a serial pool (one
//    compile thread, or a loop nested in another's chunk) runs it inline and never deadlocks.
// 3. The head's lexer takes the tail only when it reaches the split line in the state the tail
//    assumed (no open bracket or string, no continuation, the line's indentation on the stack
//    top); otherwise it lexes on serially. The head's parser splices the tail's statements in
//    only in a statement list of the same indentation (SyntaxParser::Splice).
// 4. Any failure of either piece (a diagnostic, or a splice refused) makes the whole file be
//    lexed and parsed again serially, so that diagnostics are exactly the serial ones.
#ifndef PIPESPLIT_SRC_SCRIPT_SYNTAX_PARSE_SPLIT_H_
#define PIPESPLIT_SRC_SCRIPT_SYNTAX_PARSE_SPLIT_H_

#include <cstdint>
#include <string>

#include "pipesplit/support/source.h"
#include "src/script/syntax/lexer.h"
#include "src/script/syntax/parser_ast.h"

namespace pipesplit::script {

struct SplitParseStats {
  bool split = false;  // the tail's statements were spliced in (no serial fallback)
};

// Lexes and parses `file` into *tree (empty) and *info. A file of at least `min_split_bytes`
// bytes (negative: never) is split as above; `split_at` >= 0 (tests) splits at that line start
// instead of ChooseSplit's.
void LexAndParse(const SourceFile& file, int max_depth, int64_t min_split_bytes, SyntaxTree* tree,
                 LexInfo* info, SplitParseStats* stats = nullptr, int64_t split_at = -1);

// The first line start after the line holding `from` that starts with a name other than a
// keyword, indented with spaces as much as the line above, which is not blank, a comment or a
// decorator and does not end with a backslash; -1 when there is none.
int64_t ChooseSplit(const std::string& text, size_t from);

}  // namespace pipesplit::script

#endif  // PIPESPLIT_SRC_SCRIPT_SYNTAX_PARSE_SPLIT_H_
