// Creation kernels (zeros, ones, full, arange) and triangular masks (triu, tril).
#include "pipesplit/runtime/kernels/create.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "pipesplit/runtime/kernels/elementwise.h"
#include "src/runtime/kernels/kernel_util.h"

namespace pipesplit::runtime {

namespace {

// Fills a new tensor with copies of one element's bytes.
Tensor Replicate(const char* op, std::span<const int64_t> shape, const Tensor& element) {
  const Shape out_shape(shape.begin(), shape.end());
  ShapeNumel(out_shape, op);
  TensorBuilder out(element.dtype(), out_shape);
  detail::DispatchBySize(element.dtype(), [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U value = *element.data<U>();
    U* o = out.data<U>();
    for (int64_t i = 0; i < out.numel(); ++i) o[i] = value;
  });
  return std::move(out).Publish();
}

template <bool kUpper>
Tensor Triangle(const char* op, const Tensor& x, int64_t k) {
  if (x.ndim() < 2) {
    detail::ThrowError(std::string(op) + ": needs at least 2 dims, got shape " +
                       ShapeToString(x.shape()));
  }
  CheckStorableDType(x.dtype(), op);
  TensorBuilder out(x.dtype(), x.shape());
  const int64_t rows = x.dim(-2);
  const int64_t cols = x.dim(-1);
  const int64_t batches = rows * cols == 0 ? 0 : x.numel() / (rows * cols);
  const int64_t elem = x.element_bytes();
  // Any k beyond +-(rows + cols) acts the same; clamping keeps r + k from overflowing.
  k = std::clamp<int64_t>(k, -rows - 1, cols + 1);
  const auto* in = static_cast<const unsigned char*>(x.raw_data());
  auto* o = static_cast<unsigned char*>(out.raw_data());
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t row = (b * rows + r) * cols * elem;
      // Kept columns: c - r >= k (upper) or c - r <= k (lower).
      const int64_t edge = std::clamp<int64_t>(kUpper ? r + k : r + k + 1, 0, cols);
      const int64_t keep_from = kUpper ? edge : 0;
      const int64_t keep_to = kUpper ? cols : edge;
      std::memset(o + row, 0, static_cast<size_t>(cols * elem));
      if (keep_to > keep_from) {
        std::memcpy(o + row + keep_from * elem, in + row + keep_from * elem,
                    static_cast<size_t>((keep_to - keep_from) * elem));
      }
    }
  }
  return std::move(out).Publish();
}

}  // namespace

Tensor Zeros(std::span<const int64_t> shape, DataType dtype) {
  const Shape out_shape(shape.begin(), shape.end());
  ShapeNumel(out_shape, "zeros");
  CheckStorableDType(dtype, "zeros");
  TensorBuilder out(dtype, out_shape);
  if (out.nbytes() > 0) std::memset(out.raw_data(), 0, static_cast<size_t>(out.nbytes()));
  return std::move(out).Publish();
}

Tensor Ones(std::span<const int64_t> shape, DataType dtype) { return FullValue(shape, 1.0, dtype); }

Tensor FullValue(std::span<const int64_t> shape, double value, DataType dtype) {
  CheckStorableDType(dtype, "full");
  if (detail::KindOf(dtype) == detail::ElemKind::kStorageOnly) {
    detail::ThrowUnsupportedDType("full", dtype);
  }
  return Replicate("full", shape, MakeScalar(dtype, value));
}

Tensor Full(std::span<const int64_t> shape, const Tensor& fill_value, DataType dtype) {
  if (fill_value.ndim() != 0) {
    detail::ThrowError("full: fill_value must be a scalar, not shape " +
                       ShapeToString(fill_value.shape()));
  }
  const DataType target = dtype.is_void() ? fill_value.dtype() : dtype;
  CheckStorableDType(target, "full");
  return Replicate("full", shape, Astype(fill_value, target));
}

Tensor Arange(double start, double end, double step, DataType dtype) {
  if (step == 0) detail::ThrowError("arange: step must not be 0");
  if (!std::isfinite(start) || !std::isfinite(end) || !std::isfinite(step)) {
    detail::ThrowError("arange: start, end and step must be finite");
  }
  const double count = std::ceil((end - start) / step);
  if (count > 1e15) detail::ThrowError("arange: too many elements");
  const int64_t n = count > 0 ? static_cast<int64_t>(count) : 0;
  CheckStorableDType(dtype, "arange");
  TensorBuilder out(dtype, {n});
  detail::DispatchAll(dtype, "arange", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = out.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      o[i] = detail::ConvertValue<T>(start + static_cast<double>(i) * step);
    }
  });
  return std::move(out).Publish();
}

Tensor Triu(const Tensor& x, int64_t k) { return Triangle<true>("triu", x, k); }

Tensor Tril(const Tensor& x, int64_t k) { return Triangle<false>("tril", x, k); }

}  // namespace pipesplit::runtime
