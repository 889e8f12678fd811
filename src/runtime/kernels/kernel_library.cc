// KernelLibrary: dlopen, ABI check, kernel table, and calls with Values converted to the ABI.
#include "pipesplit/runtime/kernels/kernel_library.h"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <filesystem>

#include "pipesplit/runtime/kernels/contraction.h"
#include "pipesplit/runtime/kernels/threading.h"
#include "src/runtime/kernels/parallel.h"

namespace pipesplit::runtime {
namespace {

std::string LoaderError() {
  const char* text = dlerror();
  return text ? text : "unknown loader error";
}

// The ABI's element type code: DLPack's, with bool as a 1-bit uint (stored one byte each).
uint8_t AbiTypeCode(DataType dtype, const std::string& what) {
  switch (dtype.code()) {
    case DataType::Code::kInt:
      return 0;
    case DataType::Code::kUInt:
    case DataType::Code::kBool:
      return 1;
    case DataType::Code::kFloat:
      return 2;
    case DataType::Code::kBFloat:
      return 4;
    default:
      throw RuntimeError(what + ": dtype " + dtype.ToString() + " cannot be passed to a kernel");
  }
}

// The parallel launch of kernel_abi.h on the runtime's pool: [0, n) cut into at most four
// ranges per thread (each of at least `grain` iterations). Nested launches run serially.
int32_t LaunchParallel(int64_t n, int64_t grain, PipesplitParallelTaskFn task, void* closure) {
  if (n <= 0) return 0;
  grain = std::max<int64_t>(grain, 1);
  const int64_t max_chunks = int64_t{4} * GetNumThreads();
  const int64_t chunks = std::clamp<int64_t>(n / grain, 1, max_chunks);
  const int64_t size = (n + chunks - 1) / chunks;
  std::atomic<int32_t> status{0};
  detail::ParallelFor((n + size - 1) / size, [&](int64_t c) {
    const int64_t begin = c * size;
    if (task(closure, begin, std::min(n, begin + size)) != 0) status.store(1);
  });
  return status.load();
}

}  // namespace

std::shared_ptr<const KernelLibrary> KernelLibrary::Load(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw RuntimeError("kernel library '" + path + "' does not exist");
  }
  dlerror();  // clears a stale message
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    throw RuntimeError("cannot load kernel library '" + path + "': " + LoaderError());
  }
  // From here the destructor closes the handle whatever fails.
  std::shared_ptr<KernelLibrary> lib(new KernelLibrary(path, handle));
  auto version_fn =
      reinterpret_cast<PipesplitKernelAbiVersionFn>(dlsym(handle, "pipesplit_kernel_abi_version"));
  auto names_fn = reinterpret_cast<PipesplitKernelNamesFn>(dlsym(handle, "pipesplit_kernel_names"));
  if (version_fn == nullptr || names_fn == nullptr) {
    throw RuntimeError("'" + path +
                       "' is not a pipesplit kernel library: it does not export "
                       "pipesplit_kernel_abi_version and pipesplit_kernel_names");
  }
  int32_t version = version_fn();
  if (version != PIPESPLIT_KERNEL_ABI_VERSION) {
    throw RuntimeError("kernel library '" + path + "' has ABI version " + std::to_string(version) +
                       " but this runtime expects version " +
                       std::to_string(PIPESPLIT_KERNEL_ABI_VERSION) + ": rebuild it");
  }
  // Optional (kernel_abi.h): without them the library's kernels run serially, as written.
  if (auto set_runtime = reinterpret_cast<PipesplitKernelSetRuntimeFn>(
          dlsym(handle, "pipesplit_kernel_set_runtime"))) {
    const PipesplitKernelRuntime runtime{&LaunchParallel,
                                         FastKernelsEnabled() ? &ContractEntry : nullptr};
    set_runtime(&runtime);
  }
  if (auto fast_fn = reinterpret_cast<PipesplitKernelFastPathsFn>(
          dlsym(handle, "pipesplit_kernel_fast_paths"))) {
    const char* text = fast_fn();
    std::string_view lines = text ? text : "";
    while (!lines.empty()) {
      const size_t end = lines.find('\n');
      const std::string_view line = lines.substr(0, end);
      lines = end == std::string_view::npos ? std::string_view() : lines.substr(end + 1);
      const size_t tab = line.find('\t');
      if (tab == std::string_view::npos) continue;
      lib->fast_paths_.emplace(std::string(line.substr(0, tab)), std::string(line.substr(tab + 1)));
    }
  }
  const char* names = names_fn();
  std::string_view rest = names ? names : "";
  while (!rest.empty()) {
    size_t end = rest.find('\n');
    std::string name(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (name.empty() || lib->kernels_.count(name)) continue;
    std::string symbol = PIPESPLIT_KERNEL_SYMBOL_PREFIX + name;
    auto fn = reinterpret_cast<PipesplitKernelFn>(dlsym(handle, symbol.c_str()));
    if (fn == nullptr) {
      throw RuntimeError("kernel library '" + path + "' lists kernel '" + name +
                         "' but does not export " + symbol);
    }
    lib->kernels_.emplace(name, fn);
    lib->names_.push_back(std::move(name));
  }
  return lib;
}

KernelLibrary::KernelLibrary(std::string path, void* handle)
    : path_(std::move(path)), handle_(handle) {}

KernelLibrary::~KernelLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

PipesplitKernelFn KernelLibrary::Find(std::string_view name) const {
  auto it = kernels_.find(std::string(name));
  return it == kernels_.end() ? nullptr : it->second;
}

const std::string* KernelLibrary::FastPath(std::string_view name) const {
  auto it = fast_paths_.find(std::string(name));
  return it == fast_paths_.end() ? nullptr : &it->second;
}

PipesplitKernelArg KernelLibrary::ToKernelArg(const Value& value, const std::string& what) {
  PipesplitKernelArg arg{};
  arg.lanes = 1;
  if (const Tensor* t = value.as_tensor()) {
    // Kernels write outputs through this pointer; see Call for who may be written.
    arg.data = const_cast<void*>(t->raw_data());
    arg.shape = t->shape().data();
    arg.ndim = t->ndim();
    arg.dtype_code = AbiTypeCode(t->dtype(), what);
    arg.dtype_bits = static_cast<uint8_t>(t->dtype().bits());
    return arg;
  }
  if (const PrimScalar* p = value.as_prim()) {
    arg.ndim = -1;
    arg.dtype_code = AbiTypeCode(p->dtype, what);
    arg.dtype_bits = static_cast<uint8_t>(p->dtype.bits());
    if (p->is_float()) {
      arg.scalar_float = p->float_value;
    } else {
      arg.scalar_int = p->int_value;
    }
    return arg;
  }
  throw RuntimeError(what + " must be a tensor or a prim value, got " + value.Describe());
}

void KernelLibrary::Call(std::string_view name, std::span<const Value> args) const {
  std::vector<PipesplitKernelArg> converted;
  converted.reserve(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    converted.push_back(ToKernelArg(
        args[i], "argument " + std::to_string(i) + " of kernel '" + std::string(name) + "'"));
  }
  Call(name, std::span<const PipesplitKernelArg>(converted));
}

void KernelLibrary::Call(std::string_view name, std::span<const PipesplitKernelArg> args) const {
  PipesplitKernelFn fn = Find(name);
  if (fn == nullptr) {
    throw RuntimeError("kernel library '" + path_ + "' has no kernel '" + std::string(name) + "'");
  }
  std::array<char, 1024> error{};
  int32_t status = fn(args.data(), static_cast<int32_t>(args.size()), error.data(), error.size());
  if (status != 0) {
    error.back() = '\0';
    std::string message = error[0] ? error.data() : "no message";
    throw RuntimeError("kernel '" + std::string(name) + "' failed: " + message);
  }
}

}  // namespace pipesplit::runtime
