// Reductions: sum, mean, max, min, prod, argmax, argmin.
#include "pipesplit/runtime/kernels/reduce.h"

#include <algorithm>
#include <type_traits>

#include "pipesplit/runtime/kernels/manipulate.h"
#include "src/runtime/kernels/kernel_util.h"
#include "src/runtime/kernels/parallel.h"
#include "src/runtime/kernels/reduce_util.h"

namespace pipesplit::runtime {

namespace detail {

ReduceLayout MakeReduceLayout(const Tensor& x, const std::vector<int64_t>& axes) {
  ReduceLayout layout;
  layout.source = x;
  std::vector<bool> reduced(x.ndim(), false);
  for (int64_t a : axes) reduced[a] = true;
  // Groups of neighbouring dims of one class, size-1 dims skipped.
  std::vector<std::pair<bool, int64_t>> groups;
  for (int i = 0; i < x.ndim(); ++i) {
    const int64_t d = x.shape()[i];
    if (d == 1) continue;
    if (!groups.empty() && groups.back().first == reduced[i]) {
      groups.back().second *= d;
    } else {
      groups.emplace_back(reduced[i], d);
    }
  }
  const auto reduced_groups =
      std::count_if(groups.begin(), groups.end(), [](const auto& g) { return g.first; });
  if (reduced_groups <= 1) {
    bool seen = false;
    for (const auto& [is_reduced, extent] : groups) {
      if (is_reduced) {
        layout.reduce = extent;
        seen = true;
      } else if (seen) {
        layout.inner *= extent;
      } else {
        layout.outer *= extent;
      }
    }
    return layout;
  }
  std::vector<int64_t> perm;
  for (int i = 0; i < x.ndim(); ++i) {
    if (!reduced[i]) {
      perm.push_back(i);
      layout.outer *= x.shape()[i];
    }
  }
  for (int64_t a : axes) {
    perm.push_back(a);
    layout.reduce *= x.shape()[a];
  }
  layout.source = PermuteDims(x, perm);
  return layout;
}

Shape ReducedShape(const Shape& shape, const std::vector<int64_t>& axes, bool keepdims) {
  Shape out;
  for (size_t i = 0; i < shape.size(); ++i) {
    const bool r = std::find(axes.begin(), axes.end(), static_cast<int64_t>(i)) != axes.end();
    if (!r) {
      out.push_back(shape[i]);
    } else if (keepdims) {
      out.push_back(1);
    }
  }
  return out;
}

}  // namespace detail

namespace {

using detail::ReduceLayout;

enum class Reduction { kSum, kMean, kMax, kMin, kProd };

template <Reduction R, typename T>
inline T Combine(T acc, T v) {
  if constexpr (std::is_floating_point_v<T>) {
    if constexpr (R == Reduction::kMax) return acc != acc ? acc : (v != v || v > acc ? v : acc);
    if constexpr (R == Reduction::kMin) return acc != acc ? acc : (v != v || v < acc ? v : acc);
    if constexpr (R == Reduction::kProd) return acc * v;
    if constexpr (R == Reduction::kSum || R == Reduction::kMean) return acc + v;
  } else {
    if constexpr (R == Reduction::kMax) return v > acc ? v : acc;
    if constexpr (R == Reduction::kMin) return v < acc ? v : acc;
    if constexpr (R == Reduction::kProd) return detail::WrapMul(acc, v);
    if constexpr (R == Reduction::kSum || R == Reduction::kMean) return detail::WrapAdd(acc, v);
  }
}

// Reduces one contiguous row of n >= 1 elements in a fixed order; the first element seeds
// max/min.
template <Reduction R, typename T>
T ReduceRow(const T* p, int64_t n) {
  if constexpr ((R == Reduction::kSum || R == Reduction::kMean) && std::is_floating_point_v<T>) {
    return detail::RowSum(p, n);
  } else {
    constexpr int kWidth = detail::kLanes<T>;
    T seed = T(0);
    if constexpr (R == Reduction::kProd) seed = T(1);
    if constexpr (R == Reduction::kMax || R == Reduction::kMin) seed = p[0];
    T acc[kWidth];
    for (int l = 0; l < kWidth; ++l) acc[l] = seed;
    int64_t i = 0;
    for (; i + kWidth <= n; i += kWidth) {
      for (int l = 0; l < kWidth; ++l) acc[l] = Combine<R>(acc[l], p[i + l]);
    }
    for (int w = kWidth / 2; w >= 1; w /= 2) {
      for (int l = 0; l < w; ++l) acc[l] = Combine<R>(acc[l], acc[l + w]);
    }
    T s = acc[0];
    for (; i < n; ++i) s = Combine<R>(s, p[i]);
    return s;
  }
}

// Fills out[outer * inner] from a [outer, n, inner] source.
template <Reduction R, typename T>
void ReduceLayoutInto(const ReduceLayout& layout, const T* in, T* o, int64_t out_numel) {
  const int64_t n = layout.reduce;
  const int64_t inner = layout.inner;
  if (n == 0) {
    const T identity = R == Reduction::kProd ? T(1) : T(0);
    for (int64_t i = 0; i < out_numel; ++i) o[i] = identity;
  } else {
    // Each output depends on its own row or column only, so chunks of outputs run in
    // parallel without changing any value.
    const int64_t per_chunk = std::max<int64_t>(1, detail::kElementwiseChunk / (n * inner));
    detail::ParallelRange(layout.outer, per_chunk, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        if (inner == 1) {
          o[i] = ReduceRow<R>(in + i * n, n);
          continue;
        }
        // Column reduction: accumulate whole rows of `inner` outputs, in order.
        T* acc = o + i * inner;
        const T* block = in + i * n * inner;
        for (int64_t j = 0; j < inner; ++j) acc[j] = block[j];
        for (int64_t k = 1; k < n; ++k) {
          const T* row = block + k * inner;
          for (int64_t j = 0; j < inner; ++j) acc[j] = Combine<R>(acc[j], row[j]);
        }
      }
    });
  }
  if constexpr (R == Reduction::kMean) {
    if constexpr (std::is_floating_point_v<T>) {
      const T count = static_cast<T>(n);
      for (int64_t i = 0; i < out_numel; ++i) o[i] = o[i] / count;
    } else {
      for (int64_t i = 0; i < out_numel && n > 0; ++i) {
        o[i] = static_cast<T>(static_cast<int64_t>(o[i]) / n);
      }
    }
  }
}

const char* Name(Reduction r) {
  switch (r) {
    case Reduction::kSum:
      return "sum";
    case Reduction::kMean:
      return "mean";
    case Reduction::kMax:
      return "max";
    case Reduction::kMin:
      return "min";
    case Reduction::kProd:
      return "prod";
  }
  return "reduce";
}

Tensor Reduce(Reduction r, const Tensor& x, const Axes& axes, bool keepdims) {
  const char* name = Name(r);
  if (detail::IsHalfKind(x.dtype())) {
    return detail::NarrowTo(Reduce(r, detail::WidenHalf(x), axes, keepdims), x.dtype());
  }
  const std::vector<int64_t> ax = detail::NormalizeAxes(name, axes, x.shape());
  const Shape out_shape = detail::ReducedShape(x.shape(), ax, keepdims);
  return detail::DispatchArith(x.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    TensorBuilder out(x.dtype(), out_shape);
    const ReduceLayout layout = detail::MakeReduceLayout(x, ax);
    if ((r == Reduction::kMax || r == Reduction::kMin) && layout.reduce == 0 && out.numel() > 0) {
      detail::ThrowError(std::string(name) + ": cannot reduce an empty axis of shape " +
                         ShapeToString(x.shape()));
    }
    const T* in = layout.source.template data<T>();
    T* o = out.template data<T>();
    switch (r) {
      case Reduction::kSum:
        ReduceLayoutInto<Reduction::kSum>(layout, in, o, out.numel());
        break;
      case Reduction::kMean:
        ReduceLayoutInto<Reduction::kMean>(layout, in, o, out.numel());
        break;
      case Reduction::kMax:
        ReduceLayoutInto<Reduction::kMax>(layout, in, o, out.numel());
        break;
      case Reduction::kMin:
        ReduceLayoutInto<Reduction::kMin>(layout, in, o, out.numel());
        break;
      case Reduction::kProd:
        ReduceLayoutInto<Reduction::kProd>(layout, in, o, out.numel());
        break;
    }
    return std::move(out).Publish();
  });
}

template <bool kMax>
Tensor ArgReduce(const char* name, const Tensor& x_in, std::optional<int64_t> axis, bool keepdims) {
  const Tensor x = detail::WidenHalf(axis ? x_in : Flatten(x_in));
  const int64_t ax = detail::NormalizeAxis(name, axis.value_or(0), x.ndim(), x.shape());
  Shape out_shape;
  if (axis) {
    out_shape = detail::ReducedShape(x.shape(), {ax}, keepdims);
  } else if (keepdims) {
    out_shape = Shape(x_in.shape().size(), 1);
  }
  return detail::DispatchArith(x.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    TensorBuilder out(DataType::Int(64), out_shape);
    const ReduceLayout layout = detail::MakeReduceLayout(x, {ax});
    const int64_t n = layout.reduce;
    if (n == 0 && out.numel() > 0) {
      detail::ThrowError(std::string(name) + ": cannot reduce an empty axis of shape " +
                         ShapeToString(x_in.shape()));
    }
    const T* in = layout.source.template data<T>();
    int64_t* o = out.template data<int64_t>();
    for (int64_t i = 0; i < layout.outer; ++i) {
      for (int64_t j = 0; j < layout.inner; ++j) {
        const T* p = in + i * n * layout.inner + j;
        int64_t best = 0;
        T best_v = p[0];
        for (int64_t k = 1; k < n && !(best_v != best_v); ++k) {
          const T v = p[k * layout.inner];
          if (v != v || (kMax ? v > best_v : v < best_v)) {
            best = k;
            best_v = v;
          }
        }
        o[i * layout.inner + j] = best;
      }
    }
    return std::move(out).Publish();
  });
}

}  // namespace

Tensor Sum(const Tensor& x, const Axes& axes, bool keepdims) {
  return Reduce(Reduction::kSum, x, axes, keepdims);
}

Tensor Mean(const Tensor& x, const Axes& axes, bool keepdims) {
  return Reduce(Reduction::kMean, x, axes, keepdims);
}

Tensor Max(const Tensor& x, const Axes& axes, bool keepdims) {
  return Reduce(Reduction::kMax, x, axes, keepdims);
}

Tensor Min(const Tensor& x, const Axes& axes, bool keepdims) {
  return Reduce(Reduction::kMin, x, axes, keepdims);
}

Tensor Prod(const Tensor& x, const Axes& axes, bool keepdims) {
  return Reduce(Reduction::kProd, x, axes, keepdims);
}

Tensor Argmax(const Tensor& x, std::optional<int64_t> axis, bool keepdims) {
  return ArgReduce<true>("argmax", x, axis, keepdims);
}

Tensor Argmin(const Tensor& x, std::optional<int64_t> axis, bool keepdims) {
  return ArgReduce<false>("argmin", x, axis, keepdims);
}

}  // namespace pipesplit::runtime
