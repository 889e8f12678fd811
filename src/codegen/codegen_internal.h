// Internal pieces of the code generator shared by its source files.
#ifndef PIPESPLIT_SRC_CODEGEN_CODEGEN_INTERNAL_H_
#define PIPESPLIT_SRC_CODEGEN_CODEGEN_INTERNAL_H_

namespace pipesplit::codegen {

// The text of include/pipesplit/support/kernel_abi.h (embedded at build time).
const char* KernelAbiText();
// The helpers every generated source starts with (after the ABI text).
const char* KernelPrelude();

}  // namespace pipesplit::codegen

#endif  // PIPESPLIT_SRC_CODEGEN_CODEGEN_INTERNAL_H_
