// Bit-exact conversions between float32/float64 and the 16-bit float formats the runtime
// stores: IEEE binary16 ("float16") and bfloat16. Narrowing rounds to nearest, ties to even;
// NaNs stay NaN (quiet, sign and top payload bits kept), infinities stay infinite,
// subnormals are produced and read exactly. The functions are inline: kernels call them in
// their inner loops.
#ifndef PIPESPLIT_RUNTIME_HALF_H_
#define PIPESPLIT_RUNTIME_HALF_H_

#include <bit>
#include <cstdint>

namespace pipesplit::runtime {

// float32 -> float16 bits, round to nearest even.
inline uint16_t FloatToHalfBits(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t abs = bits & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or nan
    if (abs == 0x7f800000u) return sign | 0x7c00u;
    return static_cast<uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));
  }
  if (abs >= 0x477ff000u) return sign | 0x7c00u;  // >= 65520 rounds to infinity
  if (abs < 0x38800000u) {                        // below 2^-14: subnormal half or zero
    if (abs < 0x33000000u) return sign;           // <= 2^-25 rounds to zero
    const uint32_t exponent = abs >> 23;
    const uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - exponent;  // 14..24
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

// float16 bits -> float32 (exact).
inline float HalfBitsToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1fu;
  uint32_t mantissa = half & 0x3ffu;
  uint32_t bits;
  if (exponent == 0x1fu) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {  // subnormal: normalize
    int32_t e = 1;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --e;
    }
    bits = sign | (static_cast<uint32_t>(e + 112) << 23) | ((mantissa & 0x3ffu) << 13);
  }
  return std::bit_cast<float>(bits);
}

// float32 -> bfloat16 bits, round to nearest even.
inline uint16_t FloatToBFloat16Bits(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) {  // nan: keep it a quiet nan
    return static_cast<uint16_t>((bits >> 16) | 0x40u);
  }
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

// bfloat16 bits -> float32 (exact).
inline float BFloat16BitsToFloat(uint16_t value) {
  return std::bit_cast<float>(static_cast<uint32_t>(value) << 16);
}

// float64 -> float32 rounded to odd (truncate, then set the last bit when inexact). Rounding
// that result once more to a format at least two bits narrower gives the correctly rounded
// value, which is how float64 -> float16/bfloat16 avoids double rounding.
inline float DoubleToFloatRoundToOdd(double value) {
  float rounded = static_cast<float>(value);
  const double back = static_cast<double>(rounded);
  if (back == value || value != value) return rounded;
  uint32_t bits = std::bit_cast<uint32_t>(rounded);
  if ((bits & 1u) == 0) {
    // `rounded` is the even neighbour; step to the odd one on the side of `value`.
    const bool away_from_zero = (back < 0 ? -back : back) < (value < 0 ? -value : value);
    bits = away_from_zero ? bits + 1u : bits - 1u;
  }
  return std::bit_cast<float>(bits);
}

inline uint16_t DoubleToHalfBits(double value) {
  return FloatToHalfBits(DoubleToFloatRoundToOdd(value));
}

inline uint16_t DoubleToBFloat16Bits(double value) {
  return FloatToBFloat16Bits(DoubleToFloatRoundToOdd(value));
}

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_HALF_H_
