// Codegen of the TIR constructs MLC-LLM's 2026 CPU kernels use beyond the classic ones: T.Let,
// assert (a failing one fails the call naming the kernel and the message), while over a local
// scalar, buffers with an element offset var (offset_factor=1, elem_offset=v: bound to 0, the
// ABI's data pointer is the first element), a buffer dim that is an expression of a var a
// later parameter binds, floor division of negative int32s; and a kernel codegen cannot
// translate, which builds and fails when called.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/codegen/kernel_test_util.h"

namespace pipesplit::codegen {
namespace {

using testing::BufferArg;
using testing::KernelLibrary;

constexpr const char* kKernels = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def let_while(A: T.Buffer(("n", 4), "float32"), B: T.Buffer((n, 4), "float32"), flag: T.int32):
        n = T.int32()
        assert flag == 0, ("RuntimeError", ["flag must be ", "zero"])
        i: T.int32 = 0
        while i < n:
            for j in range(4):
                freq = T.float32()
                B[i, j] = T.Let(T.cos(freq) + T.sin(freq), where={freq: A[i, j] * T.float32(2.0)})
            i = i + 1

    @T.prim_func(s_tir=True)
    def indptr(indptr: T.Buffer(("m + 1",), "int32", offset_factor=1), lens: T.Buffer((m,), "int32", elem_offset=lens_elem_offset), out: T.Buffer((m,), "int32")):
        m = T.int32()
        lens_elem_offset = T.int32()
        for i in range(m):
            out[i] = (indptr[i + 1] - indptr[i] - lens[i]) // 2 + (indptr[i] - 7) % 3
)";

class CodegenMlcConstructs : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    BuildOptions options;
    options.cache_dir = testing::SharedCacheDir();
    result_ = new BuildResult(codegen::Build(script::ParseModule(kKernels, "mlc.py"), options));
  }
  static void TearDownTestSuite() { delete result_; }
  static BuildResult* result_;
};
BuildResult* CodegenMlcConstructs::result_ = nullptr;

TEST_F(CodegenMlcConstructs, EveryKernelCompiles) { EXPECT_TRUE(result_->uncompiled.empty()); }

TEST_F(CodegenMlcConstructs, LetWhileAndAssert) {
  KernelLibrary library(result_->library);
  std::vector<float> a = {0.5f, -1.0f, 2.0f, 0.0f, 3.0f, 0.25f, -0.75f, 1.5f};
  std::vector<float> b(8, -1.0f);
  PipesplitKernelArg flag{};
  flag.ndim = -1;
  flag.dtype_code = 0;
  flag.dtype_bits = 32;
  flag.lanes = 1;
  const std::vector<int64_t> shape = {2, 4};  // the args point at it
  const std::vector<PipesplitKernelArg> args = {BufferArg(a, shape), BufferArg(b, shape), flag};
  ASSERT_EQ(library.Call("let_while", args), "");
  for (size_t i = 0; i < a.size(); ++i) {
    const float f = a[i] * 2.0f;
    EXPECT_EQ(b[i], std::cos(f) + std::sin(f)) << i;
  }
  std::vector<PipesplitKernelArg> failing = args;
  failing[2].scalar_int = 1;
  EXPECT_EQ(library.Call("let_while", failing), "let_while: RuntimeError: flag must be zero");
}

TEST_F(CodegenMlcConstructs, ElementOffsetsLaterBoundDimsAndFloorDivision) {
  KernelLibrary library(result_->library);
  std::vector<int32_t> indptr = {0, 2, 2, 9};
  std::vector<int32_t> lens = {5, 0, 4};
  std::vector<int32_t> out(3, 0);
  ASSERT_EQ(
      library.Call("indptr", {BufferArg(indptr, {4}), BufferArg(lens, {3}), BufferArg(out, {3})}),
      "");
  auto floordiv = [](int32_t a, int32_t b) {
    return static_cast<int32_t>(std::floor(static_cast<double>(a) / b));
  };
  auto floormod = [&](int32_t a, int32_t b) { return a - floordiv(a, b) * b; };
  for (size_t i = 0; i < 3; ++i) {
    const int32_t expected =
        floordiv(indptr[i + 1] - indptr[i] - lens[i], 2) + floormod(indptr[i] - 7, 3);
    EXPECT_EQ(out[i], expected) << i;
  }
  // indptr must have one more element than lens.
  EXPECT_EQ(
      library.Call("indptr", {BufferArg(indptr, {3}), BufferArg(lens, {3}), BufferArg(out, {3})}),
      "indptr: buffer indptr: dim 0 is 3, expected 4");
}

// TVM 2026 spells the no-alias attribute "tirx.noalias": the loop planner takes it as
// "tir.noalias", so MLC's matmuls are register-tiled rather than run as written.
TEST(CodegenMlcNoAlias, TirxNoaliasPlansTheNest) {
  const std::string kernel = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def NT_matmul(x: T.Buffer((1, "n", 256), "float32"), w: T.Buffer((64, 256), "float32"), y: T.Buffer((1, n, 64), "float32")):
        n = T.int32()
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, i2, k in T.grid(1, n, 64, 256):
            with T.sblock("NT_matmul"):
                v_i0, v_i1, v_i2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])
                T.reads(x[v_i0, v_i1, v_k], w[v_i2, v_k])
                T.writes(y[v_i0, v_i1, v_i2])
                with T.init():
                    y[v_i0, v_i1, v_i2] = T.float32(0.0)
                y[v_i0, v_i1, v_i2] = y[v_i0, v_i1, v_i2] + x[v_i0, v_i1, v_k] * w[v_i2, v_k]
)";
  const ir::IRModule mod = script::ParseModule(kernel, "nt.py");
  EXPECT_NE(GenerateSource(mod, false).find("loop nest, register-tiled"), std::string::npos);
  std::string no_attr = kernel;
  const std::string attr = "\"tirx.noalias\": True";
  no_attr.replace(no_attr.find(attr), attr.size(), "\"other\": True");
  EXPECT_EQ(GenerateSource(script::ParseModule(no_attr, "nt.py"), false).find("loop nest"),
            std::string::npos);
  BuildOptions options;
  options.cache_dir = testing::SharedCacheDir();
  KernelLibrary library(codegen::Build(mod, options).library);
  const int64_t n = 3;
  std::vector<float> x(n * 256), w(64 * 256), y(n * 64, -1.0f);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(0.1 * i));
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(std::cos(0.07 * i));
  ASSERT_EQ(library.Call("NT_matmul", {BufferArg(x, {1, n, 256}), BufferArg(w, {64, 256}),
                                       BufferArg(y, {1, n, 64})}),
            "");
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t c = 0; c < 64; ++c) {
      float sum = 0.0f;
      for (int64_t k = 0; k < 256; ++k) sum = sum + x[r * 256 + k] * w[c * 256 + k];
      ASSERT_EQ(y[r * 64 + c], sum) << r << ", " << c;
    }
  }
}

}  // namespace
}  // namespace pipesplit::codegen
