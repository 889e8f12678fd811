// Code generation: the PrimFuncs of a module as C++ source implementing the kernel library ABI
// (pipesplit/support/kernel_abi.h), compiled into one shared library with the system C++
// compiler and cached by content hash. The runtime loads the library with dlopen and never
// includes this header (build, then run).
#ifndef PIPESPLIT_CODEGEN_CODEGEN_H_
#define PIPESPLIT_CODEGEN_CODEGEN_H_

#include <stdexcept>
#include <string>

#include "pipesplit/ir/module.h"

namespace pipesplit::codegen {

// A module codegen cannot translate, a missing compiler or a failed compilation.
class CodegenError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct BuildOptions {
  std::string cache_dir;      // empty: DefaultCacheDir()
  bool check_bounds = false;  // every buffer access checked; violation -> error return
  std::string compiler;       // empty: $CXX, else "c++"
  // Reorder, tile and parallelize loop nests where results stay bit-identical (loop_plan.cc);
  // false: every loop serial, in the written order. Bounds-checked builds are always serial.
  bool optimize_loops = true;
};

// $PIPESPLIT_KERNEL_CACHE, else $XDG_CACHE_HOME/pipesplit/kernels, else
// ~/.cache/pipesplit/kernels.
std::string DefaultCacheDir();

// Deterministic C++ source of every PrimFunc of `mod`, implementing kernel_abi.h.
std::string GenerateSource(const ir::IRModule& mod, bool check_bounds, bool optimize_loops = true);

// Path of the compiled shared library of mod's PrimFuncs: found in the cache by a hash of
// (source, compiler, flags, host CPU, ABI version), else compiled with `<compiler> -std=c++17
// -O2 -march=native -fPIC -shared -ffp-contract=off -fno-fast-math` into a temp file and
// renamed into the cache
// atomically. Throws CodegenError when the compiler is missing, the compilation fails (the
// message has the first lines of the compiler's output and where the source was kept) or a
// PrimFunc uses a construct codegen does not support (the message names it and the kernel).
std::string BuildKernelLibrary(const ir::IRModule& mod, const BuildOptions& options = {});

}  // namespace pipesplit::codegen

#endif  // PIPESPLIT_CODEGEN_CODEGEN_H_
