// libFuzzer target: the TIR parser alone. The input is one `@T.prim_func` definition (seeds
// are the prim_funcs of the corpus), placed in a module of its own; an accepted function must
// print and parse back to the same text.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_util.h"
#include "pipesplit/script/printer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pipesplit;
  fuzz::NewInput();
  // The function body indented as a class member.
  std::string text = "@I.ir_module\nclass Module:\n    ";
  for (size_t i = 0; i < size; ++i) {
    text += static_cast<char>(data[i]);
    if (data[i] == '\n') text += "    ";
  }
  std::optional<ir::IRModule> mod = fuzz::TryParse(text);
  if (!mod) return 0;
  const std::string printed = script::PrintModule(*mod);
  std::optional<ir::IRModule> again;
  try {
    again = script::ParseModule(printed, "printed.py");
  } catch (const DiagnosticError& e) {
    fuzz::Finding(std::string("the printed prim_func does not parse:\n") + e.what() + "\n" +
                  printed);
  }
  if (script::PrintModule(*again) != printed)
    fuzz::Finding("the second print differs:\n" + printed);
  return 0;
}
