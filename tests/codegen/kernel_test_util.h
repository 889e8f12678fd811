// Helpers shared by the codegen tests: parsing kernels, building them into a cache shared by
// the test processes, loading the library with dlopen and calling kernels through the ABI.
#ifndef PIPESPLIT_TESTS_CODEGEN_KERNEL_TEST_UTIL_H_
#define PIPESPLIT_TESTS_CODEGEN_KERNEL_TEST_UTIL_H_

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "pipesplit/codegen/codegen.h"
#include "pipesplit/ir/arith.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/support/kernel_abi.h"

namespace pipesplit::codegen::testing {

constexpr const char* kHeader =
    "# from tvm.script import ir as I\n"
    "# from tvm.script import tir as T\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n";

// The cache the tests share (ctest runs them as separate processes; the cache makes the
// module compile once).
inline std::string SharedCacheDir() {
  return std::string(PIPESPLIT_BINARY_DIR) + "/tests/codegen/kernel_cache";
}

// A fresh, empty directory for one test.
inline std::string FreshDir(const std::string& name) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("pipesplit_codegen_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// An element type's ABI code and bits.
template <typename T>
void AbiType(uint8_t* code, uint8_t* bits) {
  *bits = sizeof(T) * 8;
  if constexpr (std::is_floating_point_v<T>) {
    *code = 2;
  } else if constexpr (std::is_signed_v<T>) {
    *code = 0;
  } else {
    *code = 1;
  }
}

// A buffer argument viewing `data` with `shape` (which must outlive the argument).
template <typename T>
PipesplitKernelArg BufferArg(std::vector<T>& data, const std::vector<int64_t>& shape) {
  PipesplitKernelArg arg{};
  arg.data = data.data();
  arg.shape = shape.data();
  arg.ndim = static_cast<int32_t>(shape.size());
  AbiType<T>(&arg.dtype_code, &arg.dtype_bits);
  arg.lanes = 1;
  return arg;
}

// A float16 buffer stored as its bits.
inline PipesplitKernelArg HalfArg(std::vector<uint16_t>& data, const std::vector<int64_t>& shape) {
  PipesplitKernelArg arg = BufferArg(data, shape);
  arg.dtype_code = 2;
  return arg;
}

class KernelLibrary {
 public:
  explicit KernelLibrary(const std::string& path) : handle_(dlopen(path.c_str(), RTLD_NOW)) {
    EXPECT_NE(handle_, nullptr) << dlerror();
  }
  ~KernelLibrary() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  KernelLibrary(const KernelLibrary&) = delete;
  KernelLibrary& operator=(const KernelLibrary&) = delete;

  void* Symbol(const std::string& name) const {
    return handle_ == nullptr ? nullptr : dlsym(handle_, name.c_str());
  }

  // Calls kernel `name`; returns "" on success, else the kernel's error message.
  std::string Call(const std::string& name, const std::vector<PipesplitKernelArg>& args) const {
    auto fn = reinterpret_cast<PipesplitKernelFn>(Symbol(PIPESPLIT_KERNEL_SYMBOL_PREFIX + name));
    if (fn == nullptr) return "no kernel " + name;
    char error[512] = "";
    int32_t rc = fn(args.data(), static_cast<int32_t>(args.size()), error, sizeof(error));
    if (rc == 0) return "";
    return error[0] == '\0' ? "failed without a message" : error;
  }

 private:
  void* handle_;
};

inline std::string Build(const std::string& text, BuildOptions options = {}) {
  if (options.cache_dir.empty()) options.cache_dir = SharedCacheDir();
  return BuildKernelLibrary(script::ParseModule(text, "kernels.py"), options);
}

// The whole text of a file (empty when it cannot be read).
inline std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The extents of `buffer` once each symbolic dim takes `dim_value(var)`, folded by the IR's
// arithmetic; nullopt when an extent does not fold to a constant.
inline std::optional<std::vector<int64_t>> ConcreteShape(
    const ir::Buffer& buffer, const std::function<int64_t(const ir::TirVar&)>& dim_value) {
  std::vector<int64_t> shape;
  for (const ir::PrimExpr& dim : buffer->shape()) {
    ir::TirVarMap values;
    for (const ir::TirVar& v : ir::FreeTirVars(dim)) {
      values[v.get()] = ir::IntImm(dim_value(v), v->dtype());
    }
    std::optional<int64_t> extent = ir::AsConstInt(ir::Simplify(ir::Substitute(dim, values)));
    if (!extent) return std::nullopt;
    shape.push_back(*extent);
  }
  return shape;
}

}  // namespace pipesplit::codegen::testing

#endif  // PIPESPLIT_TESTS_CODEGEN_KERNEL_TEST_UTIL_H_
