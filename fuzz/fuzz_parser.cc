// libFuzzer target: the TVMScript parser on arbitrary text. An input is either parsed or
// rejected with a diagnostic; anything else (crash, sanitizer report, internal error, hang,
// unbounded memory) is a finding.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pipesplit::fuzz::NewInput();
  pipesplit::fuzz::TryParse(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
