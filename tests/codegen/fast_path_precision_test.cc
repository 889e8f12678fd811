// The fast path's precision rule, on every kernel of MLC's 2026 CPU dumps it takes (q0f32,
// q4f16_1 and both TinyLlamas, phases 4 and 5): on random inputs, the fast path's result is no
// farther from a float64 evaluation of the kernel than the kernel's own arithmetic is (largest
// and root-mean-square error over the outputs), and where it keeps the kernel's arithmetic
// (dense matmuls summed in float32) it gives the same bits. The kernel's own arithmetic is the same
// library with the runtime's contraction withheld (it then runs as written); the float64
// evaluation is the kernel built with BuildOptions::float64_reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "pipesplit/codegen/codegen.h"
#include "pipesplit/codegen/fast_path.h"
#include "pipesplit/runtime/kernels/contraction.h"
#include "pipesplit/runtime/kernels/kernel_library.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/float16_bits.h"
#include "tests/codegen/kernel_test_util.h"
#include "tests/mlc2026_corpus_dir.h"

namespace pipesplit::codegen {
namespace {

namespace fs = std::filesystem;

using testing::ReadText;

// Values of a kernel's symbolic dims: the first seen 3 (rows), then 37 (a vocabulary: not a
// multiple of any tile), then 5, 11.
int64_t DimValue(const ir::TirVar& v, std::map<const ir::TirVarNode*, int64_t>* vars) {
  static const int64_t kValues[] = {3, 37, 5, 11};
  return vars->try_emplace(v.get(), kValues[vars->size() % 4]).first->second;
}

struct Param {
  DataType dtype;
  std::vector<int64_t> shape;
  std::vector<double> values;   // float params
  std::vector<uint32_t> words;  // uint32 params
  std::vector<uint8_t> native;  // the kernel's own element type
  std::vector<double> wide;     // the float64 evaluation's
};

size_t Count(const std::vector<int64_t>& shape) {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

// The arguments of `func` on random inputs (outputs zeroed), in both element types.
std::vector<Param> MakeParams(const ir::PrimFuncNode& func, const FastContraction& c,
                              uint32_t seed) {
  std::map<const ir::TirVarNode*, int64_t> vars;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Param> params;
  for (size_t i = 0; i < func.params().size(); ++i) {
    const ir::Buffer& b = *func.BufferOf(func.params()[i].get());
    Param p;
    p.dtype = b->dtype();
    std::optional<std::vector<int64_t>> shape =
        testing::ConcreteShape(b, [&](const ir::TirVar& v) { return DimValue(v, &vars); });
    if (!shape) throw std::runtime_error("a shape that does not fold to a constant");
    p.shape = std::move(*shape);
    const size_t n = Count(p.shape);
    if (p.dtype == DataType::UInt(32)) {
      p.words.resize(n);
      for (uint32_t& w : p.words) w = static_cast<uint32_t>(rng());
      params.push_back(std::move(p));
      continue;
    }
    p.values.resize(n);
    for (double& v : p.values) {
      v = static_cast<int>(i) == c.scale_param ? 0.01 + 0.04 * std::fabs(u(rng))
          : static_cast<int>(i) == c.out_param ? 0.0
                                               : u(rng);
    }
    // Round to the element type, so that both evaluations start from the same numbers.
    const int bits = p.dtype.bits();
    p.native.resize(n * bits / 8);
    for (size_t j = 0; j < n; ++j) {
      if (bits == 32) {
        float f = static_cast<float>(p.values[j]);
        std::memcpy(p.native.data() + 4 * j, &f, 4);
        p.values[j] = f;
      } else {
        const bool bf = p.dtype.code() == DataType::Code::kBFloat;
        const uint16_t h = bf ? f16::FloatToBFloat16(static_cast<float>(p.values[j]))
                              : f16::FloatToHalf(static_cast<float>(p.values[j]));
        std::memcpy(p.native.data() + 2 * j, &h, 2);
        p.values[j] = bf ? f16::BFloat16ToFloat(h) : f16::HalfToFloat(h);
      }
    }
    p.wide = p.values;
    params.push_back(std::move(p));
  }
  return params;
}

std::vector<PipesplitKernelArg> Args(std::vector<Param>& params, bool wide) {
  std::vector<PipesplitKernelArg> args;
  for (Param& p : params) {
    PipesplitKernelArg a{};
    a.shape = p.shape.data();
    a.ndim = static_cast<int32_t>(p.shape.size());
    a.lanes = 1;
    if (!p.words.empty()) {
      a.data = p.words.data();
      a.dtype_code = 1;
      a.dtype_bits = 32;
    } else if (wide) {
      a.data = p.wide.data();
      a.dtype_code = 2;
      a.dtype_bits = 64;
    } else {
      a.data = p.native.data();
      a.dtype_code = p.dtype.code() == DataType::Code::kBFloat ? 4 : 2;
      a.dtype_bits = static_cast<uint8_t>(p.dtype.bits());
    }
    args.push_back(a);
  }
  return args;
}

std::vector<double> Output(const Param& p) {
  std::vector<double> out(Count(p.shape));
  for (size_t j = 0; j < out.size(); ++j) {
    if (p.dtype.bits() == 32) {
      float f;
      std::memcpy(&f, p.native.data() + 4 * j, 4);
      out[j] = f;
    } else {
      uint16_t h;
      std::memcpy(&h, p.native.data() + 2 * j, 2);
      out[j] =
          p.dtype.code() == DataType::Code::kBFloat ? f16::BFloat16ToFloat(h) : f16::HalfToFloat(h);
    }
  }
  return out;
}

struct Error {
  double max = 0;
  double rms = 0;
};

Error ErrorOf(const std::vector<double>& got, const std::vector<double>& ref) {
  Error e;
  for (size_t j = 0; j < ref.size(); ++j) {
    const double d = std::fabs(got[j] - ref[j]);
    e.max = std::max(e.max, d);
    e.rms += d * d;
  }
  e.rms = std::sqrt(e.rms / static_cast<double>(ref.size()));
  return e;
}

TEST(FastPathPrecisionTest, NoFartherFromFloat64ThanTheWrittenArithmetic) {
  const fs::path corpus = testing_corpus::Mlc2026Dir();
  if (corpus.empty()) GTEST_SKIP() << "no MLC 2026 corpus";
  // The distinct recognised kernels of every CPU dump (by their text without the name).
  std::vector<std::pair<std::string, ir::PrimFunc>> kernels;
  std::set<std::string> seen;
  ir::IRModule module;
  for (const char* model :
       {"llama-q0f32", "llama-q4f16_1", "tinyllama-q4f16_1", "tinyllama-q0f16"}) {
    for (const char* phase : {"debug-phase4.py", "debug-phase5.py"}) {
      const fs::path path = corpus / model / "cpu-pp1" / phase;
      if (!fs::exists(path)) continue;
      const ir::IRModule mod = script::ParseModule(ReadText(path), path.string());
      for (const ir::IRModule::Member& m : mod.members()) {
        if (!ir::Is<ir::PrimFuncNode>(m.func)) continue;
        auto func = std::static_pointer_cast<const ir::PrimFuncNode>(m.func);
        if (!MatchFastPath(func).contraction) continue;
        ir::IRModule one;
        one.Add(ir::Make<ir::GlobalVarNode>("k", func->struct_info()), func);
        std::string text = script::PrintModule(one);
        if (!seen.insert(text).second) continue;
        const std::string name = "k" + std::to_string(kernels.size());
        kernels.emplace_back(std::string(model) + "/" + phase + ":" + m.gvar->name_hint(), func);
        module.Add(ir::Make<ir::GlobalVarNode>(name, func->struct_info()), func);
      }
    }
  }
  ASSERT_GE(kernels.size(), 12u);
  BuildOptions options;
  options.cache_dir = testing::SharedCacheDir();
  const std::string fast_path = Build(module, options).library;
  options.float64_reference = true;
  const std::string reference_path = Build(module, options).library;
  const auto reference = runtime::KernelLibrary::Load(reference_path);

  for (size_t i = 0; i < kernels.size(); ++i) {
    const auto& [where, func] = kernels[i];
    SCOPED_TRACE(where);
    const FastContraction c = *MatchFastPath(func).contraction;
    const std::string name = "k" + std::to_string(i);
    std::vector<Param> params = MakeParams(*func, c, static_cast<uint32_t>(17 + i));
    // The float64 evaluation.
    reference->Call(name, Args(params, true));
    const std::vector<double> exact = params[c.out_param].wide;
    // The fast path, then the written arithmetic (the same library, loaded without the
    // runtime's contraction).
    std::vector<double> results[2];
    for (int fast = 1; fast >= 0; --fast) {
      runtime::SetFastKernelsEnabled(fast == 1);
      const auto lib = runtime::KernelLibrary::Load(fast_path);
      const int64_t before = runtime::FastPathCalls();
      std::fill(params[c.out_param].native.begin(), params[c.out_param].native.end(), 0);
      lib->Call(name, Args(params, false));
      EXPECT_EQ(runtime::FastPathCalls() - before, fast) << "the path taken";
      results[fast] = Output(params[c.out_param]);
    }
    runtime::SetFastKernelsEnabled(true);
    if (!c.quantized && c.product == DataType::Float(32)) {
      // A dense matmul summed in float32 keeps the kernel's arithmetic: the same bits.
      EXPECT_EQ(results[1], results[0]) << c.description;
      continue;
    }
    const Error fast = ErrorOf(results[1], exact);
    const Error written = ErrorOf(results[0], exact);
    EXPECT_LE(fast.max, written.max) << c.description;
    EXPECT_LE(fast.rms, written.rms) << c.description;
    EXPECT_GT(written.max, 0.0);  // the comparison means something
  }
}

}  // namespace
}  // namespace pipesplit::codegen
