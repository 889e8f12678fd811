// Bit-exact conversions between float32/float64 and the 16-bit float formats the runtime
// stores: IEEE binary16 ("float16") and bfloat16, with the semantics of support/float16_bits.h
// (round to nearest even; NaNs quiet with sign and top payload bits; subnormals exact). The
// functions are inline: kernels call them in their inner loops.
#ifndef PIPESPLIT_RUNTIME_TENSOR_HALF_H_
#define PIPESPLIT_RUNTIME_TENSOR_HALF_H_

#include <bit>
#include <cstdint>

#include "pipesplit/support/float16_bits.h"

namespace pipesplit::runtime {

// float32 <-> float16 / bfloat16 bits: the one definition (support/float16_bits.h), which
// generated kernels carry too.
inline uint16_t FloatToHalfBits(float value) { return f16::FloatToHalf(value); }
inline float HalfBitsToFloat(uint16_t half) { return f16::HalfToFloat(half); }
inline uint16_t FloatToBFloat16Bits(float value) { return f16::FloatToBFloat16(value); }
inline float BFloat16BitsToFloat(uint16_t value) { return f16::BFloat16ToFloat(value); }

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

#endif  // PIPESPLIT_RUNTIME_TENSOR_HALF_H_
