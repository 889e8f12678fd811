// float16 conversions of compiled kernels (hardware F16C instructions when the host has them,
// else the portable code) against a reference written here and against the runtime's
// conversions (one definition, support/float16_bits.h): every half to float, and about a
// million floats (all exponents, the rounding ties, subnormals, overflow, NaNs) to half.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "pipesplit/runtime/tensor/half.h"
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

}  // namespace
}  // namespace pipesplit::codegen
