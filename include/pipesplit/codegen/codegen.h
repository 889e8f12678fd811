// Code generation: the PrimFuncs of a module as C++ source implementing the kernel library ABI
// (pipesplit/support/kernel_abi.h), compiled kernel by kernel with the system C++ compiler,
// cached by content hash and linked into one shared library. The runtime loads the library with
// dlopen and never includes this header (build, then run).
#ifndef PIPESPLIT_CODEGEN_CODEGEN_H_
#define PIPESPLIT_CODEGEN_CODEGEN_H_

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "pipesplit/ir/module.h"
#include "pipesplit/support/error.h"

namespace pipesplit::codegen {

// A module codegen cannot translate, a missing compiler or a failed compilation.
// (A user error of support/error.h: exit status 1.)
class CodegenError : public Error {
 public:
  explicit CodegenError(const std::string& what) : Error(ErrorKind::kUser, what) {}
};

// Where a build stands, for a progress display: `compiled` of `to_compile` kernels (the ones
// not in the cache) after `elapsed_s`; `remaining_s` is an estimate (negative while unknown).
struct BuildProgress {
  int kernels = 0;     // kernels of the module
  int distinct = 0;    // distinct kernel bodies among them (each one cache entry)
  int to_compile = 0;  // distinct bodies not in the cache
  int compiled = 0;
  double elapsed_s = 0;
  double remaining_s = -1;
  bool linking = false;   // the kernels are compiled; the library is being linked
  bool finished = false;  // the last report of a build that succeeded
};

struct BuildOptions {
  std::string cache_dir;      // empty: DefaultCacheDir()
  bool check_bounds = false;  // every buffer access checked; violation -> error return
  std::string compiler;       // empty: $CXX, else "c++"
  // Reorder, tile and parallelize loop nests where results stay bit-identical (loop_plan.cc);
  // false: every loop serial, in the written order. Bounds-checked builds are always serial.
  bool optimize_loops = true;
  // Kernels the fast path recognises (fast_path.h) hand their computation to the runtime's
  // contraction when it registered one; false: every kernel runs as written.
  bool fast_path = true;
  // Evaluate every kernel in float64: float16, bfloat16 and float32 values, buffers and
  // arguments become double and are never rounded, so a kernel's result is its computation
  // in float64 (the reference of the precision tests; the kernels take float64 buffers and
  // have no fast path).
  bool float64_reference = false;
  // Compiler processes at once (<= 0: the cores this process may use).
  int jobs = 0;
  // Called from the building thread while kernels compile (about every 0.1 s and after each
  // kernel) and once at the end; not called when the library is found in the cache.
  std::function<void(const BuildProgress&)> progress;
};

// What a build did.
struct BuildResult {
  std::string library;    // path of the shared library in the cache
  int kernels = 0;        // PrimFuncs of the module
  int distinct = 0;       // distinct kernel bodies (kernels identical up to their name share one)
  int compiled = 0;       // kernel bodies compiled by this build (not found in the cache)
  int compiler_runs = 0;  // compiler processes started (the kernels' and the link)
  bool cached = false;    // the library itself was in the cache
  // The kernels codegen could not translate, each as "kernel NAME: codegen does not support
  // ...": they are in the library, and a call of one fails with that message.
  std::vector<std::string> uncompiled;
  // The kernels the fast path recognised (fast_path.h): name and description, by name.
  struct FastKernel {
    std::string name;
    std::string description;
  };
  std::vector<FastKernel> fast_paths;
};

// $PIPESPLIT_KERNEL_CACHE, else $XDG_CACHE_HOME/pipesplit/kernels, else
// ~/.cache/pipesplit/kernels.
std::string DefaultCacheDir();

// Deterministic C++ source of every PrimFunc of `mod` as one translation unit implementing
// kernel_abi.h: the library the build links, written whole (to read, or to compile at once).
std::string GenerateSource(const ir::IRModule& mod, bool check_bounds, bool optimize_loops = true);

// Builds the shared library of mod's PrimFuncs through the cache:
// 1. every distinct kernel body is one cache entry, keyed by a hash of its text (which does not
//    hold the kernel's name), the compiler, the flags, the host CPU and the ABI version; kernels
//    with the same body share it. An entry's index file names the object that holds it;
// 2. the bodies not in the cache are compiled with `<compiler> -std=c++17 -O2 -march=native
//    -fPIC -ffp-contract=off -fno-fast-math -c` on `jobs` processes at once, in as many
//    translation units (balanced by EmitKernel's cost estimate; a change to one kernel compiles
//    that kernel alone), each object written to a temp file and renamed atomically;
// 3. the library (keyed by the kernels' names and objects) is linked from the objects with a
//    small unit of its own exports, unless the cache has it.
// Throws CodegenError when the compiler is missing, a compilation fails (the message names the
// kernel the compiler's first located message is in, has the first lines of the compiler's
// output and where the source was kept).
// A kernel using a construct codegen does not support does not fail the build: its entry point
// fails when called, naming the kernel and the construct (BuildResult::uncompiled).
BuildResult Build(const ir::IRModule& mod, const BuildOptions& options = {});

// Build(mod, options).library.
std::string BuildKernelLibrary(const ir::IRModule& mod, const BuildOptions& options = {});

}  // namespace pipesplit::codegen

#endif  // PIPESPLIT_CODEGEN_CODEGEN_H_
