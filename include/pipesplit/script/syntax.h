// Names of the two TVMScript syntaxes ("classic", "current") and of the two TIR block
// spellings ("block", "sblock").
#ifndef PIPESPLIT_SCRIPT_SYNTAX_H_
#define PIPESPLIT_SCRIPT_SYNTAX_H_

#include <optional>
#include <string_view>

#include "pipesplit/ir/module.h"

namespace pipesplit::script {

const char* SyntaxName(ir::Syntax syntax);
std::optional<ir::Syntax> ParseSyntaxName(std::string_view name);

const char* TirSyntaxName(ir::TirSyntax syntax);
std::optional<ir::TirSyntax> ParseTirSyntaxName(std::string_view name);

}  // namespace pipesplit::script

#endif  // PIPESPLIT_SCRIPT_SYNTAX_H_
