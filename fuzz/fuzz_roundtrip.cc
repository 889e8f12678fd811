// libFuzzer target: parse -> print -> parse -> print. On every input the parser accepts, the
// printed text parses again, prints byte-identically, and the two modules are structurally
// equal.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_util.h"
#include "pipesplit/analysis/structural_equal.h"
#include "pipesplit/script/printer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pipesplit;
  fuzz::NewInput();
  std::optional<ir::IRModule> mod =
      fuzz::TryParse(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!mod) return 0;
  const std::string printed = script::PrintModule(*mod);
  std::optional<ir::IRModule> again;
  try {
    again = script::ParseModule(printed, "printed.py");
  } catch (const DiagnosticError& e) {
    fuzz::Finding(std::string("the printed module does not parse:\n") + e.what() + "\n" + printed);
  }
  const std::string reprinted = script::PrintModule(*again);
  if (reprinted != printed) {
    fuzz::Finding("the second print differs:\n" + printed + "\n----\n" + reprinted);
  }
  analysis::StructuralDifference difference;
  if (!analysis::StructuralEqual(*mod, *again, &difference)) {
    fuzz::Finding("the reparsed module is not structurally equal (" + difference.ToString() +
                  "):\n" + printed);
  }
  return 0;
}
