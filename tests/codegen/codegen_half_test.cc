// float16 conversions of compiled kernels (hardware F16C instructions when the host has them,
// else the portable code) against a reference written here and against the runtime's
// conversions (one definition, support/float16_bits.h): every half to float, and about a
// million floats (all exponents, the rounding ties, subnormals, overflow, NaNs) to half.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "pipesplit/codegen/codegen.h"
#include "pipesplit/runtime/tensor/half.h"
#include "pipesplit/script/parser.h"
#include "tests/codegen/kernel_test_util.h"

namespace pipesplit::codegen {
namespace {

using testing::BufferArg;
using testing::HalfArg;
using testing::KernelLibrary;

const std::string kConvert = std::string(testing::kHeader) + R"(    @T.prim_func
    def to_half(var_A: T.handle, var_H: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        A = T.match_buffer(var_A, (n,))
        H = T.match_buffer(var_H, (n,), "float16")
        for i in range(n):
            with T.block("H"):
                v_i = T.axis.spatial(n, i)
                H[v_i] = T.Cast("float16", A[v_i])

    @T.prim_func
    def from_half(var_H: T.handle, var_B: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        H = T.match_buffer(var_H, (n,), "float16")
        B = T.match_buffer(var_B, (n,))
        for i in range(n):
            with T.block("B"):
                v_i = T.axis.spatial(n, i)
                B[v_i] = T.Cast("float32", H[v_i])
)";

uint32_t Bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  return x;
}

float FromBits(uint32_t x) {
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

// The value of half `h`; a NaN keeps its payload (not quieted).
uint32_t ReferenceHalfToFloatBits(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) ? 0x80000000u : 0;
  const int e = (h >> 10) & 0x1f;
  const int m = h & 0x3ff;
  if (e == 31) return sign | 0x7f800000u | (static_cast<uint32_t>(m) << 13);
  double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  return sign | Bits(static_cast<float>(v));
}

// `f` rounded to the nearest half, ties to even; a NaN stays a quiet NaN with its sign and
// the top 10 bits of its payload.
uint16_t ReferenceFloatToHalf(float f) {
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  if (std::isnan(f)) return sign | 0x7e00 | ((Bits(f) >> 13) & 0x3ff);
  const double a = std::fabs(static_cast<double>(f));
  if (a >= 65520.0) return sign | 0x7c00;
  int exp;
  std::frexp(a, &exp);  // a = mantissa * 2^exp, mantissa in [0.5, 1)
  const int quantum = a < std::ldexp(1.0, -14) ? -24 : exp - 11;
  const double r = std::nearbyint(std::ldexp(a, -quantum));  // ties to even
  const double v = std::ldexp(r, quantum);
  if (v < std::ldexp(1.0, -14)) return sign | static_cast<uint16_t>(r);  // subnormal (or 0)
  std::frexp(v, &exp);
  const int m = static_cast<int>(std::ldexp(v, 11 - exp)) - 1024;
  return sign | static_cast<uint16_t>(((exp - 1 + 15) << 10) | m);
}

TEST(CodegenHalf, EveryHalfConvertsToItsFloat) {
  KernelLibrary lib(testing::Build(kConvert));
  std::vector<uint16_t> h(65536);
  for (uint32_t i = 0; i < h.size(); ++i) h[i] = static_cast<uint16_t>(i);
  std::vector<float> b(h.size());
  const std::vector<int64_t> shape = {static_cast<int64_t>(h.size())};
  ASSERT_EQ(lib.Call("from_half", {HalfArg(h, shape), BufferArg(b, shape)}), "");
  for (uint32_t i = 0; i < h.size(); ++i) {
    ASSERT_EQ(Bits(b[i]), ReferenceHalfToFloatBits(h[i])) << std::hex << "half 0x" << i;
    ASSERT_EQ(Bits(b[i]), Bits(runtime::HalfBitsToFloat(h[i]))) << std::hex << "half 0x" << i;
  }
}

TEST(CodegenHalf, FloatsRoundToTheNearestHalfTiesToEven) {
  KernelLibrary lib(testing::Build(kConvert));
  std::vector<float> a;
  for (uint64_t x = 0; x < (uint64_t{1} << 32); x += 4099) a.push_back(FromBits(x));
  // Every tie and its neighbours between consecutive halves, normal and subnormal.
  for (uint32_t h = 0; h < 0x7c00; h += 7) {
    float lo = FromBits(ReferenceHalfToFloatBits(h));
    float hi = FromBits(ReferenceHalfToFloatBits(h + 1));
    float tie = lo + (hi - lo) / 2;
    for (float x : {tie, std::nextafter(tie, 0.0f), std::nextafter(tie, 1e9f)}) {
      a.push_back(x);
      a.push_back(-x);
    }
  }
  for (float x : {65504.0f, 65519.99f, 65520.0f, 0x1p-25f, 0x1.000002p-25f, 0x1p-26f}) {
    a.push_back(x);
  }
  for (uint32_t nan :
       {0x7fc00000u, 0x7f800001u, 0xffc12345u, 0x7fbfffffu, 0x7f802000u, 0xff9fe000u}) {
    a.push_back(FromBits(nan));
  }
  std::vector<uint16_t> h(a.size());
  const std::vector<int64_t> shape = {static_cast<int64_t>(a.size())};
  ASSERT_EQ(lib.Call("to_half", {BufferArg(a, shape), HalfArg(h, shape)}), "");
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(h[i], ReferenceFloatToHalf(a[i])) << std::hex << "float 0x" << Bits(a[i]);
    ASSERT_EQ(h[i], runtime::FloatToHalfBits(a[i])) << std::hex << "float 0x" << Bits(a[i]);
  }
}

// 16-bit float reductions in register tiles (their accumulators held as rounded floats) and
// float16 stores of rounded values (converted without the rounding) give the bits of the nest
// as written, infinities, overflow and subnormals included: an NT matmul with T.init in
// float16 and bfloat16, one accumulating into its output, and MLC's dequantize chain. With NaN
// operands (quiet and signaling, any payload) the same elements are NaN: which of two NaN
// operands an addition returns depends on the compiler's operand order, so their payloads
// are not compared.
const std::string kHalfTiles = std::string(testing::kHeader) + R"(    @T.prim_func
    def nt_half(A: T.Buffer((T.int64(5), T.int64(24)), "float16"), B: T.Buffer((T.int64(37), T.int64(24)), "float16"), C: T.Buffer((T.int64(5), T.int64(37)), "float16")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, j, k in T.grid(T.int64(5), T.int64(37), T.int64(24)):
            with T.block("C"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[v_i, v_j] = T.float16(0)
                C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_j, v_k]

    @T.prim_func
    def nt_bf16(A: T.Buffer((T.int64(5), T.int64(24)), "bfloat16"), B: T.Buffer((T.int64(37), T.int64(24)), "bfloat16"), C: T.Buffer((T.int64(5), T.int64(37)), "bfloat16")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, j, k in T.grid(T.int64(5), T.int64(37), T.int64(24)):
            with T.block("C"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[v_i, v_j] = T.bfloat16(0.5)
                C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_j, v_k]

    @T.prim_func
    def nt_half_acc(A: T.Buffer((T.int64(5), T.int64(24)), "float16"), B: T.Buffer((T.int64(37), T.int64(24)), "float16"), C: T.Buffer((T.int64(5), T.int64(37)), "float16")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, j, k in T.grid(T.int64(5), T.int64(37), T.int64(24)):
            with T.block("C"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                C[v_i, v_j] = C[v_i, v_j] * T.float16(0.5) + A[v_i, v_k] * B[v_j, v_k]

    @T.prim_func
    def dequant(A: T.Buffer((T.int64(5), T.int64(24)), "float16"), B: T.Buffer((T.int64(37), T.int64(24)), "float16"), C: T.Buffer((T.int64(5), T.int64(24)), "float16")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, k in T.grid(T.int64(5), T.int64(24)):
            with T.block("C"):
                v_i, v_k = T.axis.remap("SS", [i, k])
                C[v_i, v_k] = (A[v_i, v_k] - T.float16(7)) * B[v_i * T.int64(7), v_k // T.int64(3)]
)";

// Mostly ordinary values, one in eight special: infinities, subnormals, zeros, values whose
// products overflow, and (`nans`) NaNs of both kinds with payloads, in float16 or bfloat16.
std::vector<uint16_t> SixteenBitOperands(size_t n, uint32_t seed, bool bf16, bool nans) {
  std::mt19937 gen(seed);
  const uint16_t half[] = {0x7c00, 0xfc00, 0x0001, 0x83ff, 0x7bff, 0xfbff, 0x0000, 0x8000,
                           0x5a00, 0x0200, 0x7c01, 0xfd55, 0x7e00, 0xfe3f, 0x7dff, 0xffc3};
  const uint16_t bfloat[] = {0x7f80, 0xff80, 0x0001, 0x807f, 0x7f7f, 0xff7f, 0x0000, 0x8000,
                             0x5f00, 0x0040, 0x7f81, 0xffd5, 0x7fc0, 0xffbf, 0x7fff, 0xffc3};
  const uint16_t* specials = bf16 ? bfloat : half;
  std::vector<uint16_t> out(n);
  for (uint16_t& x : out) {
    const uint32_t r = gen();
    const uint32_t normal = bf16 ? 0x3c00 + ((r >> 3) & 0x1ff) : 0x3400 + ((r >> 3) & 0xfff);
    x = (r & 7) == 0 ? specials[(r >> 3) % (nans ? 16 : 10)]
                     : static_cast<uint16_t>(normal + ((r >> 20) & 0x8000));
  }
  return out;
}

bool IsNaN16(uint16_t x, bool bf16) { return bf16 ? (x & 0x7fff) > 0x7f80 : (x & 0x7fff) > 0x7c00; }

TEST(CodegenHalf, RegisterTilesAndRoundedStoresKeepTheBitsOfTheWrittenNest) {
  BuildOptions as_written;
  as_written.optimize_loops = false;
  KernelLibrary reference(testing::Build(kHalfTiles, as_written));
  KernelLibrary optimized(testing::Build(kHalfTiles));
  const std::string source = GenerateSource(script::ParseModule(kHalfTiles, "kernels.py"), false);
  size_t tiles = 0;
  for (size_t at = source.find("register-tiled"); at != std::string::npos;
       at = source.find("register-tiled", at + 1)) {
    ++tiles;
  }
  EXPECT_GE(tiles, 3u) << "the matmuls are not register-tiled";
  std::vector<int64_t> a_shape = {5, 24}, b_shape = {37, 24}, c_shape = {5, 37};
  for (const char* name : {"nt_half", "nt_bf16", "nt_half_acc", "dequant"}) {
    const bool bf16 = std::string(name) == "nt_bf16";
    const std::vector<int64_t> out_shape = std::string(name) == "dequant" ? a_shape : c_shape;
    for (uint32_t seed = 1; seed <= 8; ++seed) {
      const bool nans = seed > 4;
      std::vector<uint16_t> a = SixteenBitOperands(5 * 24, seed, bf16, nans);
      std::vector<uint16_t> b = SixteenBitOperands(37 * 24, seed + 100, bf16, nans);
      std::vector<uint16_t> want = SixteenBitOperands(5 * 37, seed + 200, bf16, nans);
      std::vector<uint16_t> got = want;
      auto args = [&](std::vector<uint16_t>& c) {
        std::vector<PipesplitKernelArg> v = {HalfArg(a, a_shape), HalfArg(b, b_shape),
                                             HalfArg(c, out_shape)};
        for (PipesplitKernelArg& arg : v) arg.dtype_code = bf16 ? 4 : 2;
        return v;
      };
      ASSERT_EQ(reference.Call(name, args(want)), "") << name;
      ASSERT_EQ(optimized.Call(name, args(got)), "") << name;
      if (!nans) {
        ASSERT_EQ(got, want) << name << " seed " << seed;
        continue;
      }
      for (size_t i = 0; i < want.size(); ++i) {
        if (IsNaN16(want[i], bf16)) {
          ASSERT_TRUE(IsNaN16(got[i], bf16)) << name << " seed " << seed << " element " << i;
        } else {
          ASSERT_EQ(got[i], want[i]) << name << " seed " << seed << " element " << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace pipesplit::codegen
