// Names of the TVMScript syntaxes, shared by the parser, the printer and the CLI.
#include "pipesplit/script/syntax.h"

namespace pipesplit::script {

const char* SyntaxName(ir::Syntax syntax) {
  return syntax == ir::Syntax::kClassic ? "classic" : "current";
}

std::optional<ir::Syntax> ParseSyntaxName(std::string_view name) {
  if (name == "classic") return ir::Syntax::kClassic;
  if (name == "current") return ir::Syntax::kCurrent;
  return std::nullopt;
}

const char* TirSyntaxName(ir::TirSyntax syntax) {
  return syntax == ir::TirSyntax::kBlock ? "block" : "sblock";
}

std::optional<ir::TirSyntax> ParseTirSyntaxName(std::string_view name) {
  if (name == "block") return ir::TirSyntax::kBlock;
  if (name == "sblock") return ir::TirSyntax::kSBlock;
  return std::nullopt;
}

}  // namespace pipesplit::script
