// Unary elementwise kernels (math, activations, clip), where, and astype.
#include <cmath>
#include <numbers>
#include <type_traits>

#include "pipesplit/runtime/kernels/elementwise.h"
#include "src/runtime/kernels/kernel_util.h"
#include "src/runtime/kernels/vector_math.h"

namespace pipesplit::runtime {

using detail::BroadcastLoop;
using detail::Tag;

namespace {

template <typename T, typename Op>
Tensor MapInto(const Tensor& x, Op op) {
  TensorBuilder out(x.dtype(), x.shape());
  const T* __restrict in = x.data<T>();
  T* __restrict o = out.data<T>();
  detail::ParallelRange(x.numel(), detail::kElementwiseChunk, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) o[i] = op(in[i]);
  });
  return std::move(out).Publish();
}

// Float-only math: float16/bfloat16 widen to float32 and round back.
template <typename Op>
Tensor UnaryFloat(const char* name, const Tensor& x, Op op) {
  if (detail::IsHalfKind(x.dtype())) {
    return detail::NarrowTo(UnaryFloat(name, detail::WidenHalf(x), op), x.dtype());
  }
  return detail::DispatchFloat(x.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return MapInto<T>(x, [&](T v) -> T { return op(v); });
  });
}

// Float-only math with a vectorized float32 array routine (vector_math.h): float16/bfloat16
// widen to float32 and round back; float64 uses `op`.
template <typename Op>
Tensor UnaryFloatArray(const char* name, const Tensor& x,
                       void (*f32)(const float*, float*, int64_t), Op op) {
  if (detail::IsHalfKind(x.dtype())) {
    return detail::NarrowTo(UnaryFloatArray(name, detail::WidenHalf(x), f32, op), x.dtype());
  }
  if (detail::KindOf(x.dtype()) != detail::ElemKind::kF32) return UnaryFloat(name, x, op);
  TensorBuilder out(x.dtype(), x.shape());
  const float* in = x.data<float>();
  float* o = out.data<float>();
  detail::ParallelRange(x.numel(), detail::kElementwiseChunk, [&](int64_t begin, int64_t end) {
    f32(in + begin, o + begin, end - begin);
  });
  return std::move(out).Publish();
}

// Numeric math: float, double and integers.
template <typename Op>
Tensor UnaryNumeric(const char* name, const Tensor& x, Op op) {
  if (detail::IsHalfKind(x.dtype())) {
    return detail::NarrowTo(UnaryNumeric(name, detail::WidenHalf(x), op), x.dtype());
  }
  return detail::DispatchArith(x.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return MapInto<T>(x, [&](T v) -> T { return op(v); });
  });
}

template <typename T>
constexpr bool kIsSignedInt = std::is_integral_v<T>&& std::is_signed_v<T>;

}  // namespace

Tensor Negative(const Tensor& x) {
  return UnaryNumeric("negative", x, [](auto v) {
    if constexpr (std::is_integral_v<decltype(v)>) return detail::WrapNeg(v);
    if constexpr (!std::is_integral_v<decltype(v)>) return -v;
  });
}

Tensor Abs(const Tensor& x) {
  return UnaryNumeric("abs", x, [](auto v) {
    using T = decltype(v);
    if constexpr (kIsSignedInt<T>) return v < 0 ? detail::WrapNeg(v) : v;
    if constexpr (std::is_floating_point_v<T>) return std::fabs(v);
    if constexpr (std::is_unsigned_v<T>) return v;
  });
}

Tensor Square(const Tensor& x) {
  return UnaryNumeric("square", x, [](auto v) {
    if constexpr (std::is_integral_v<decltype(v)>) return detail::WrapMul(v, v);
    if constexpr (!std::is_integral_v<decltype(v)>) return v * v;
  });
}

Tensor Relu(const Tensor& x) {
  return UnaryNumeric("nn.relu", x, [](auto v) {
    using T = decltype(v);
    return v < T(0) ? T(0) : v;  // NaN passes through
  });
}

Tensor Clip(const Tensor& x, double min, double max) {
  if (detail::IsHalfKind(x.dtype())) {
    // Bounds rounded to x's dtype, as TVM casts them.
    const Tensor bounds = MakeTensor(x.dtype(), {2}, {min, max});
    const double lo = ElementAsDouble(bounds, 0);
    const double hi = ElementAsDouble(bounds, 1);
    return detail::NarrowTo(Clip(detail::WidenHalf(x), lo, hi), x.dtype());
  }
  return detail::DispatchArith(x.dtype(), "clip", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T lo = detail::ConvertValue<T>(min);
    const T hi = detail::ConvertValue<T>(max);
    return MapInto<T>(x, [&](T v) -> T { return v < lo ? lo : (v > hi ? hi : v); });
  });
}

Tensor Exp(const Tensor& x) {
  return UnaryFloatArray("exp", x, detail::ExpF32, [](auto v) { return std::exp(v); });
}

Tensor Log(const Tensor& x) {
  return UnaryFloat("log", x, [](auto v) { return std::log(v); });
}

Tensor Sqrt(const Tensor& x) {
  return UnaryFloat("sqrt", x, [](auto v) { return std::sqrt(v); });
}

Tensor Rsqrt(const Tensor& x) {
  return UnaryFloat("rsqrt", x, [](auto v) { return decltype(v)(1) / std::sqrt(v); });
}

Tensor Tanh(const Tensor& x) {
  return UnaryFloat("tanh", x, [](auto v) { return std::tanh(v); });
}

Tensor Sigmoid(const Tensor& x) {
  return UnaryFloatArray("sigmoid", x, detail::SigmoidF32, [](auto v) {
    using T = decltype(v);
    return T(1) / (T(1) + std::exp(-v));
  });
}

Tensor Erf(const Tensor& x) {
  return UnaryFloat("erf", x, [](auto v) { return std::erf(v); });
}

Tensor Sin(const Tensor& x) {
  return UnaryFloat("sin", x, [](auto v) { return std::sin(v); });
}

Tensor Cos(const Tensor& x) {
  return UnaryFloat("cos", x, [](auto v) { return std::cos(v); });
}

Tensor Floor(const Tensor& x) {
  return UnaryFloat("floor", x, [](auto v) { return std::floor(v); });
}

Tensor Ceil(const Tensor& x) {
  return UnaryFloat("ceil", x, [](auto v) { return std::ceil(v); });
}

Tensor Silu(const Tensor& x) {
  return UnaryFloatArray("nn.silu", x, detail::SiluF32, [](auto v) {
    using T = decltype(v);
    return v * (T(1) / (T(1) + std::exp(-v)));
  });
}

Tensor Gelu(const Tensor& x) {
  return UnaryFloat("nn.gelu", x, [](auto v) {
    using T = decltype(v);
    const T sqrt_half = static_cast<T>(0.70710678118654752440);
    return v * (T(0.5) + std::erf(v * sqrt_half) * T(0.5));
  });
}

Tensor GeluTanh(const Tensor& x) {
  return UnaryFloat("nn.gelu_tanh", x, [](auto v) {
    using T = decltype(v);
    const T k = static_cast<T>(std::sqrt(2.0 / std::numbers::pi));
    return T(0.5) * v * (T(1) + std::tanh(k * v * (T(1) + T(0.044715) * v * v)));
  });
}

Tensor LogicalNot(const Tensor& x) {
  if (!x.dtype().is_bool()) detail::ThrowUnsupportedDType("logical_not", x.dtype());
  return MapInto<bool>(x, [](bool v) { return !v; });
}

Tensor Where(const Tensor& cond, const Tensor& x, const Tensor& y) {
  if (!cond.dtype().is_bool()) {
    detail::ThrowError("where: condition must be bool, not " + cond.dtype().ToString());
  }
  detail::CheckSameDType("where", x, y);
  const Shape xy = detail::BroadcastShapes("where", x.shape(), y.shape());
  const Shape out_shape = detail::BroadcastShapes("where", cond.shape(), xy);
  const BroadcastLoop<3> loop(out_shape, {&cond.shape(), &x.shape(), &y.shape()});
  return detail::DispatchAll(x.dtype(), "where", [&](auto tag) {
    using T = typename decltype(tag)::type;
    TensorBuilder out(x.dtype(), out_shape);
    const bool* c = cond.data<bool>();
    const T* px = x.data<T>();
    const T* py = y.data<T>();
    T* po = out.data<T>();
    const int64_t n = loop.inner();
    const int64_t sc = loop.inner_stride(0);
    const int64_t sx = loop.inner_stride(1);
    const int64_t sy = loop.inner_stride(2);
    loop.ForEachRow([&](int64_t o, const std::array<int64_t, 3>& off) {
      const bool* rc = c + off[0];
      const T* rx = px + off[1];
      const T* ry = py + off[2];
      T* ro = po + o;
      for (int64_t j = 0; j < n; ++j) ro[j] = rc[j * sc] ? rx[j * sx] : ry[j * sy];
    });
    return std::move(out).Publish();
  });
}

Tensor Astype(const Tensor& x, DataType dtype) {
  if (x.dtype() == dtype) return x;
  CheckStorableDType(dtype, "astype");
  return detail::DispatchAll(x.dtype(), "astype", [&](auto from_tag) {
    using From = typename decltype(from_tag)::type;
    return detail::DispatchAll(dtype, "astype", [&](auto to_tag) {
      using To = typename decltype(to_tag)::type;
      TensorBuilder out(dtype, x.shape());
      const From* __restrict in = x.data<From>();
      To* __restrict o = out.data<To>();
      detail::ParallelRange(x.numel(), detail::kElementwiseChunk, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) o[i] = detail::ConvertValue<To>(in[i]);
      });
      return std::move(out).Publish();
    });
  });
}

}  // namespace pipesplit::runtime
