// A compiled kernel library: the shared object the code generator builds from a module's
// PrimFuncs (one C function per PrimFunc, see support/kernel_abi.h), loaded with dlopen.
//
// Loading checks the ABI version, resolves every kernel the library lists and hands the
// library the runtime's services (the parallel launch, and the fast path's contractions unless
// PIPESPLIT_FAST_KERNELS=0, runtime/kernels/contraction.h); Call converts
// runtime Values to kernel arguments (tensors become buffers, prim values scalars) and turns
// a kernel's failure into a RuntimeError carrying its message. Kernels keep no state, so one
// loaded library serves any number of interpreters and threads at once: share it through the
// shared_ptr that Load returns (Interpreter::set_kernel_library, SessionOptions::kernels).
//
// The runtime only loads libraries; building them is the code generator's job (the CLI builds
// a module's library, then passes its path to KernelLibrary::Load).
#ifndef PIPESPLIT_RUNTIME_KERNELS_KERNEL_LIBRARY_H_
#define PIPESPLIT_RUNTIME_KERNELS_KERNEL_LIBRARY_H_

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pipesplit/runtime/tensor/value.h"
#include "pipesplit/support/kernel_abi.h"

namespace pipesplit::runtime {

class KernelLibrary {
 public:
  // Loads the library at `path` (dlopen with RTLD_NOW | RTLD_LOCAL). Throws RuntimeError when
  // the file is missing or not a loadable library (with the loader's message), when it does
  // not export the ABI entry points or has another ABI version, or when a listed kernel has no
  // symbol.
  static std::shared_ptr<const KernelLibrary> Load(const std::string& path);

  ~KernelLibrary();
  KernelLibrary(const KernelLibrary&) = delete;
  KernelLibrary& operator=(const KernelLibrary&) = delete;

  const std::string& path() const { return path_; }
  // The kernel names, in the order the library lists them.
  const std::vector<std::string>& names() const { return names_; }
  bool Has(std::string_view name) const { return Find(name) != nullptr; }
  // The entry point of kernel `name`, or null when the library has no such kernel.
  PipesplitKernelFn Find(std::string_view name) const;

  // What codegen recognised kernel `name` as (its fast path, runtime/kernels/contraction.h:
  // "4-bit matmul ..."), or null for a kernel that runs as written. Whether calls take it
  // depends on FastKernelsEnabled() when the library was loaded.
  const std::string* FastPath(std::string_view name) const;

  // Calls kernel `name` on `args` in parameter order: a tensor is passed as a buffer (its raw
  // storage, so float16/bfloat16 elements are 16-bit), an integer or bool prim value as
  // scalar_int, a float prim value as scalar_float. The kernel writes its outputs into the
  // storage of the tensors passed for them: the caller passes tensors nobody else sees yet.
  // Throws RuntimeError for an unknown kernel, an argument of another kind, or a kernel
  // failure ("kernel 'NAME' failed: MESSAGE").
  void Call(std::string_view name, std::span<const Value> args) const;
  // The same on arguments already converted.
  void Call(std::string_view name, std::span<const PipesplitKernelArg> args) const;

  // One argument as the ABI passes it (RuntimeError naming `what` for other values). The
  // result points into `value`, which must outlive the call.
  static PipesplitKernelArg ToKernelArg(const Value& value, const std::string& what);

 private:
  KernelLibrary(std::string path, void* handle);

  std::string path_;
  void* handle_ = nullptr;
  std::vector<std::string> names_;
  std::unordered_map<std::string, PipesplitKernelFn> kernels_;
  std::unordered_map<std::string, std::string> fast_paths_;
};

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_KERNELS_KERNEL_LIBRARY_H_
