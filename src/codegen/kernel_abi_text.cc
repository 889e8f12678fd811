// The kernel ABI header as text, so that generated sources carry the one copy of it.
#include "src/codegen/codegen_internal.h"

namespace pipesplit::codegen {

const char* KernelAbiText() {
  return
#include "kernel_abi_text.inc"
      ;
}

}  // namespace pipesplit::codegen
