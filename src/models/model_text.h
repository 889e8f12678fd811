// Pieces of TVMScript text the example models are written with.
#ifndef PIPESPLIT_SRC_MODELS_MODEL_TEXT_H_
#define PIPESPLIT_SRC_MODELS_MODEL_TEXT_H_

#include <fmt/format.h>

#include <string>

namespace pipesplit::models {

// A float32 tensor's struct info of `shape` ("1, n, 64").
inline std::string F32(const std::string& shape) {
  return fmt::format("R.Tensor(({}), dtype=\"float32\")", shape);
}

// MLC's `_metadata` function returning `json` (escaped into its string literal).
inline std::string MetadataFunction(const std::string& json) {
  std::string escaped;
  for (char ch : json) {
    if (ch == '"' || ch == '\\') escaped += '\\';
    escaped += ch;
  }
  return "    @R.function\n    def _metadata() -> R.Object:\n        return R.str(\"" + escaped +
         "\")\n";
}

}  // namespace pipesplit::models

#endif  // PIPESPLIT_SRC_MODELS_MODEL_TEXT_H_
