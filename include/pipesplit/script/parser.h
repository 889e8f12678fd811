// TVMScript (Relax) parser.
//
// Reads one `@I.ir_module` class in either syntax in the wild (classic 2023..mid-2026, and
// the current one of Aug 2026; see shared/spec/tvmscript.md) into an IRModule. `@T.prim_func`
// members are kept as opaque text. Bindings are normalized through a BlockBuilder, so every
// expression gets its struct info; a binding annotation wins over the inferred info when both
// exist and are compatible.
//
// Errors are DiagnosticErrors at the offending text ("file:line:col: error: ..."); no input
// makes the parser crash, recurse without bound or run out of memory (nesting deeper than
// ParseOptions::max_depth is reported as an error).
#ifndef PIPESPLIT_SCRIPT_PARSER_H_
#define PIPESPLIT_SCRIPT_PARSER_H_

#include <string>
#include <string_view>

#include "pipesplit/ir/module.h"
#include "pipesplit/support/source.h"

namespace pipesplit::script {

struct ParseOptions {
  int max_depth = 200;  // brackets / expression nesting / indentation levels
};

// Parses a file already registered in the SourceManager.
ir::IRModule ParseModule(const SourceFile& file, const ParseOptions& options = {});

// Registers `text` under `file_name` and parses it.
ir::IRModule ParseModule(std::string_view text, std::string file_name = "<input>",
                         const ParseOptions& options = {});

}  // namespace pipesplit::script

#endif  // PIPESPLIT_SCRIPT_PARSER_H_
