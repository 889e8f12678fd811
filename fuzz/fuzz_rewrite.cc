// libFuzzer target: parse -> pipeline-parallel-rewrite -> well-formedness -> print -> parse.
// An input the parser accepts and that is well-formed (the pass's precondition) is either
// rejected by the pass with a diagnostic or rewritten into a well-formed module whose text
// parses again.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_util.h"
#include "pipesplit/analysis/well_formed.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/transform/pipeline_parallel_rewrite.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pipesplit;
  fuzz::NewInput();
  std::optional<ir::IRModule> mod =
      fuzz::TryParse(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!mod || !analysis::CheckWellFormed(*mod).empty()) return 0;
  std::optional<ir::IRModule> split;
  try {
    split = transform::RewritePipelineStages(*mod);
  } catch (const DiagnosticError&) {
    return 0;
  }
  std::vector<Diagnostic> problems = analysis::CheckWellFormed(*split);
  const std::string printed = script::PrintModule(*split);
  if (!problems.empty()) {
    fuzz::Finding("the rewritten module is not well-formed: " + Render(problems[0], false) + "\n" +
                  printed);
  }
  try {
    script::ParseModule(printed, "split.py");
  } catch (const DiagnosticError& e) {
    fuzz::Finding(std::string("the rewritten module does not parse:\n") + e.what() + "\n" +
                  printed);
  }
  return 0;
}
