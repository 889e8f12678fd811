// Every kernel of the MLC deploy module runs, bounds checked, on random inputs of its shapes.
// The kernels over the full 4096 x 11008 / 32000 weights take seconds each (about a minute in
// all): they run when PIPESPLIT_CODEGEN_ALL_KERNELS=1, else only the smaller ones do.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "pipesplit/ir/arith.h"
#include "pipesplit/ir/expr.h"
#include "tests/codegen/kernel_test_util.h"

namespace pipesplit::codegen {
namespace {

namespace fs = std::filesystem;

// The value of a symbolic dim in these runs: the sequence length n = 3, the total length m = 5.
// Kernels whose parameters hold more elements than this are skipped unless asked for.
constexpr int64_t kDefaultMaxElements = int64_t{1} << 20;

int64_t DimValue(const std::string& name) { return name == "n" ? 3 : name == "m" ? 5 : 4; }

// Random contents for a buffer of `dtype`: small indices for integers (gathers stay in
// range), any bits for packed uint32 weights, values in (-2, 2) for floats.
void Fill(std::vector<uint8_t>& bytes, DataType dtype, std::mt19937& rng) {
  std::uniform_int_distribution<uint32_t> bits;
  std::uniform_real_distribution<float> real(-2.0f, 2.0f);
  int64_t size = dtype.bytes();
  for (size_t at = 0; at + size <= bytes.size(); at += size) {
    uint8_t* p = bytes.data() + at;
    if (dtype.is_float() && dtype.bits() == 32) {
      float v = real(rng);
      std::memcpy(p, &v, 4);
    } else if (dtype.is_float() && dtype.bits() == 16) {
      // sign, exponent 10..15 (values in [2^-5, 2)), random mantissa
      uint32_t r = bits(rng);
      uint16_t h =
          static_cast<uint16_t>((r & 0x8000u) | ((10 + (r >> 16) % 6) << 10) | (r & 0x3ffu));
      std::memcpy(p, &h, 2);
    } else if (dtype.is_uint() && dtype.bits() == 32) {
      uint32_t v = bits(rng);
      std::memcpy(p, &v, 4);
    } else {
      std::memset(p, 0, size);
      p[0] = static_cast<uint8_t>(bits(rng) % 2);
    }
  }
}

TEST(CodegenCorpus, EveryMlcDeployKernelRunsBoundsCheckedOnRandomInputs) {
  fs::path file = fs::path(PIPESPLIT_SOURCE_DIR) /
                  "../shared/corpus/mlc-llm-2023/6b.split_transform_deploy.deploy.py";
  if (!fs::exists(file)) GTEST_SKIP() << "corpus not found: " << file;
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  ir::IRModule mod = script::ParseModule(text.str(), file.string());
  BuildOptions options;
  options.cache_dir = testing::SharedCacheDir();
  options.check_bounds = true;
  testing::KernelLibrary library(BuildKernelLibrary(mod, options));
  std::mt19937 rng(7);
  const char* all = std::getenv("PIPESPLIT_CODEGEN_ALL_KERNELS");
  const bool run_all = all != nullptr && std::string(all) == "1";
  int ran = 0, skipped = 0;
  auto all_start = std::chrono::steady_clock::now();
  for (const ir::IRModule::Member& m : mod.members()) {
    const auto* func = ir::As<ir::PrimFuncNode>(m.func);
    if (func == nullptr) continue;
    const std::string& name = m.gvar->name_hint();
    std::vector<std::vector<uint8_t>> storage;
    std::vector<std::vector<int64_t>> shapes;
    std::vector<PipesplitKernelArg> args;
    storage.reserve(func->params().size());
    shapes.reserve(func->params().size());
    for (const ir::TirVar& param : func->params()) {
      const ir::Buffer* buffer = func->BufferOf(param.get());
      if (buffer == nullptr) {  // a scalar: the value of the symbolic dim it names
        ASSERT_TRUE(param->dtype().is_int()) << name;
        PipesplitKernelArg arg{};
        arg.ndim = -1;
        arg.dtype_code = 0;
        arg.dtype_bits = static_cast<uint8_t>(param->dtype().bits());
        arg.lanes = 1;
        arg.scalar_int = DimValue(param->name());
        args.push_back(arg);
        storage.emplace_back();
        shapes.emplace_back();
        continue;
      }
      DataType dtype = (*buffer)->dtype();
      std::optional<std::vector<int64_t>> concrete = testing::ConcreteShape(
          *buffer, [](const ir::TirVar& v) { return DimValue(v->name()); });
      ASSERT_TRUE(concrete.has_value()) << name;
      std::vector<int64_t>& shape = shapes.emplace_back(std::move(*concrete));
      int64_t elements = 1;
      for (int64_t extent : shape) elements *= extent;
      std::vector<uint8_t>& bytes = storage.emplace_back(elements * dtype.bytes());
      Fill(bytes, dtype, rng);
      PipesplitKernelArg arg{};
      arg.data = bytes.data();
      arg.shape = shape.data();
      arg.ndim = static_cast<int32_t>(shape.size());
      arg.dtype_code = dtype.is_bool()                           ? 1
                       : dtype.is_int()                          ? 0
                       : dtype.is_uint()                         ? 1
                       : dtype.code() == DataType::Code::kBFloat ? 4
                                                                 : 2;
      arg.dtype_bits = static_cast<uint8_t>(dtype.bits());
      arg.lanes = 1;
      args.push_back(arg);
    }
    int64_t total = 0;
    for (const std::vector<uint8_t>& bytes : storage) total += static_cast<int64_t>(bytes.size());
    if (!run_all && total > 4 * kDefaultMaxElements) {
      ++skipped;
      continue;
    }
    ++ran;
    auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(library.Call(name, args), "") << name;
    std::chrono::duration<double> kernel_seconds = std::chrono::steady_clock::now() - start;
    if (kernel_seconds.count() > 0.2) std::cout << name << ": " << kernel_seconds.count() << " s\n";
  }
  std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - all_start;
  std::cout << "ran " << ran << " kernels of the 6b deploy module bounds checked in "
            << seconds.count() << " s (" << skipped
            << " large ones skipped; PIPESPLIT_CODEGEN_ALL_KERNELS=1 runs them)\n";
}

}  // namespace
}  // namespace pipesplit::codegen
