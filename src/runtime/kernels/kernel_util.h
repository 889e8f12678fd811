// Shared machinery of the reference kernels: element types and dtype dispatch, error
// messages, axis normalization, and the broadcasting loop that every elementwise kernel
// runs on (collapsed dims, contiguous and scalar inner loops, no per-element indirection).
#ifndef PIPESPLIT_SRC_RUNTIME_KERNELS_KERNEL_UTIL_H_
#define PIPESPLIT_SRC_RUNTIME_KERNELS_KERNEL_UTIL_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "pipesplit/runtime/tensor/tensor.h"
#include "pipesplit/support/check.h"
#include "pipesplit/support/dtype.h"
#include "src/runtime/kernels/parallel.h"
#include "src/runtime/tensor/dtype_dispatch.h"

namespace pipesplit::runtime::detail {
inline DataType Float32() { return DataType::Float(32); }
inline DataType BoolType() { return DataType::Bool(); }

// Converts to float32 when `t` is float16/bfloat16, otherwise returns it unchanged.
Tensor WidenHalf(const Tensor& t);
// Rounds a float32 result back to `dtype` when that is float16/bfloat16.
Tensor NarrowTo(const Tensor& t, DataType dtype);

// "op: dtypes float32 and int32 do not match" unless equal.
void CheckSameDType(const char* op, const Tensor& a, const Tensor& b);

// Normalizes `axis` (negative counts from the end) against `ndim` dims; throws
// "<op>: axis 3 is out of range for shape [2, 3]".
int64_t NormalizeAxis(const char* op, int64_t axis, int64_t ndim, const Shape& shape);
// Normalizes a list of distinct axes (nullopt = all, in order); sorted ascending.
std::vector<int64_t> NormalizeAxes(const char* op, const std::optional<std::vector<int64_t>>& axes,
                                   const Shape& shape);

// Numpy broadcasting of two shapes; throws "<op>: shapes [2, 3] and [4] cannot be broadcast".
Shape BroadcastShapes(const char* op, const Shape& a, const Shape& b);

// The iteration space of an N-operand elementwise kernel over an output shape. Output dims
// of size 1 are dropped and neighbouring dims that every operand either reads contiguously or
// broadcasts alike are merged, so the inner dim is as long as possible and each operand's
// inner stride is 0 (broadcast) or 1 (contiguous).
template <size_t N>
class BroadcastLoop {
 public:
  BroadcastLoop(const Shape& out, const std::array<const Shape*, N>& inputs);

  int64_t numel() const { return numel_; }
  int64_t inner() const { return dims_.back(); }
  // Inner stride of operand i: 0 or 1.
  int64_t inner_stride(size_t i) const { return strides_[i].back(); }

  int64_t rows() const { return numel_ == 0 ? 0 : numel_ / dims_.back(); }

  // Calls body(out_offset, in_offsets) once per inner row in [row_begin, row_end), in
  // row-major order; each row covers inner() output elements starting at out_offset.
  template <typename Body>
  void ForEachRow(int64_t row_begin, int64_t row_end, Body&& body) const {
    if (row_begin >= row_end) return;
    const size_t outer_dims = dims_.size() - 1;
    const int64_t inner = dims_.back();
    std::vector<int64_t> index(outer_dims, 0);
    std::array<int64_t, N> offsets{};
    for (size_t d = outer_dims, rest = static_cast<size_t>(row_begin); d-- > 0;) {
      index[d] = static_cast<int64_t>(rest % static_cast<size_t>(dims_[d]));
      rest /= static_cast<size_t>(dims_[d]);
      for (size_t i = 0; i < N; ++i) offsets[i] += index[d] * strides_[i][d];
    }
    for (int64_t row = row_begin; row < row_end; ++row) {
      body(row * inner, offsets);
      for (size_t d = outer_dims; d-- > 0;) {
        for (size_t i = 0; i < N; ++i) offsets[i] += strides_[i][d];
        if (++index[d] < dims_[d]) break;
        for (size_t i = 0; i < N; ++i) offsets[i] -= strides_[i][d] * dims_[d];
        index[d] = 0;
      }
    }
  }
  template <typename Body>
  void ForEachRow(Body&& body) const {
    ForEachRow(0, rows(), std::forward<Body>(body));
  }

 private:
  std::vector<int64_t> dims_;
  std::array<std::vector<int64_t>, N> strides_;
  int64_t numel_ = 0;
};

template <size_t N>
BroadcastLoop<N>::BroadcastLoop(const Shape& out, const std::array<const Shape*, N>& inputs) {
  numel_ = ShapeNumel(out);
  const int64_t out_ndim = static_cast<int64_t>(out.size());
  // Per output dim (non-1 only): whether operand i broadcasts it, and its element stride.
  std::vector<int64_t> dims;
  std::array<std::vector<int64_t>, N> strides;
  std::array<std::vector<bool>, N> broadcast;
  std::array<int64_t, N> running{};
  running.fill(1);
  std::vector<int64_t> rev_dims;
  std::array<std::vector<int64_t>, N> rev_strides;
  std::array<std::vector<bool>, N> rev_bcast;
  for (int64_t d = out_ndim - 1; d >= 0; --d) {
    const int64_t extent = out[d];
    std::array<int64_t, N> in_dim{};
    for (size_t i = 0; i < N; ++i) {
      const Shape& s = *inputs[i];
      const int64_t k = d - (out_ndim - static_cast<int64_t>(s.size()));
      in_dim[i] = k >= 0 ? s[k] : 1;
    }
    if (extent != 1) {
      rev_dims.push_back(extent);
      for (size_t i = 0; i < N; ++i) {
        const bool b = in_dim[i] == 1;
        rev_bcast[i].push_back(b);
        rev_strides[i].push_back(b ? 0 : running[i]);
      }
    }
    for (size_t i = 0; i < N; ++i) running[i] *= in_dim[i];
  }
  // Merge from the innermost dim outwards.
  for (size_t r = 0; r < rev_dims.size(); ++r) {
    bool merge = !dims.empty();
    for (size_t i = 0; i < N && merge; ++i) merge = broadcast[i].back() == rev_bcast[i][r];
    if (merge) {
      dims.back() *= rev_dims[r];
    } else {
      dims.push_back(rev_dims[r]);
      for (size_t i = 0; i < N; ++i) {
        strides[i].push_back(rev_strides[i][r]);
        broadcast[i].push_back(rev_bcast[i][r]);
      }
    }
  }
  if (dims.empty()) {
    dims.push_back(1);
    for (size_t i = 0; i < N; ++i) strides[i].push_back(0);
  }
  // Stored outermost first; inner strides are 0 or 1 by construction.
  dims_.assign(dims.rbegin(), dims.rend());
  for (size_t i = 0; i < N; ++i) strides_[i].assign(strides[i].rbegin(), strides[i].rend());
}

// Runs out[j] = op(a[j], b[j]) over a broadcast loop with the usual fast paths, in
// chunks of about kElementwiseChunk outputs (elementwise: the chunking never changes values).
template <typename TA, typename TB, typename TOut, typename Op>
void RunBinary(const BroadcastLoop<2>& loop, const TA* a, const TB* b, TOut* out, Op op) {
  const int64_t n = loop.inner();
  const int64_t sa = loop.inner_stride(0);
  const int64_t sb = loop.inner_stride(1);
  auto segment = [&](int64_t o, const std::array<int64_t, 2>& off, int64_t j0, int64_t j1) {
    const TA* __restrict pa = a + off[0];
    const TB* __restrict pb = b + off[1];
    TOut* __restrict po = out + o;
    if (sa == 1 && sb == 1) {
      for (int64_t j = j0; j < j1; ++j) po[j] = op(pa[j], pb[j]);
    } else if (sa == 0 && sb == 1) {
      const TA va = *pa;
      for (int64_t j = j0; j < j1; ++j) po[j] = op(va, pb[j]);
    } else if (sa == 1 && sb == 0) {
      const TB vb = *pb;
      for (int64_t j = j0; j < j1; ++j) po[j] = op(pa[j], vb);
    } else {
      const TOut v = op(*pa, *pb);
      for (int64_t j = j0; j < j1; ++j) po[j] = v;
    }
  };
  const int64_t rows = loop.rows();
  if (rows == 1) {
    ParallelRange(n, kElementwiseChunk, [&](int64_t j0, int64_t j1) {
      segment(0, {0, 0}, j0, j1);
    });
  } else {
    const int64_t rows_per_chunk =
        std::max<int64_t>(1, kElementwiseChunk / std::max<int64_t>(n, 1));
    ParallelRange(rows, rows_per_chunk, [&](int64_t r0, int64_t r1) {
      loop.ForEachRow(r0, r1,
                      [&](int64_t o, const std::array<int64_t, 2>& off) { segment(o, off, 0, n); });
    });
  }
}

// Integer arithmetic that wraps instead of overflowing (signed overflow is UB in C++).
}  // namespace pipesplit::runtime::detail

#endif  // PIPESPLIT_SRC_RUNTIME_KERNELS_KERNEL_UTIL_H_
