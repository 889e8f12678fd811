// The one definition of the conversions between float32 and the 16-bit float formats: IEEE
// binary16 ("float16") and bfloat16, as bits. The runtime includes it (runtime/half.h) and
// every generated kernel carries its text (the codegen embeds this file), so a reference kernel
// and a compiled kernel give the same bits for every input.
//
// Narrowing rounds to nearest, ties to even; infinities stay infinite; subnormals are produced
// and read exactly. A NaN stays a NaN: quiet, with its sign and the top bits of its payload, as
// the F16C instruction vcvtps2ph gives it (so kernels may use it for every input). Widening is
// exact: a NaN keeps its bits.
//
// Only <cstdint> and <cstring>, no C++20, so the text compiles inside a kernel as it is.
// PS_F16_PORTABLE qualifies the two float16 functions (inline by default; kernels built with
// F16C make them a cold out-of-line path).
#ifndef PIPESPLIT_SUPPORT_FLOAT16_BITS_H_
#define PIPESPLIT_SUPPORT_FLOAT16_BITS_H_

#include <cstdint>
#include <cstring>

#ifndef PS_F16_PORTABLE
#define PS_F16_PORTABLE inline
#endif

namespace pipesplit::f16 {

// float32 -> float16 bits.
PS_F16_PORTABLE uint16_t FloatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t abs = bits & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520: infinity
  if (abs < 0x38800000u) {  // below 2^-14: a subnormal half or zero, in units of 2^-24
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);  // <= 2^-25 rounds to zero
    const uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - (abs >> 23);  // 14..24
    uint32_t quotient = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1u);
    if (rest > halfway || (rest == halfway && (quotient & 1u))) ++quotient;
    return static_cast<uint16_t>(sign | quotient);
  }
  uint32_t rebiased = abs - (112u << 23);  // exponent bias 127 -> 15
  rebiased += 0xfffu + ((rebiased >> 13) & 1u);
  return static_cast<uint16_t>(sign | (rebiased >> 13));
}

// float16 bits -> float32.
PS_F16_PORTABLE float HalfToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1fu;
  const uint32_t mantissa = half & 0x3ffu;
  uint32_t bits;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in float
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    std::memcpy(&bits, &magnitude, 4);
    bits |= sign;
  } else if (exponent == 0x1fu) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else {
    bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  }
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

// float32 -> bfloat16 bits; a NaN is kept quiet.
inline uint16_t FloatToBFloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

// bfloat16 bits -> float32 (exact).
inline float BFloat16ToFloat(uint16_t value) {
  const uint32_t bits = static_cast<uint32_t>(value) << 16;
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

}  // namespace pipesplit::f16

#endif  // PIPESPLIT_SUPPORT_FLOAT16_BITS_H_
