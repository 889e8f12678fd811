// The kernel ABI header and the float16 conversions as text, so that generated sources carry
// the one copy of each.
#include "src/codegen/codegen_internal.h"

namespace pipesplit::codegen {

const char* KernelAbiText() {
  return
#include "kernel_abi_text.inc"
      ;
}

const char* KernelFloat16Text() {
  return
#include "float16_bits_text.inc"
      ;
}

}  // namespace pipesplit::codegen
