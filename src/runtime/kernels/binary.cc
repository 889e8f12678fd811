// Binary elementwise kernels: arithmetic, comparisons and logical ops, all on the shared
// broadcasting loop.
#include <cmath>
#include <type_traits>

#include "pipesplit/runtime/kernels/elementwise.h"
#include "src/runtime/kernels/kernel_util.h"

namespace pipesplit::runtime {

using detail::BroadcastLoop;
using detail::RunBinary;

namespace {

// Output dtype of a comparison / logical op.
const DataType kBool = DataType::Bool();

// Runs `op` (a generic callable taking two T and returning R) over broadcast a, b where T is
// the operands' element type; `dispatch` picks the allowed types.
template <typename Dispatch, typename Op>
Tensor BinaryKernel(const char* name, const Tensor& a, const Tensor& b, DataType out_dtype,
                    bool out_is_bool, Dispatch dispatch, Op op) {
  detail::CheckSameDType(name, a, b);
  const Shape out_shape = detail::BroadcastShapes(name, a.shape(), b.shape());
  const BroadcastLoop<2> loop(out_shape, {&a.shape(), &b.shape()});
  return dispatch(a.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    TensorBuilder out(out_is_bool ? kBool : out_dtype, out_shape);
    if (out_is_bool) {
      RunBinary(loop, a.data<T>(), b.data<T>(), out.data<bool>(),
                [&](T x, T y) -> bool { return op(x, y); });
    } else {
      RunBinary(loop, a.data<T>(), b.data<T>(), out.data<T>(),
                [&](T x, T y) -> T { return op(x, y); });
    }
    return std::move(out).Publish();
  });
}

template <typename Op>
Tensor Arith(const char* name, const Tensor& a, const Tensor& b, Op op) {
  if (detail::IsHalfKind(a.dtype()) && a.dtype() == b.dtype()) {
    return detail::NarrowTo(Arith(name, detail::WidenHalf(a), detail::WidenHalf(b), op), a.dtype());
  }
  auto dispatch = [](DataType dtype, const char* n, auto&& f) {
    return detail::DispatchArith(dtype, n, f);
  };
  return BinaryKernel(name, a, b, a.dtype(), false, dispatch, op);
}

template <typename Op>
Tensor Compare(const char* name, const Tensor& a, const Tensor& b, Op op) {
  if (detail::IsHalfKind(a.dtype()) && a.dtype() == b.dtype()) {
    return Compare(name, detail::WidenHalf(a), detail::WidenHalf(b), op);
  }
  auto dispatch = [](DataType dtype, const char* n, auto&& f) {
    return detail::DispatchArithOrBool(dtype, n, f);
  };
  return BinaryKernel(name, a, b, kBool, true, dispatch, op);
}

template <typename Op>
Tensor Logical(const char* name, const Tensor& a, const Tensor& b, Op op) {
  auto dispatch = [](DataType dtype, const char* n, auto&& f) {
    if (!dtype.is_bool()) detail::ThrowUnsupportedDType(n, dtype);
    return f(detail::Tag<bool>{});
  };
  return BinaryKernel(name, a, b, kBool, true, dispatch, op);
}

template <typename T>
constexpr bool kIsInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

[[noreturn]] void ThrowDivByZero(const char* name) {
  detail::ThrowError(std::string(name) + ": integer division by zero");
}

// Integer division kernels: check for zero divisors before running the loop, so the loop
// itself stays branch-free of error handling.
void CheckNoZeroDivisor(const char* name, const Tensor& a, const Tensor& b) {
  detail::CheckSameDType(name, a, b);
  if (!b.dtype().is_integer()) return;
  detail::DispatchArith(b.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = b.data<T>();
    for (int64_t i = 0; i < b.numel(); ++i) {
      if (p[i] == T(0)) ThrowDivByZero(name);
    }
  });
}

template <typename T>
T IntPower(T base, T exponent) {
  T result = 1;
  using U = std::make_unsigned_t<T>;
  U e = static_cast<U>(exponent);
  while (e != 0) {
    if (e & 1u) result = detail::WrapMul(result, base);
    base = detail::WrapMul(base, base);
    e >>= 1;
  }
  return result;
}

template <typename T>
T FloatMax(T x, T y) {
  if (x != x) return x;
  if (y != y) return y;
  return x > y ? x : y;
}

template <typename T>
T FloatMin(T x, T y) {
  if (x != x) return x;
  if (y != y) return y;
  return x < y ? x : y;
}

}  // namespace

Tensor Add(const Tensor& a, const Tensor& b) {
  return Arith("add", a, b, [](auto x, auto y) {
    if constexpr (kIsInt<decltype(x)>) return detail::WrapAdd(x, y);
    if constexpr (!kIsInt<decltype(x)>) return x + y;
  });
}

Tensor Subtract(const Tensor& a, const Tensor& b) {
  return Arith("subtract", a, b, [](auto x, auto y) {
    if constexpr (kIsInt<decltype(x)>) return detail::WrapSub(x, y);
    if constexpr (!kIsInt<decltype(x)>) return x - y;
  });
}

Tensor Multiply(const Tensor& a, const Tensor& b) {
  return Arith("multiply", a, b, [](auto x, auto y) {
    if constexpr (kIsInt<decltype(x)>) return detail::WrapMul(x, y);
    if constexpr (!kIsInt<decltype(x)>) return x * y;
  });
}

Tensor Divide(const Tensor& a, const Tensor& b) {
  CheckNoZeroDivisor("divide", a, b);
  return Arith("divide", a, b, [](auto x, auto y) {
    using T = decltype(x);
    if constexpr (std::is_signed_v<T> && kIsInt<T>) {
      if (y == T(-1)) return detail::WrapNeg(x);  // the one overflowing quotient
    }
    return static_cast<T>(x / y);
  });
}

Tensor FloorDivide(const Tensor& a, const Tensor& b) {
  CheckNoZeroDivisor("floor_divide", a, b);
  return Arith("floor_divide", a, b, [](auto x, auto y) {
    using T = decltype(x);
    if constexpr (std::is_floating_point_v<T>) {
      return std::floor(x / y);
    } else if constexpr (std::is_signed_v<T>) {
      if (y == T(-1)) return detail::WrapNeg(x);
      T q = static_cast<T>(x / y);
      if (static_cast<T>(x % y) != 0 && ((x < 0) != (y < 0))) --q;
      return q;
    } else {
      return static_cast<T>(x / y);
    }
  });
}

Tensor FloorMod(const Tensor& a, const Tensor& b) {
  CheckNoZeroDivisor("floor_mod", a, b);
  return Arith("floor_mod", a, b, [](auto x, auto y) {
    using T = decltype(x);
    if constexpr (std::is_floating_point_v<T>) {
      return x - std::floor(x / y) * y;
    } else if constexpr (std::is_signed_v<T>) {
      if (y == T(-1)) return T(0);
      T r = static_cast<T>(x % y);
      if (r != 0 && ((r < 0) != (y < 0))) r = static_cast<T>(r + y);
      return r;
    } else {
      return static_cast<T>(x % y);
    }
  });
}

Tensor Mod(const Tensor& a, const Tensor& b) {
  CheckNoZeroDivisor("mod", a, b);
  return Arith("mod", a, b, [](auto x, auto y) {
    using T = decltype(x);
    if constexpr (std::is_floating_point_v<T>) {
      return std::fmod(x, y);
    } else if constexpr (std::is_signed_v<T>) {
      if (y == T(-1)) return T(0);
      return static_cast<T>(x % y);
    } else {
      return static_cast<T>(x % y);
    }
  });
}

Tensor Power(const Tensor& a, const Tensor& b) {
  detail::CheckSameDType("power", a, b);
  if (b.dtype().is_int()) {
    detail::DispatchArith(b.dtype(), "power", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* p = b.data<T>();
      for (int64_t i = 0; i < b.numel(); ++i) {
        if (p[i] < T(0)) {
          detail::ThrowError("power: integers to negative integer powers are not allowed");
        }
      }
    });
  }
  return Arith("power", a, b, [](auto x, auto y) {
    using T = decltype(x);
    if constexpr (std::is_floating_point_v<T>) {
      return std::pow(x, y);
    } else {
      return IntPower(x, y);
    }
  });
}

Tensor Maximum(const Tensor& a, const Tensor& b) {
  return Arith("maximum", a, b, [](auto x, auto y) {
    if constexpr (std::is_floating_point_v<decltype(x)>) return FloatMax(x, y);
    if constexpr (!std::is_floating_point_v<decltype(x)>) return x > y ? x : y;
  });
}

Tensor Minimum(const Tensor& a, const Tensor& b) {
  return Arith("minimum", a, b, [](auto x, auto y) {
    if constexpr (std::is_floating_point_v<decltype(x)>) return FloatMin(x, y);
    if constexpr (!std::is_floating_point_v<decltype(x)>) return x < y ? x : y;
  });
}

Tensor Equal(const Tensor& a, const Tensor& b) {
  return Compare("equal", a, b, [](auto x, auto y) { return x == y; });
}

Tensor NotEqual(const Tensor& a, const Tensor& b) {
  return Compare("not_equal", a, b, [](auto x, auto y) { return x != y; });
}

Tensor Less(const Tensor& a, const Tensor& b) {
  return Compare("less", a, b, [](auto x, auto y) { return x < y; });
}

Tensor LessEqual(const Tensor& a, const Tensor& b) {
  return Compare("less_equal", a, b, [](auto x, auto y) { return x <= y; });
}

Tensor Greater(const Tensor& a, const Tensor& b) {
  return Compare("greater", a, b, [](auto x, auto y) { return x > y; });
}

Tensor GreaterEqual(const Tensor& a, const Tensor& b) {
  return Compare("greater_equal", a, b, [](auto x, auto y) { return x >= y; });
}

Tensor LogicalAnd(const Tensor& a, const Tensor& b) {
  return Logical("logical_and", a, b, [](bool x, bool y) { return x && y; });
}

Tensor LogicalOr(const Tensor& a, const Tensor& b) {
  return Logical("logical_or", a, b, [](bool x, bool y) { return x || y; });
}

Tensor LogicalXor(const Tensor& a, const Tensor& b) {
  return Logical("logical_xor", a, b, [](bool x, bool y) { return x != y; });
}

}  // namespace pipesplit::runtime
