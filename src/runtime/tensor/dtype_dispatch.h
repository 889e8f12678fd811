// Element types of tensors and dispatch on a dtype: the storage types of the 16-bit floats,
// the kind of each dtype, calls of a generic function with the C++ type of a dtype, and the
// value conversions astype performs. Below the tensor itself: tensor.cc and every kernel use it.
#ifndef PIPESPLIT_SRC_RUNTIME_TENSOR_DTYPE_DISPATCH_H_
#define PIPESPLIT_SRC_RUNTIME_TENSOR_DTYPE_DISPATCH_H_

#include <cstdint>
#include <string>
#include <type_traits>

#include "pipesplit/support/check.h"
#include "pipesplit/support/dtype.h"

namespace pipesplit::runtime::detail {

// Storage types of the 16-bit floats (computation widens them to float).
struct Half {
  uint16_t bits;
};
struct BHalf {
  uint16_t bits;
};

enum class ElemKind : uint8_t {
  kF16,
  kBF16,
  kF32,
  kF64,
  kI8,
  kI16,
  kI32,
  kI64,
  kU8,
  kU16,
  kU32,
  kU64,
  kBool,
  kStorageOnly,  // float8 formats: can be stored and copied, not computed on
  kInvalid,
};

ElemKind KindOf(DataType dtype);

template <typename T>
using Tag = std::type_identity<T>;

[[noreturn]] void ThrowUnsupportedDType(const char* op, DataType dtype);
[[noreturn]] void ThrowError(const std::string& message);

// Calls f(Tag<T>{}) for the arithmetic types: float, double and the 8..64-bit integers.
// float16/bfloat16 are not included: callers widen them to float32 first.
template <typename F>
decltype(auto) DispatchArith(DataType dtype, const char* op, F&& f) {
  switch (KindOf(dtype)) {
    case ElemKind::kF32:
      return f(Tag<float>{});
    case ElemKind::kF64:
      return f(Tag<double>{});
    case ElemKind::kI8:
      return f(Tag<int8_t>{});
    case ElemKind::kI16:
      return f(Tag<int16_t>{});
    case ElemKind::kI32:
      return f(Tag<int32_t>{});
    case ElemKind::kI64:
      return f(Tag<int64_t>{});
    case ElemKind::kU8:
      return f(Tag<uint8_t>{});
    case ElemKind::kU16:
      return f(Tag<uint16_t>{});
    case ElemKind::kU32:
      return f(Tag<uint32_t>{});
    case ElemKind::kU64:
      return f(Tag<uint64_t>{});
    default:
      ThrowUnsupportedDType(op, dtype);
  }
}

// Arithmetic types plus bool.
template <typename F>
decltype(auto) DispatchArithOrBool(DataType dtype, const char* op, F&& f) {
  if (KindOf(dtype) == ElemKind::kBool) return f(Tag<bool>{});
  return DispatchArith(dtype, op, std::forward<F>(f));
}

// float and double only.
template <typename F>
decltype(auto) DispatchFloat(DataType dtype, const char* op, F&& f) {
  switch (KindOf(dtype)) {
    case ElemKind::kF32:
      return f(Tag<float>{});
    case ElemKind::kF64:
      return f(Tag<double>{});
    default:
      ThrowUnsupportedDType(op, dtype);
  }
}

// Every storable type, 16-bit floats as Half/BHalf.
template <typename F>
decltype(auto) DispatchAll(DataType dtype, const char* op, F&& f) {
  switch (KindOf(dtype)) {
    case ElemKind::kF16:
      return f(Tag<Half>{});
    case ElemKind::kBF16:
      return f(Tag<BHalf>{});
    default:
      return DispatchArithOrBool(dtype, op, std::forward<F>(f));
  }
}

// Plain unsigned integer types of each width (for byte moves that ignore the dtype).
template <int kBytes>
struct UIntOfSize;
template <>
struct UIntOfSize<1> {
  using type = uint8_t;
};
template <>
struct UIntOfSize<2> {
  using type = uint16_t;
};
template <>
struct UIntOfSize<4> {
  using type = uint32_t;
};
template <>
struct UIntOfSize<8> {
  using type = uint64_t;
};

// Calls f(Tag<U>{}) with U an unsigned type as wide as one element of `dtype`.
template <typename F>
decltype(auto) DispatchBySize(DataType dtype, F&& f) {
  switch (dtype.bytes()) {
    case 1:
      return f(Tag<uint8_t>{});
    case 2:
      return f(Tag<uint16_t>{});
    case 4:
      return f(Tag<uint32_t>{});
    case 8:
      return f(Tag<uint64_t>{});
    default:
      PS_UNREACHABLE();
      return f(Tag<uint8_t>{});
  }
}

bool IsHalfKind(DataType dtype);  // float16 or bfloat16

template <typename T>
using WideUnsigned = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;

template <typename T>
inline T WrapAdd(T a, T b) {
  return static_cast<T>(static_cast<WideUnsigned<T>>(a) + static_cast<WideUnsigned<T>>(b));
}
template <typename T>
inline T WrapSub(T a, T b) {
  return static_cast<T>(static_cast<WideUnsigned<T>>(a) - static_cast<WideUnsigned<T>>(b));
}
template <typename T>
inline T WrapMul(T a, T b) {
  return static_cast<T>(static_cast<WideUnsigned<T>>(a) * static_cast<WideUnsigned<T>>(b));
}
template <typename T>
inline T WrapNeg(T a) {
  return static_cast<T>(WideUnsigned<T>(0) - static_cast<WideUnsigned<T>>(a));
}

// Converts one value between element types as astype does: floats round to nearest even,
// float -> integer truncates toward zero and saturates (NaN -> 0), integers wrap, bool is
// "nonzero".
template <typename To, typename From>
inline To ConvertValue(From v);

// Reads element `i` of a tensor of element type T as float (T arithmetic, Half or BHalf).
template <typename T>
inline float LoadAsFloat(const T* p, int64_t i);

}  // namespace pipesplit::runtime::detail

#include "src/runtime/tensor/convert_inl.h"

#endif  // PIPESPLIT_SRC_RUNTIME_TENSOR_DTYPE_DISPATCH_H_
