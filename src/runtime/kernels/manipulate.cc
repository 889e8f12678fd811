// Shape kernels: permute_dims, reshape, expand_dims, squeeze, flatten, broadcast_to.
#include "pipesplit/runtime/kernels/manipulate.h"

#include <algorithm>
#include <cstring>

#include "src/runtime/kernels/kernel_util.h"

namespace pipesplit::runtime {

namespace {

// A permutation with size-1 dims dropped and runs of input-adjacent dims merged.
struct CollapsedPermutation {
  Shape in_shape;            // collapsed input dims, input order
  std::vector<size_t> perm;  // output dim i is collapsed input dim perm[i]
};

CollapsedPermutation Collapse(const Shape& shape, const std::vector<int64_t>& perm) {
  // Drop size-1 dims.
  std::vector<int64_t> new_index(shape.size(), -1);
  Shape kept_shape;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] != 1) {
      new_index[i] = static_cast<int64_t>(kept_shape.size());
      kept_shape.push_back(shape[i]);
    }
  }
  std::vector<int64_t> kept_perm;
  for (int64_t p : perm) {
    if (new_index[p] >= 0) kept_perm.push_back(new_index[p]);
  }
  // Group runs p, p+1, ... in output order.
  std::vector<std::pair<int64_t, int64_t>> groups;  // (first input dim, last input dim)
  for (int64_t p : kept_perm) {
    if (!groups.empty() && groups.back().second + 1 == p) {
      groups.back().second = p;
    } else {
      groups.emplace_back(p, p);
    }
  }
  std::vector<size_t> by_input(groups.size());
  for (size_t i = 0; i < groups.size(); ++i) by_input[i] = i;
  std::sort(by_input.begin(), by_input.end(),
            [&](size_t l, size_t r) { return groups[l].first < groups[r].first; });
  CollapsedPermutation out;
  out.perm.resize(groups.size());
  for (size_t rank = 0; rank < by_input.size(); ++rank) {
    const auto [first, last] = groups[by_input[rank]];
    int64_t extent = 1;
    for (int64_t d = first; d <= last; ++d) extent *= kept_shape[d];
    out.in_shape.push_back(extent);
    out.perm[by_input[rank]] = rank;
  }
  return out;
}

// out[j * rows + i] = in[i * cols + j], in cache-sized tiles.
template <typename U>
void Transpose2D(const U* in, U* out, int64_t rows, int64_t cols) {
  constexpr int64_t kTile = 32;
  for (int64_t i0 = 0; i0 < rows; i0 += kTile) {
    const int64_t i1 = std::min(rows, i0 + kTile);
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      const int64_t j1 = std::min(cols, j0 + kTile);
      for (int64_t j = j0; j < j1; ++j) {
        for (int64_t i = i0; i < i1; ++i) out[j * rows + i] = in[i * cols + j];
      }
    }
  }
}

template <typename U>
void PermuteCopy(const CollapsedPermutation& cp, const U* in, U* out) {
  const size_t n = cp.in_shape.size();
  Shape in_strides(n);
  int64_t running = 1;
  for (size_t i = n; i-- > 0;) {
    in_strides[i] = running;
    running *= cp.in_shape[i];
  }
  Shape out_shape(n), stride_of_out(n);
  for (size_t i = 0; i < n; ++i) {
    out_shape[i] = cp.in_shape[cp.perm[i]];
    stride_of_out[i] = in_strides[cp.perm[i]];
  }
  bool batched_swap = n >= 2 && cp.perm[n - 1] == n - 2 && cp.perm[n - 2] == n - 1;
  for (size_t i = 0; i + 2 < n && batched_swap; ++i) batched_swap = cp.perm[i] == i;
  if (batched_swap) {
    const int64_t rows = cp.in_shape[n - 2];
    const int64_t cols = cp.in_shape[n - 1];
    const int64_t batches = running / (rows * cols);
    for (int64_t b = 0; b < batches; ++b) {
      Transpose2D(in + b * rows * cols, out + b * rows * cols, rows, cols);
    }
    return;
  }
  // Odometer over the outer output dims; the inner output dim is a strided (or, when it is
  // the last input dim, contiguous) run.
  const int64_t inner = out_shape[n - 1];
  const int64_t inner_stride = stride_of_out[n - 1];
  const int64_t rows = running / inner;
  std::vector<int64_t> index(n - 1, 0);
  int64_t offset = 0;
  for (int64_t row = 0; row < rows; ++row) {
    U* o = out + row * inner;
    if (inner_stride == 1) {
      std::memcpy(o, in + offset, static_cast<size_t>(inner) * sizeof(U));
    } else {
      for (int64_t j = 0; j < inner; ++j) o[j] = in[offset + j * inner_stride];
    }
    for (size_t d = n - 1; d-- > 0;) {
      offset += stride_of_out[d];
      if (++index[d] < out_shape[d]) break;
      offset -= stride_of_out[d] * out_shape[d];
      index[d] = 0;
    }
  }
}

}  // namespace

Tensor PermuteDims(const Tensor& x, const std::optional<std::vector<int64_t>>& axes) {
  const int64_t ndim = x.ndim();
  std::vector<int64_t> perm;
  if (!axes) {
    for (int64_t i = ndim - 1; i >= 0; --i) perm.push_back(i);
  } else {
    if (static_cast<int64_t>(axes->size()) != ndim) {
      detail::ThrowError("permute_dims: axes " + ShapeToString(*axes) + " do not match shape " +
                         ShapeToString(x.shape()));
    }
    for (int64_t a : *axes) {
      const int64_t axis = detail::NormalizeAxis("permute_dims", a, ndim, x.shape());
      if (std::find(perm.begin(), perm.end(), axis) != perm.end()) {
        detail::ThrowError("permute_dims: axis " + std::to_string(a) + " is repeated in " +
                           ShapeToString(*axes));
      }
      perm.push_back(axis);
    }
  }
  Shape out_shape(ndim);
  for (int64_t i = 0; i < ndim; ++i) out_shape[i] = x.shape()[perm[i]];
  const CollapsedPermutation cp = Collapse(x.shape(), perm);
  bool identity = true;
  for (size_t i = 0; i < cp.perm.size(); ++i) identity = identity && cp.perm[i] == i;
  if (identity) return x.WithShape(out_shape);
  CheckStorableDType(x.dtype(), "permute_dims");
  TensorBuilder out(x.dtype(), out_shape);
  if (x.numel() > 0) {
    detail::DispatchBySize(x.dtype(), [&](auto tag) {
      using U = typename decltype(tag)::type;
      PermuteCopy<U>(cp, x.data<U>(), out.data<U>());
    });
  }
  return std::move(out).Publish();
}

Tensor Reshape(const Tensor& x, std::span<const int64_t> shape) {
  Shape out_shape(shape.begin(), shape.end());
  int64_t inferred = -1;
  Shape known_dims;
  for (size_t i = 0; i < out_shape.size(); ++i) {
    if (out_shape[i] == -1) {
      if (inferred >= 0) {
        detail::ThrowError("reshape: more than one -1 in " + ShapeToString(out_shape));
      }
      inferred = static_cast<int64_t>(i);
    } else if (out_shape[i] < 0) {
      detail::ThrowError("reshape: negative dim " + std::to_string(out_shape[i]) + " in " +
                         ShapeToString(out_shape));
    } else {
      known_dims.push_back(out_shape[i]);
    }
  }
  const int64_t known = ShapeNumel(known_dims, "reshape");
  auto mismatch = [&]() {
    detail::ThrowError("reshape: cannot reshape " + ShapeToString(x.shape()) + " (" +
                       std::to_string(x.numel()) + " elements) into " + ShapeToString(out_shape));
  };
  if (inferred >= 0) {
    if (known == 0 || x.numel() % known != 0) mismatch();
    out_shape[inferred] = x.numel() / known;
  } else if (known != x.numel()) {
    mismatch();
  }
  return x.WithShape(std::move(out_shape));
}

Tensor ExpandDims(const Tensor& x, std::span<const int64_t> axes) {
  const int64_t out_ndim = x.ndim() + static_cast<int64_t>(axes.size());
  std::vector<bool> is_new(out_ndim, false);
  for (int64_t a : axes) {
    if (a < -out_ndim || a >= out_ndim) {
      detail::ThrowError("expand_dims: axis " + std::to_string(a) + " is out of range for " +
                         std::to_string(out_ndim) + " result dims (input shape " +
                         ShapeToString(x.shape()) + ")");
    }
    const int64_t axis = a < 0 ? a + out_ndim : a;
    if (is_new[axis]) {
      detail::ThrowError("expand_dims: axis " + std::to_string(a) + " is repeated in " +
                         ShapeToString(axes));
    }
    is_new[axis] = true;
  }
  Shape out_shape;
  size_t next = 0;
  for (int64_t i = 0; i < out_ndim; ++i) out_shape.push_back(is_new[i] ? 1 : x.shape()[next++]);
  return x.WithShape(std::move(out_shape));
}

Tensor Squeeze(const Tensor& x, const std::optional<std::vector<int64_t>>& axes) {
  std::vector<bool> drop(x.ndim(), false);
  if (!axes) {
    for (int i = 0; i < x.ndim(); ++i) drop[i] = x.shape()[i] == 1;
  } else {
    for (int64_t axis : detail::NormalizeAxes("squeeze", axes, x.shape())) {
      if (x.shape()[axis] != 1) {
        detail::ThrowError("squeeze: axis " + std::to_string(axis) + " of shape " +
                           ShapeToString(x.shape()) + " has size " +
                           std::to_string(x.shape()[axis]) + ", not 1");
      }
      drop[axis] = true;
    }
  }
  Shape out_shape;
  for (int i = 0; i < x.ndim(); ++i) {
    if (!drop[i]) out_shape.push_back(x.shape()[i]);
  }
  return x.WithShape(std::move(out_shape));
}

Tensor Flatten(const Tensor& x) { return x.WithShape({x.numel()}); }

Tensor BroadcastTo(const Tensor& x, std::span<const int64_t> shape) {
  const Shape target(shape.begin(), shape.end());
  ShapeNumel(target, "broadcast_to");
  bool ok = target.size() >= x.shape().size();
  for (size_t i = 0; ok && i < x.shape().size(); ++i) {
    const int64_t d = x.shape()[x.shape().size() - 1 - i];
    const int64_t t = target[target.size() - 1 - i];
    ok = d == t || d == 1;
  }
  if (!ok) {
    detail::ThrowError("broadcast_to: cannot broadcast " + ShapeToString(x.shape()) + " to " +
                       ShapeToString(target));
  }
  if (target == x.shape()) return x;
  CheckStorableDType(x.dtype(), "broadcast_to");
  TensorBuilder out(x.dtype(), target);
  const detail::BroadcastLoop<1> loop(target, {&x.shape()});
  detail::DispatchBySize(x.dtype(), [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U* in = x.data<U>();
    U* o = out.data<U>();
    const int64_t n = loop.inner();
    const bool contiguous = loop.inner_stride(0) == 1;
    loop.ForEachRow([&](int64_t offset, const std::array<int64_t, 1>& in_offset) {
      if (contiguous) {
        std::memcpy(o + offset, in + in_offset[0], static_cast<size_t>(n) * sizeof(U));
      } else {
        std::fill(o + offset, o + offset + n, in[in_offset[0]]);
      }
    });
  });
  return std::move(out).Publish();
}

}  // namespace pipesplit::runtime
