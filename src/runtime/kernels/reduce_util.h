// Helpers shared by the reductions and the normalizing nn kernels: the (outer, reduce, inner)
// layout of a reduction over sorted axes, and fixed-order multi-lane row sums that the
// compiler vectorizes without changing results from run to run.
#ifndef PIPESPLIT_SRC_RUNTIME_KERNELS_REDUCE_UTIL_H_
#define PIPESPLIT_SRC_RUNTIME_KERNELS_REDUCE_UTIL_H_

#include <cstdint>
#include <vector>

#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::runtime::detail {

// x viewed as [outer, reduce, inner] with the reduced elements of one output in the middle.
// When the reduced axes are not one contiguous block, `source` is a copy of x with the
// reduced axes moved last (then inner == 1).
struct ReduceLayout {
  Tensor source;
  int64_t outer = 1;
  int64_t reduce = 1;
  int64_t inner = 1;
};

// `axes` sorted and distinct (from NormalizeAxes).
ReduceLayout MakeReduceLayout(const Tensor& x, const std::vector<int64_t>& axes);

// x's shape with `axes` removed, or set to 1 with keepdims.
Shape ReducedShape(const Shape& shape, const std::vector<int64_t>& axes, bool keepdims);

// Number of independent accumulators of the row kernels.
template <typename T>
inline constexpr int kLanes = sizeof(T) == 4 ? 16 : 8;

// sum(f(p[i])) over a contiguous row in a fixed order: kLanes interleaved partial sums,
// combined pairwise, then the tail.
template <typename T, typename F>
inline T LaneSum(const T* p, int64_t n, F f) {
  constexpr int L = kLanes<T>;
  T acc[L] = {};
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    for (int l = 0; l < L; ++l) acc[l] += f(p[i + l]);
  }
  for (int w = L / 2; w >= 1; w /= 2) {
    for (int l = 0; l < w; ++l) acc[l] += acc[l + w];
  }
  T s = acc[0];
  for (; i < n; ++i) s += f(p[i]);
  return s;
}

template <typename T>
inline T RowSum(const T* p, int64_t n) {
  return LaneSum(p, n, [](T v) { return v; });
}

}  // namespace pipesplit::runtime::detail

#endif  // PIPESPLIT_SRC_RUNTIME_KERNELS_REDUCE_UTIL_H_
