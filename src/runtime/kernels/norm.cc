// Normalizing nn kernels: softmax, log_softmax, rms_norm, layer_norm.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "pipesplit/runtime/kernels/manipulate.h"
#include "pipesplit/runtime/kernels/reduce.h"
#include "src/runtime/kernels/kernel_util.h"
#include "src/runtime/kernels/parallel.h"
#include "src/runtime/kernels/reduce_util.h"
#include "src/runtime/kernels/vector_math.h"

namespace pipesplit::runtime {

namespace {

template <typename T>
inline T MaxNan(T a, T b) {
  return a != a ? a : (b != b || b > a ? b : a);
}

// NaN-propagating max of a contiguous row (n >= 1), fixed order.
template <typename T>
T RowMax(const T* p, int64_t n) {
  constexpr int kWidth = detail::kLanes<T>;
  T acc[kWidth];
  for (int l = 0; l < kWidth; ++l) acc[l] = p[0];
  int64_t i = 0;
  for (; i + kWidth <= n; i += kWidth) {
    for (int l = 0; l < kWidth; ++l) acc[l] = MaxNan(acc[l], p[i + l]);
  }
  for (int w = kWidth / 2; w >= 1; w /= 2) {
    for (int l = 0; l < w; ++l) acc[l] = MaxNan(acc[l], acc[l + w]);
  }
  T m = acc[0];
  for (; i < n; ++i) m = MaxNan(m, p[i]);
  return m;
}

template <typename T, bool kLog>
void SoftmaxRow(const T* in, T* out, int64_t n) {
  const T m = RowMax(in, n);
  if constexpr (std::is_same_v<T, float>) {
    detail::ExpShiftedF32(in, m, out, n);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = std::exp(in[i] - m);
  }
  const T s = detail::RowSum(out, n);
  if constexpr (kLog) {
    const T log_s = std::log(s);
    for (int64_t i = 0; i < n; ++i) out[i] = in[i] - m - log_s;
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = out[i] / s;
  }
}

// Softmax over the middle dim of [n, inner] blocks, vectorized along inner.
template <typename T, bool kLog>
void SoftmaxColumns(const T* in, T* out, int64_t n, int64_t inner, std::vector<T>& m,
                    std::vector<T>& s) {
  m.assign(in, in + inner);
  for (int64_t k = 1; k < n; ++k) {
    const T* row = in + k * inner;
    for (int64_t j = 0; j < inner; ++j) m[j] = MaxNan(m[j], row[j]);
  }
  s.assign(static_cast<size_t>(inner), T(0));
  for (int64_t k = 0; k < n; ++k) {
    const T* row = in + k * inner;
    T* orow = out + k * inner;
    if constexpr (std::is_same_v<T, float>) {
      for (int64_t j = 0; j < inner; ++j) orow[j] = row[j] - m[j];
      detail::ExpF32(orow, orow, inner);
    } else {
      for (int64_t j = 0; j < inner; ++j) orow[j] = std::exp(row[j] - m[j]);
    }
    for (int64_t j = 0; j < inner; ++j) s[j] += orow[j];
  }
  if constexpr (kLog) {
    for (int64_t j = 0; j < inner; ++j) s[j] = std::log(s[j]);
  }
  for (int64_t k = 0; k < n; ++k) {
    const T* row = in + k * inner;
    T* orow = out + k * inner;
    for (int64_t j = 0; j < inner; ++j) {
      if constexpr (kLog) {
        orow[j] = row[j] - m[j] - s[j];
      } else {
        orow[j] = orow[j] / s[j];
      }
    }
  }
}

template <bool kLog>
Tensor SoftmaxImpl(const char* name, const Tensor& x, int64_t axis) {
  if (detail::IsHalfKind(x.dtype())) {
    return detail::NarrowTo(SoftmaxImpl<kLog>(name, detail::WidenHalf(x), axis), x.dtype());
  }
  const int64_t ax = detail::NormalizeAxis(name, axis, x.ndim(), x.shape());
  return detail::DispatchFloat(x.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    TensorBuilder out(x.dtype(), x.shape());
    const int64_t n = x.shape()[ax];
    if (out.numel() == 0) return std::move(out).Publish();
    int64_t inner = 1;
    for (int i = static_cast<int>(ax) + 1; i < x.ndim(); ++i) inner *= x.shape()[i];
    const int64_t outer = x.numel() / (n * inner);
    const T* in = x.data<T>();
    T* o = out.data<T>();
    // Rows (blocks) are independent: chunks of them run in parallel.
    const int64_t per_chunk = std::max<int64_t>(1, detail::kElementwiseChunk / (n * inner));
    detail::ParallelRange(outer, per_chunk, [&](int64_t begin, int64_t end) {
      std::vector<T> m, s;
      for (int64_t i = begin; i < end; ++i) {
        if (inner == 1) {
          SoftmaxRow<T, kLog>(in + i * n, o + i * n, n);
        } else {
          SoftmaxColumns<T, kLog>(in + i * n * inner, o + i * n * inner, n, inner, m, s);
        }
      }
    });
    return std::move(out).Publish();
  });
}

// Runs row_fn(T* out, const T* in, int64_t n) over the rows of the normalized dims (x has
// element type T): moves `axes` last when they are not already the trailing dims, and back
// afterwards. Rows are independent, so chunks of them run in parallel.
template <typename T, typename RowFn>
Tensor NormalizeRows(const Tensor& x, const std::vector<int64_t>& axes, const RowFn& row_fn) {
  const int64_t ndim = x.ndim();
  bool trailing = true;
  for (size_t i = 0; i < axes.size(); ++i) {
    trailing = trailing && axes[i] == ndim - static_cast<int64_t>(axes.size() - i);
  }
  if (!trailing) {
    std::vector<int64_t> perm;
    for (int64_t i = 0; i < ndim; ++i) {
      if (std::find(axes.begin(), axes.end(), i) == axes.end()) perm.push_back(i);
    }
    std::vector<int64_t> moved;
    for (size_t i = 0; i < axes.size(); ++i) {
      moved.push_back(static_cast<int64_t>(perm.size() + i));
    }
    perm.insert(perm.end(), axes.begin(), axes.end());
    std::vector<int64_t> inverse(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<int64_t>(i);
    return PermuteDims(NormalizeRows<T>(PermuteDims(x, perm), moved, row_fn), inverse);
  }
  int64_t n = 1;
  for (int64_t a : axes) n *= x.shape()[a];
  TensorBuilder out(x.dtype(), x.shape());
  if (out.numel() == 0 || n == 0) return std::move(out).Publish();
  const T* in = x.data<T>();
  T* o = out.data<T>();
  const int64_t rows = x.numel() / n;
  const int64_t per_chunk = std::max<int64_t>(1, detail::kElementwiseChunk / n);
  detail::ParallelRange(rows, per_chunk, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) row_fn(o + r * n, in + r * n, n);
  });
  return std::move(out).Publish();
}

// Checks a parameter (weight, gamma, beta) against x's dims at `axes`.
void CheckParam(const char* op, const char* what, const Tensor& x, const Tensor& param,
                const std::vector<int64_t>& axes) {
  detail::CheckSameDType(op, x, param);
  Shape expected;
  for (int64_t a : axes) expected.push_back(x.shape()[a]);
  if (param.shape() != expected) {
    detail::ThrowError(std::string(op) + ": " + what + " shape " + ShapeToString(param.shape()) +
                       " does not match " + ShapeToString(expected) + ", the dims of " +
                       ShapeToString(x.shape()) + " at axes " + ShapeToString(axes));
  }
}

void CheckFloat(const char* op, DataType dtype) {
  if (!dtype.is_float() || detail::KindOf(dtype) == detail::ElemKind::kStorageOnly) {
    detail::ThrowUnsupportedDType(op, dtype);
  }
}

}  // namespace

Tensor Softmax(const Tensor& x, int64_t axis) { return SoftmaxImpl<false>("nn.softmax", x, axis); }

Tensor LogSoftmax(const Tensor& x, int64_t axis) {
  return SoftmaxImpl<true>("nn.log_softmax", x, axis);
}

Tensor RmsNorm(const Tensor& x_in, const Tensor& weight_in, const std::vector<int64_t>& axes,
               double epsilon) {
  const char* name = "nn.rms_norm";
  CheckFloat(name, x_in.dtype());
  const std::vector<int64_t> ax = detail::NormalizeAxes(name, axes, x_in.shape());
  CheckParam(name, "weight", x_in, weight_in, ax);
  const Tensor x = detail::WidenHalf(x_in);
  const Tensor weight = detail::WidenHalf(weight_in);
  const Tensor out = detail::DispatchFloat(x.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* w = weight.data<T>();
    const T eps = static_cast<T>(epsilon);
    return NormalizeRows<T>(x, ax, [&](T* o, const T* in, int64_t n) {
      const T ss = detail::LaneSum(in, n, [](T v) { return v * v; });
      const T r = T(1) / std::sqrt(ss / static_cast<T>(n) + eps);
      for (int64_t i = 0; i < n; ++i) o[i] = r * in[i] * w[i];
    });
  });
  return detail::NarrowTo(out, x_in.dtype());
}

Tensor LayerNorm(const Tensor& x_in, const Tensor& gamma_in, const Tensor& beta_in,
                 const std::vector<int64_t>& axes, double epsilon, bool center, bool scale) {
  const char* name = "nn.layer_norm";
  CheckFloat(name, x_in.dtype());
  const std::vector<int64_t> ax = detail::NormalizeAxes(name, axes, x_in.shape());
  CheckParam(name, "gamma", x_in, gamma_in, ax);
  CheckParam(name, "beta", x_in, beta_in, ax);
  const Tensor x = detail::WidenHalf(x_in);
  const Tensor gamma = detail::WidenHalf(gamma_in);
  const Tensor beta = detail::WidenHalf(beta_in);
  const Tensor out = detail::DispatchFloat(x.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* g = gamma.data<T>();
    const T* b = beta.data<T>();
    const T eps = static_cast<T>(epsilon);
    return NormalizeRows<T>(x, ax, [&](T* o, const T* in, int64_t n) {
      const T count = static_cast<T>(n);
      const T mean = detail::RowSum(in, n) / count;
      const T var = detail::LaneSum(in, n, [mean](T v) { return (v - mean) * (v - mean); }) / count;
      const T r = T(1) / std::sqrt(var + eps);
      for (int64_t i = 0; i < n; ++i) {
        T v = (in[i] - mean) * r;
        if (scale) v = v * g[i];
        if (center) v = v + b[i];
        o[i] = v;
      }
    });
  });
  return detail::NarrowTo(out, x_in.dtype());
}

}  // namespace pipesplit::runtime
