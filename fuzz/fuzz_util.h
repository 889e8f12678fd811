// Shared pieces of the libFuzzer targets: what counts as a rejected input (a DiagnosticError
// or RuntimeError: a user error) and how a finding is reported (message, then abort, so
// libFuzzer saves the input).
#ifndef PIPESPLIT_FUZZ_FUZZ_UTIL_H_
#define PIPESPLIT_FUZZ_FUZZ_UTIL_H_

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "pipesplit/ir/module.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/support/diagnostic.h"
#include "pipesplit/support/source.h"

namespace pipesplit::fuzz {

[[noreturn]] inline void Finding(const std::string& what) {
  std::fprintf(stderr, "FINDING: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// The module `text` parses to, or nullopt when the parser rejects it with a diagnostic. Any
// other exception (an internal check failing) escapes and is a finding.
inline std::optional<ir::IRModule> TryParse(std::string_view text) {
  try {
    return script::ParseModule(text, "fuzz.py");
  } catch (const DiagnosticError&) {
    return std::nullopt;
  }
}

// Call at the start of each input: forgets the sources of the previous inputs.
inline void NewInput() { SourceManager::Global().ResetForFuzzing(); }

}  // namespace pipesplit::fuzz

#endif  // PIPESPLIT_FUZZ_FUZZ_UTIL_H_
