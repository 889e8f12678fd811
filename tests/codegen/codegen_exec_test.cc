// Codegen execution tests: kernels written in TVMScript, compiled into one library, called
// through the kernel ABI and compared with values computed here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "tests/codegen/kernel_test_util.h"

namespace pipesplit::codegen {
namespace {

using testing::BufferArg;
using testing::HalfArg;
using testing::KernelLibrary;

const std::string kKernels = std::string(testing::kHeader) + R"(    @T.prim_func
    def add(var_A: T.handle, var_B: T.handle, var_C: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        A = T.match_buffer(var_A, (n,))
        B = T.match_buffer(var_B, (n,))
        C = T.match_buffer(var_C, (n,))
        # with T.block("root"):
        for i in range(n):
            with T.block("C"):
                v_i = T.axis.spatial(n, i)
                T.reads(A[v_i], B[v_i])
                T.writes(C[v_i])
                C[v_i] = A[v_i] + B[v_i]

    @T.prim_func
    def matmul(A: T.Buffer((T.int64(64), T.int64(64)), "float32"), B: T.Buffer((T.int64(64), T.int64(64)), "float32"), matmul: T.Buffer((T.int64(64), T.int64(64)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i0, i1, k in T.grid(T.int64(64), T.int64(64), T.int64(64)):
            with T.block("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(A[v_i0, v_k], B[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + A[v_i0, v_k] * B[v_k, v_i1]

    @T.prim_func
    def rowsum(A: T.Buffer((T.int64(4), T.int64(7)), "float32"), S: T.Buffer((T.int64(4),), "float32"), P: T.Buffer((T.int64(4),), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        sq = T.alloc_buffer((T.int64(4), T.int64(7)))
        for i, j in T.grid(T.int64(4), T.int64(7)):
            with T.block("sq"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                T.reads(A[v_i, v_j])
                T.writes(sq[v_i, v_j])
                sq[v_i, v_j] = A[v_i, v_j] * A[v_i, v_j]
        for i, k in T.grid(T.int64(4), T.int64(8)):
            with T.block("sum"):
                v_i, v_k = T.axis.remap("SR", [i, k])
                T.where(k < T.int64(7))
                T.reads(sq[v_i, v_k])
                T.writes(S[v_i])
                with T.init():
                    S[v_i] = T.float32(0)
                S[v_i] = S[v_i] + sq[v_i, v_k]
        for i, k in T.grid(T.int64(4), T.int64(5)):
            with T.block("prod"):
                v_i = T.axis.spatial(T.int64(4), i)
                v_k = T.axis.reduce((T.int64(2), T.int64(7)), k + T.int64(2))
                T.reads(A[v_i, v_k])
                T.writes(P[v_i])
                with T.init():
                    P[v_i] = T.float32(1)
                P[v_i] = P[v_i] * A[v_i, v_k]

    @T.prim_func
    def half_round_trip(A: T.Buffer((T.int64(10),), "float32"), H: T.Buffer((T.int64(10),), "float16"), B: T.Buffer((T.int64(10),), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i in range(T.int64(10)):
            H[i] = T.Cast("float16", A[i])
        for i in range(T.int64(10)):
            B[i] = T.Cast("float32", H[i])

    @T.prim_func
    def intrinsics(A: T.Buffer((T.int64(4),), "float32"), O: T.Buffer((T.int64(13), T.int64(4)), "float32"), I: T.Buffer((T.int64(4),), "int32"), J: T.Buffer((T.int64(5), T.int64(4)), "int32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i in range(T.int64(4)):
            O[T.int64(0), i] = T.exp(A[i])
            O[T.int64(1), i] = T.sqrt(T.fabs(A[i]))
            O[T.int64(2), i] = T.rsqrt(T.fabs(A[i]))
            O[T.int64(3), i] = T.tanh(A[i])
            O[T.int64(4), i] = T.sigmoid(A[i])
            O[T.int64(5), i] = T.erf(A[i])
            O[T.int64(6), i] = T.round(A[i])
            O[T.int64(7), i] = T.floor(A[i])
            O[T.int64(8), i] = T.ceil(A[i])
            O[T.int64(9), i] = T.trunc(A[i])
            O[T.int64(10), i] = T.pow(T.fabs(A[i]), T.float32(1.5))
            O[T.int64(11), i] = T.max(A[i], T.float32(0)) + T.min(A[i], T.float32(-1))
            O[T.int64(12), i] = T.Select(A[i] < T.float32(0), T.log(T.fabs(A[i])), T.exp2(A[i]))
            J[T.int64(0), i] = T.shift_left(I[i], 3)
            J[T.int64(1), i] = T.shift_right(I[i], 1)
            J[T.int64(2), i] = T.bitwise_and(I[i], 6) + T.bitwise_or(I[i], 1)
            J[T.int64(3), i] = T.bitwise_xor(I[i], 5)
            J[T.int64(4), i] = T.bitwise_not(I[i])

    @T.prim_func
    def int_ops(A: T.Buffer((T.int64(6),), "int32"), B: T.Buffer((T.int64(6),), "int32"), O: T.Buffer((T.int64(6), T.int64(6)), "int32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i in range(T.int64(6)):
            O[T.int64(0), i] = A[i] // B[i]
            O[T.int64(1), i] = A[i] % B[i]
            O[T.int64(2), i] = T.truncdiv(A[i], B[i])
            O[T.int64(3), i] = T.truncmod(A[i], B[i])
            O[T.int64(4), i] = A[i] + B[i]
            O[T.int64(5), i] = A[i] * B[i]

    @T.prim_func
    def scale(var_A: T.handle, s: T.float32, m: T.int64, B: T.Buffer((m,), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        A = T.match_buffer(var_A, (m,))
        for i in range(m):
            B[i] = T.if_then_else(i < T.int64(2), A[i], A[i] * s)
)";

class CodegenExec : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    library_ = std::make_unique<KernelLibrary>(testing::Build(kKernels));
  }
  static void TearDownTestSuite() { library_.reset(); }
  static std::unique_ptr<KernelLibrary> library_;
};
std::unique_ptr<KernelLibrary> CodegenExec::library_;

TEST_F(CodegenExec, ExportsTheAbiVersionAndKernelNames) {
  auto version = reinterpret_cast<PipesplitKernelAbiVersionFn>(
      library_->Symbol("pipesplit_kernel_abi_version"));
  auto names = reinterpret_cast<PipesplitKernelNamesFn>(library_->Symbol("pipesplit_kernel_names"));
  ASSERT_NE(version, nullptr);
  ASSERT_NE(names, nullptr);
  EXPECT_EQ(version(), PIPESPLIT_KERNEL_ABI_VERSION);
  EXPECT_STREQ(names(), "add\nhalf_round_trip\nint_ops\nintrinsics\nmatmul\nrowsum\nscale");
}

TEST_F(CodegenExec, AddsWithASymbolicLength) {
  for (int64_t n : {int64_t{1}, int64_t{5}, int64_t{1000}}) {
    std::vector<float> a(n), b(n), c(n, -1.0f);
    for (int64_t i = 0; i < n; ++i) {
      a[i] = 0.5f * static_cast<float>(i);
      b[i] = 1.0f / static_cast<float>(i + 1);
    }
    std::vector<int64_t> shape = {n};
    ASSERT_EQ(
        library_->Call("add", {BufferArg(a, shape), BufferArg(b, shape), BufferArg(c, shape)}), "");
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
  }
}

TEST_F(CodegenExec, MatmulIsBitIdenticalToANaiveLoop) {
  const int n = 64;
  std::vector<float> a(n * n), b(n * n), c(n * n, 42.0f), ref(n * n);
  for (int i = 0; i < n * n; ++i) {
    a[i] = std::sin(0.37f * static_cast<float>(i));
    b[i] = std::cos(0.11f * static_cast<float>(i)) / 3.0f;
  }
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int k = 0; k < n; ++k) {
        float prod = a[i * n + k] * b[k * n + j];
        acc = acc + prod;
      }
      ref[i * n + j] = acc;
    }
  }
  std::vector<int64_t> shape = {n, n};
  ASSERT_EQ(
      library_->Call("matmul", {BufferArg(a, shape), BufferArg(b, shape), BufferArg(c, shape)}),
      "");
  EXPECT_EQ(std::memcmp(c.data(), ref.data(), sizeof(float) * n * n), 0);
}

TEST_F(CodegenExec, ReductionsInitOnTheFirstIterationAndRespectPredicates) {
  std::vector<float> a(28), s(4, -1.0f), p(4, -1.0f);
  for (int i = 0; i < 28; ++i) a[i] = 0.25f * static_cast<float>(i % 9) - 1.0f;
  ASSERT_EQ(library_->Call("rowsum", {BufferArg(a, {4, 7}), BufferArg(s, {4}), BufferArg(p, {4})}),
            "");
  for (int i = 0; i < 4; ++i) {
    float sum = 0.0f, prod = 1.0f;
    for (int k = 0; k < 7; ++k) sum = sum + a[i * 7 + k] * a[i * 7 + k];
    for (int k = 2; k < 7; ++k) prod = prod * a[i * 7 + k];
    EXPECT_EQ(s[i], sum) << i;
    EXPECT_EQ(p[i], prod) << i;
  }
}

TEST_F(CodegenExec, Float16RoundsToNearestEven) {
  std::vector<float> a = {1.0f,  0.1f,  65504.0f,        65520.0f,        1e-8f,
                          3e-8f, -2.5f, 1.0f + 0x1p-11f, 1.0f + 0x3p-11f, -0.0f};
  std::vector<float> expected = {1.0f, 0.0999755859375f, 65504.0f, INFINITY, 0.0f, 0x1p-24f, -2.5f,
                                 1.0f, 1.0f + 0x1p-9f,   -0.0f};
  std::vector<uint16_t> h(10);
  std::vector<float> b(10);
  ASSERT_EQ(
      library_->Call("half_round_trip", {BufferArg(a, {10}), HalfArg(h, {10}), BufferArg(b, {10})}),
      "");
  EXPECT_EQ(h[0], 0x3c00);
  EXPECT_EQ(h[3], 0x7c00);
  EXPECT_EQ(h[9], 0x8000);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(b[i], expected[i]) << i;
    EXPECT_EQ(std::signbit(b[i]), std::signbit(expected[i])) << i;
  }
}

TEST_F(CodegenExec, IntegerDivisionFloorsAndArithmeticWraps) {
  std::vector<int32_t> a = {-7, 7, -7, 7, 2147483647, -2147483647 - 1};
  std::vector<int32_t> b = {2, -2, -2, 2, 1, -1};
  std::vector<int32_t> o(36);
  ASSERT_EQ(library_->Call("int_ops", {BufferArg(a, {6}), BufferArg(b, {6}), BufferArg(o, {6, 6})}),
            "");
  std::vector<int32_t> floordiv = {-4, -4, 3, 3, 2147483647, -2147483647 - 1};
  std::vector<int32_t> floormod = {1, -1, -1, 1, 0, 0};
  std::vector<int32_t> truncdiv = {-3, -3, 3, 3, 2147483647, -2147483647 - 1};
  std::vector<int32_t> truncmod = {-1, 1, -1, 1, 0, 0};
  std::vector<int32_t> sum = {-5, 5, -9, 9, -2147483647 - 1, 2147483647};
  std::vector<int32_t> product = {-14, -14, 14, 14, 2147483647, -2147483647 - 1};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(o[0 * 6 + i], floordiv[i]) << i;
    EXPECT_EQ(o[1 * 6 + i], floormod[i]) << i;
    EXPECT_EQ(o[2 * 6 + i], truncdiv[i]) << i;
    EXPECT_EQ(o[3 * 6 + i], truncmod[i]) << i;
    EXPECT_EQ(o[4 * 6 + i], sum[i]) << i;
    EXPECT_EQ(o[5 * 6 + i], product[i]) << i;
  }
}

TEST_F(CodegenExec, IntrinsicsFollowTheCLibrary) {
  std::vector<float> a = {-2.5f, -0.75f, 0.5f, 2.5f}, o(13 * 4);
  std::vector<int32_t> in = {-8, -3, 5, 1 << 28}, j(5 * 4);
  ASSERT_EQ(library_->Call("intrinsics", {BufferArg(a, {4}), BufferArg(o, {13, 4}),
                                          BufferArg(in, {4}), BufferArg(j, {5, 4})}),
            "");
  for (int i = 0; i < 4; ++i) {
    float x = a[i];
    std::vector<float> expected = {std::exp(x),
                                   std::sqrt(std::fabs(x)),
                                   1.0f / std::sqrt(std::fabs(x)),
                                   std::tanh(x),
                                   1.0f / (1.0f + std::exp(-x)),
                                   std::erf(x),
                                   std::nearbyint(x),
                                   std::floor(x),
                                   std::ceil(x),
                                   std::trunc(x),
                                   std::pow(std::fabs(x), 1.5f),
                                   std::max(x, 0.0f) + std::min(x, -1.0f),
                                   x < 0 ? std::log(std::fabs(x)) : std::exp2(x)};
    for (int k = 0; k < 13; ++k) EXPECT_EQ(o[k * 4 + i], expected[k]) << k << " " << x;
    int32_t v = in[i];
    EXPECT_EQ(j[0 * 4 + i], static_cast<int32_t>(static_cast<uint32_t>(v) << 3)) << v;
    EXPECT_EQ(j[1 * 4 + i], v >> 1) << v;
    EXPECT_EQ(j[2 * 4 + i], (v & 6) + (v | 1)) << v;
    EXPECT_EQ(j[3 * 4 + i], v ^ 5) << v;
    EXPECT_EQ(j[4 * 4 + i], ~v) << v;
  }
  EXPECT_EQ(o[6 * 4 + 0], -2.0f);  // round: ties to even
  EXPECT_EQ(o[6 * 4 + 3], 2.0f);
}

TEST_F(CodegenExec, TakesScalarParameters) {
  std::vector<float> a = {1, 2, 3, 4}, b(4);
  PipesplitKernelArg s{};
  s.ndim = -1;
  s.dtype_code = 2;
  s.dtype_bits = 32;
  s.lanes = 1;
  s.scalar_float = 0.5;
  PipesplitKernelArg m = s;
  m.dtype_code = 0;
  m.dtype_bits = 64;
  m.scalar_int = 4;
  ASSERT_EQ(library_->Call("scale", {BufferArg(a, {4}), s, m, BufferArg(b, {4})}), "");
  EXPECT_EQ(b, (std::vector<float>{1, 2, 1.5f, 2}));
  m.scalar_int = 3;
  EXPECT_EQ(library_->Call("scale", {BufferArg(a, {4}), s, m, BufferArg(b, {4})}),
            "scale: buffer A: dim 0 is 4, expected 3");
}

TEST_F(CodegenExec, RejectsArgumentsThatDoNotMatchTheSignature) {
  std::vector<float> a(64 * 64), b(64 * 63), c(64 * 64);
  EXPECT_EQ(library_->Call(
                "matmul", {BufferArg(a, {64, 64}), BufferArg(b, {64, 63}), BufferArg(c, {64, 64})}),
            "matmul: buffer B: dim 1 is 63, expected 64");
  EXPECT_EQ(library_->Call("add", {BufferArg(a, {5}), BufferArg(b, {6}), BufferArg(c, {5})}),
            "add: buffer B: dim 0 is 6, expected 5");
  EXPECT_EQ(library_->Call("add", {BufferArg(a, {5}), BufferArg(b, {5})}),
            "add: expected 3 arguments, got 2");
  EXPECT_EQ(library_->Call("matmul", {BufferArg(a, {64, 64, 1}), BufferArg(b, {64, 63}),
                                      BufferArg(c, {64, 64})}),
            "matmul: buffer A: rank 3, expected 2");
  std::vector<double> d(5);
  EXPECT_EQ(library_->Call("add", {BufferArg(a, {5}), BufferArg(d, {5}), BufferArg(c, {5})}),
            "add: buffer B: dtype code 2 bits 64 lanes 1, expected code 2 bits 32 lanes 1");
}

TEST(CodegenBounds, AnOutOfRangeIndexIsANamedError) {
  std::string text = std::string(testing::kHeader) + R"(    @T.prim_func
    def shift(A: T.Buffer((T.int64(8),), "float32"), B: T.Buffer((T.int64(8),), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i in range(T.int64(8)):
            B[i] = A[i + T.int64(1)]
)";
  BuildOptions options;
  options.check_bounds = true;
  KernelLibrary library(testing::Build(text, options));
  std::vector<float> a(8, 1.0f), b(8);
  EXPECT_EQ(library.Call("shift", {BufferArg(a, {8}), BufferArg(b, {8})}),
            "kernel shift: buffer A: index 8 out of bounds for dim 0 of extent 8");
}

}  // namespace
}  // namespace pipesplit::codegen
