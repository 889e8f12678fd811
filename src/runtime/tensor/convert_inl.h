// Element conversions used by astype and by kernels that widen 16-bit floats (included by
// kernel_util.h, not on its own).
#ifndef PIPESPLIT_SRC_RUNTIME_TENSOR_CONVERT_INL_H_
#define PIPESPLIT_SRC_RUNTIME_TENSOR_CONVERT_INL_H_

#include <cmath>
#include <limits>
#include <type_traits>

#include "pipesplit/runtime/tensor/half.h"

namespace pipesplit::runtime::detail {

template <typename T>
inline constexpr bool kIsHalfType = std::is_same_v<T, Half> || std::is_same_v<T, BHalf>;

// float/double -> integer: truncate toward zero, saturate, NaN -> 0.
template <typename To, typename From>
inline To SaturatingFloatToInt(From v) {
  if (v != v) return To(0);
  constexpr To kMin = std::numeric_limits<To>::min();
  constexpr To kMax = std::numeric_limits<To>::max();
  // 2^(digits) is exactly representable in From; compare against it and the minimum.
  const From upper = std::ldexp(From(1), std::numeric_limits<To>::digits);
  if (v >= upper) return kMax;
  if (std::is_signed_v<To> ? v < static_cast<From>(kMin) : v <= From(-1)) return kMin;
  return static_cast<To>(v);
}

template <typename To, typename From>
inline To ConvertValue(From v) {
  if constexpr (std::is_same_v<From, Half>) {
    return ConvertValue<To>(HalfBitsToFloat(v.bits));
  } else if constexpr (std::is_same_v<From, BHalf>) {
    return ConvertValue<To>(BFloat16BitsToFloat(v.bits));
  } else if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<From, bool>) {
    if constexpr (std::is_same_v<To, Half>) return Half{static_cast<uint16_t>(v ? 0x3c00 : 0)};
    if constexpr (std::is_same_v<To, BHalf>) return BHalf{static_cast<uint16_t>(v ? 0x3f80 : 0)};
    if constexpr (!kIsHalfType<To>) return static_cast<To>(v ? 1 : 0);
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_same_v<To, Half>) {
    if constexpr (std::is_same_v<From, float>) return Half{FloatToHalfBits(v)};
    if constexpr (!std::is_same_v<From, float>) {
      return Half{DoubleToHalfBits(static_cast<double>(v))};
    }
  } else if constexpr (std::is_same_v<To, BHalf>) {
    if constexpr (std::is_same_v<From, float>) return BHalf{FloatToBFloat16Bits(v)};
    if constexpr (!std::is_same_v<From, float>) {
      return BHalf{DoubleToBFloat16Bits(static_cast<double>(v))};
    }
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    return SaturatingFloatToInt<To>(v);
  } else {
    return static_cast<To>(v);  // int -> int wraps (C++20), int/float -> float rounds
  }
}

template <typename T>
inline float LoadAsFloat(const T* p, int64_t i) {
  if constexpr (std::is_same_v<T, Half>) {
    return HalfBitsToFloat(p[i].bits);
  } else if constexpr (std::is_same_v<T, BHalf>) {
    return BFloat16BitsToFloat(p[i].bits);
  } else {
    return static_cast<float>(p[i]);
  }
}

}  // namespace pipesplit::runtime::detail

#endif  // PIPESPLIT_SRC_RUNTIME_TENSOR_CONVERT_INL_H_
