// Vectorized float32 exp and its users (see vector_math.h).
#include "src/runtime/kernels/vector_math.h"

#include <bit>
#include <cstdint>

// Each array loop is compiled once per instruction set and picked at load time (GNU ifunc).
// The clones give identical results (see vector_math.h), so this is a speed choice only.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_ADDRESS__)
#define PIPESPLIT_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define PIPESPLIT_VECTOR_CLONES
#endif

namespace pipesplit::runtime::detail {
namespace {

// exp(x) for a float x, in double, before the final rounding to float.
[[gnu::always_inline]] inline double ExpAsDouble(float x) {
  constexpr double kInvLn2 = 0x1.71547652b82fep0;
  constexpr double kLn2Hi = 0x1.62e42feep-1;  // 6.93147180369123816490e-01, trailing zeros
  constexpr double kLn2Lo = 0x1.a39ef35793c76p-33;
  constexpr double kShift = 0x1.8p52;  // adding it rounds to an integer kept in the low bits
  constexpr uint64_t kShiftBits = 0x4338000000000000ULL;
  double xd = static_cast<double>(x);
  // Outside [-150, 100] the float result is 0 or +inf anyway; the clamp keeps 2^n a normal
  // double. Comparisons with NaN are false, so NaN passes through and stays NaN.
  xd = xd < -150.0 ? -150.0 : xd;
  xd = xd > 100.0 ? 100.0 : xd;
  const double kd = xd * kInvLn2 + kShift;
  const uint64_t ki = std::bit_cast<uint64_t>(kd);
  const double nd = kd - kShift;  // n = round(x / ln2), |n| <= 217
  const double r = (xd - nd * kLn2Hi) - nd * kLn2Lo;
  // Taylor polynomial of exp(r), Horner from the highest degree.
  double p = 1.0 / 39916800.0;  // 1/11!
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  // 2^n: n + 1023 in the exponent field (n is the low bits of ki in two's complement).
  const double scale = std::bit_cast<double>((ki - kShiftBits + 1023) << 52);
  return p * scale;
}

[[gnu::always_inline]] inline float Exp(float x) { return static_cast<float>(ExpAsDouble(x)); }

}  // namespace

PIPESPLIT_VECTOR_CLONES void ExpF32(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = Exp(in[i]);
}

PIPESPLIT_VECTOR_CLONES void ExpShiftedF32(const float* in, float shift, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = Exp(in[i] - shift);
}

PIPESPLIT_VECTOR_CLONES void SigmoidF32(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = 1.0f / (1.0f + Exp(-in[i]));
}

PIPESPLIT_VECTOR_CLONES void SiluF32(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = in[i];
    out[i] = v * (1.0f / (1.0f + Exp(-v)));
  }
}

}  // namespace pipesplit::runtime::detail
