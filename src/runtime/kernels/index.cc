// Indexing kernels that move blocks of elements: concat, split, strided_slice, take.
#include <algorithm>
#include <cstring>
#include <limits>

#include "pipesplit/runtime/kernels/manipulate.h"
#include "src/runtime/kernels/kernel_util.h"

namespace pipesplit::runtime {

namespace {

int64_t Product(const Shape& shape, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= shape[i];
  return p;
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Copies x[..., left:left+size, ...] (along `axis`) into a new tensor.
Tensor SliceAxis(const Tensor& x, size_t axis, int64_t left, int64_t size) {
  Shape shape = x.shape();
  shape[axis] = size;
  TensorBuilder out(x.dtype(), shape);
  const int64_t outer = Product(x.shape(), 0, axis);
  const int64_t inner = Product(x.shape(), axis + 1, x.shape().size()) * x.element_bytes();
  const int64_t dim = x.shape()[axis];
  const auto* in = static_cast<const unsigned char*>(x.raw_data());
  auto* o = static_cast<unsigned char*>(out.raw_data());
  const size_t chunk = static_cast<size_t>(size * inner);
  if (chunk > 0) {
    for (int64_t i = 0; i < outer; ++i) {
      std::memcpy(o + i * size * inner, in + (i * dim + left) * inner, chunk);
    }
  }
  return std::move(out).Publish();
}

}  // namespace

Tensor Concat(std::span<const Tensor> tensors, std::optional<int64_t> axis) {
  if (tensors.empty()) detail::ThrowError("concat: no tensors to join");
  if (!axis) {
    std::vector<Tensor> flat;
    for (const Tensor& t : tensors) flat.push_back(Flatten(t));
    return Concat(flat, 0);
  }
  const Tensor& first = tensors[0];
  const int64_t ndim = first.ndim();
  const size_t ax =
      static_cast<size_t>(detail::NormalizeAxis("concat", *axis, ndim, first.shape()));
  CheckStorableDType(first.dtype(), "concat");
  Shape out_shape = first.shape();
  out_shape[ax] = 0;
  for (const Tensor& t : tensors) {
    detail::CheckSameDType("concat", first, t);
    bool ok = t.ndim() == ndim;
    for (size_t i = 0; ok && i < static_cast<size_t>(ndim); ++i) {
      ok = i == ax || t.shape()[i] == first.shape()[i];
    }
    if (!ok) {
      detail::ThrowError("concat: shapes " + ShapeToString(first.shape()) + " and " +
                         ShapeToString(t.shape()) + " cannot be joined along axis " +
                         std::to_string(*axis));
    }
    out_shape[ax] += t.shape()[ax];
  }
  if (tensors.size() == 1) return first;
  TensorBuilder out(first.dtype(), out_shape);
  const int64_t outer = Product(out_shape, 0, ax);
  const int64_t inner = Product(out_shape, ax + 1, out_shape.size()) * first.element_bytes();
  auto* o = static_cast<unsigned char*>(out.raw_data());
  int64_t written = 0;
  for (int64_t i = 0; i < outer; ++i) {
    for (const Tensor& t : tensors) {
      const int64_t chunk = t.shape()[ax] * inner;
      if (chunk == 0) continue;
      std::memcpy(o + written, static_cast<const unsigned char*>(t.raw_data()) + i * chunk,
                  static_cast<size_t>(chunk));
      written += chunk;
    }
  }
  return std::move(out).Publish();
}

std::vector<Tensor> Split(const Tensor& x, const std::variant<int64_t, std::vector<int64_t>>& split,
                          int64_t axis) {
  const size_t ax = static_cast<size_t>(detail::NormalizeAxis("split", axis, x.ndim(), x.shape()));
  CheckStorableDType(x.dtype(), "split");
  const int64_t dim = x.shape()[ax];
  std::vector<int64_t> indices;
  if (const int64_t* sections = std::get_if<int64_t>(&split)) {
    if (*sections <= 0) {
      detail::ThrowError("split: the number of sections must be positive, not " +
                         std::to_string(*sections));
    }
    if (*sections == 1) return {x};
    const int64_t size = CeilDiv(dim, *sections);
    for (int64_t i = 1; i < *sections; ++i) indices.push_back(size * i);
  } else {
    indices = std::get<std::vector<int64_t>>(split);
    if (indices.empty()) return {x};
  }
  std::vector<Tensor> pieces;
  int64_t left = 0;
  for (size_t i = 0; i <= indices.size(); ++i) {
    const int64_t right = i < indices.size() ? std::clamp<int64_t>(indices[i], 0, dim) : dim;
    const int64_t size = std::max<int64_t>(right - left, 0);
    pieces.push_back(SliceAxis(x, ax, size > 0 ? left : 0, size));
    left = right;
  }
  return pieces;
}

Tensor StridedSlice(const Tensor& x, std::span<const int64_t> axes, std::span<const int64_t> begin,
                    std::span<const int64_t> end,
                    const std::optional<std::vector<int64_t>>& strides) {
  if (begin.size() != axes.size() || end.size() != axes.size() ||
      (strides && strides->size() != axes.size())) {
    detail::ThrowError(
        "strided_slice: axes, begin, end and strides must have the same length, "
        "got " +
        std::to_string(axes.size()) + ", " + std::to_string(begin.size()) + ", " +
        std::to_string(end.size()) + " and " +
        std::to_string(strides ? strides->size() : axes.size()));
  }
  const std::vector<int64_t> axis_list(axes.begin(), axes.end());
  detail::NormalizeAxes("strided_slice", axis_list, x.shape());  // range and repeat checks
  CheckStorableDType(x.dtype(), "strided_slice");
  const size_t ndim = x.shape().size();
  Shape start(ndim, 0), step(ndim, 1), out_shape = x.shape();
  for (size_t i = 0; i < axes.size(); ++i) {
    const size_t a =
        static_cast<size_t>(axes[i] < 0 ? axes[i] + static_cast<int64_t>(ndim) : axes[i]);
    const int64_t s = strides ? (*strides)[i] : 1;
    if (s == 0)
      detail::ThrowError("strided_slice: stride of axis " + std::to_string(axes[i]) + " is 0");
    const int64_t dim = x.shape()[a];
    const int64_t lo = s < 0 ? -1 : 0;
    const int64_t hi = s < 0 ? dim - 1 : dim;
    auto canonical = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + dim : v, lo, hi); };
    const int64_t b = canonical(begin[i]);
    const int64_t e = canonical(end[i]);
    // |s| may be huge; avoid overflow in the rounding-up division.
    const int64_t extent = s > 0 ? e - b : b - e;
    const uint64_t mag = s > 0 ? static_cast<uint64_t>(s) : 0 - static_cast<uint64_t>(s);
    const int64_t len =
        extent <= 0 ? 0 : static_cast<int64_t>((static_cast<uint64_t>(extent) - 1) / mag + 1);
    start[a] = b;
    step[a] = s;
    out_shape[a] = len;
  }
  if (out_shape == x.shape() &&
      std::all_of(step.begin(), step.end(), [](int64_t v) { return v == 1; })) {
    return x;
  }
  TensorBuilder out(x.dtype(), out_shape);
  if (out.numel() == 0) return std::move(out).Publish();
  const Shape in_strides = x.strides();
  int64_t base = 0;
  for (size_t d = 0; d < ndim; ++d) base += start[d] * in_strides[d];
  detail::DispatchBySize(x.dtype(), [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U* in = x.data<U>();
    U* o = out.data<U>();
    if (ndim == 0) {
      o[0] = in[0];
      return;
    }
    const int64_t inner = out_shape[ndim - 1];
    const int64_t inner_step = step[ndim - 1] * in_strides[ndim - 1];
    const int64_t rows = out.numel() / inner;
    std::vector<int64_t> index(ndim - 1, 0);
    int64_t offset = base;
    for (int64_t row = 0; row < rows; ++row) {
      U* dst = o + row * inner;
      if (inner_step == 1) {
        std::memcpy(dst, in + offset, static_cast<size_t>(inner) * sizeof(U));
      } else {
        for (int64_t j = 0; j < inner; ++j) dst[j] = in[offset + j * inner_step];
      }
      for (size_t d = ndim - 1; d-- > 0;) {
        offset += step[d] * in_strides[d];
        if (++index[d] < out_shape[d]) break;
        offset -= step[d] * in_strides[d] * out_shape[d];
        index[d] = 0;
      }
    }
  });
  return std::move(out).Publish();
}

TakeMode ParseTakeMode(std::string_view mode) {
  if (mode == "fast") return TakeMode::kFast;
  if (mode == "clip") return TakeMode::kClip;
  if (mode == "wrap") return TakeMode::kWrap;
  if (mode == "nan") return TakeMode::kNan;
  detail::ThrowError("take: unknown mode '" + std::string(mode) + "'");
}

Tensor Take(const Tensor& x_in, const Tensor& indices, std::optional<int64_t> axis, TakeMode mode) {
  if (!indices.dtype().is_integer()) {
    detail::ThrowError("take: indices must have an integer dtype, not " +
                       indices.dtype().ToString());
  }
  const Tensor x = axis ? x_in : Flatten(x_in);
  const size_t ax =
      static_cast<size_t>(detail::NormalizeAxis("take", axis.value_or(0), x.ndim(), x.shape()));
  CheckStorableDType(x.dtype(), "take");
  if (mode == TakeMode::kNan && !x.dtype().is_float()) {
    detail::ThrowError("take: mode nan needs a float dtype, not " + x.dtype().ToString());
  }
  const int64_t dim = x.shape()[ax];
  const int64_t count = indices.numel();
  // Positions along the axis; -1 marks a NaN row (mode nan).
  std::vector<int64_t> pos(static_cast<size_t>(count));
  detail::DispatchArith(indices.dtype(), "take", [&](auto tag) {
    using I = typename decltype(tag)::type;
    const I* idx = indices.data<I>();
    for (int64_t j = 0; j < count; ++j) {
      const int64_t raw = detail::ConvertValue<int64_t>(idx[j]);
      // uint64 values above int64 max wrap negative above; treat them as out of range.
      const bool huge = std::is_unsigned_v<I> && sizeof(I) == 8 && raw < 0;
      const bool in_range = !huge && raw >= 0 && raw < dim;
      if (in_range) {
        pos[j] = raw;
        continue;
      }
      switch (mode) {
        case TakeMode::kFast: {
          const std::string shown =
              huge ? std::to_string(static_cast<uint64_t>(raw)) : std::to_string(raw);
          detail::ThrowError("take: index " + shown + " is out of range for axis " +
                             std::to_string(ax) + " with size " + std::to_string(dim));
        }
        case TakeMode::kNan:
          pos[j] = -1;
          break;
        case TakeMode::kClip:
        case TakeMode::kWrap:
          if (dim == 0) {
            detail::ThrowError("take: cannot take from axis " + std::to_string(ax) +
                               " with size 0");
          }
          if (mode == TakeMode::kClip) {
            pos[j] = huge || raw >= dim ? dim - 1 : 0;
          } else if (huge) {
            pos[j] = static_cast<int64_t>(static_cast<uint64_t>(raw) % static_cast<uint64_t>(dim));
          } else {
            pos[j] = ((raw % dim) + dim) % dim;
          }
          break;
      }
    }
  });
  Shape out_shape(x.shape().begin(), x.shape().begin() + static_cast<int64_t>(ax));
  out_shape.insert(out_shape.end(), indices.shape().begin(), indices.shape().end());
  out_shape.insert(out_shape.end(), x.shape().begin() + static_cast<int64_t>(ax) + 1,
                   x.shape().end());
  TensorBuilder out(x.dtype(), out_shape);
  const int64_t outer = Product(x.shape(), 0, ax);
  const int64_t inner = Product(x.shape(), ax + 1, x.shape().size());
  const int64_t elem = x.element_bytes();
  const auto* in = static_cast<const unsigned char*>(x.raw_data());
  auto* o = static_cast<unsigned char*>(out.raw_data());
  const Tensor nan = mode == TakeMode::kNan
                         ? MakeScalar(x.dtype(), std::numeric_limits<double>::quiet_NaN())
                         : Tensor();
  for (int64_t i = 0; i < outer; ++i) {
    for (int64_t j = 0; j < count; ++j) {
      unsigned char* dst = o + ((i * count + j) * inner) * elem;
      if (pos[j] >= 0) {
        std::memcpy(dst, in + ((i * dim + pos[j]) * inner) * elem,
                    static_cast<size_t>(inner * elem));
      } else {
        for (int64_t k = 0; k < inner; ++k) std::memcpy(dst + k * elem, nan.raw_data(), elem);
      }
    }
  }
  return std::move(out).Publish();
}

}  // namespace pipesplit::runtime
