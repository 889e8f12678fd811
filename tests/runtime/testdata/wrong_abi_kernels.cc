// A kernel library of a future ABI version: the runtime must refuse to load it.
#include "pipesplit/support/kernel_abi.h"

extern "C" {
int32_t pipesplit_kernel_abi_version(void) { return PIPESPLIT_KERNEL_ABI_VERSION + 1; }
const char* pipesplit_kernel_names(void) { return ""; }
}
