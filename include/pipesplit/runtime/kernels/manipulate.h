// Shape and indexing kernels: permute_dims, reshape, expand_dims, squeeze, flatten,
// broadcast_to, concat, split, strided_slice and take.
//
// Ops that only change the shape (reshape, expand_dims, squeeze, flatten, and permute_dims /
// broadcast_to when nothing moves) return a tensor sharing the input's storage; the others
// allocate. Axes may be negative (counted from the end).
#ifndef PIPESPLIT_RUNTIME_KERNELS_MANIPULATE_H_
#define PIPESPLIT_RUNTIME_KERNELS_MANIPULATE_H_

#include <optional>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::runtime {

// Reorders dims: output dim i is input dim axes[i]; no axes reverses them.
Tensor PermuteDims(const Tensor& x, const std::optional<std::vector<int64_t>>& axes);
// Same elements under `shape`; one dim may be -1 (inferred).
Tensor Reshape(const Tensor& x, std::span<const int64_t> shape);
// Inserts size-1 dims at `axes`, positions in the result (range [-(ndim+n), ndim+n)).
Tensor ExpandDims(const Tensor& x, std::span<const int64_t> axes);
// Removes the given size-1 dims (every size-1 dim when axes is nullopt).
Tensor Squeeze(const Tensor& x, const std::optional<std::vector<int64_t>>& axes);
// 1-D view of all elements.
Tensor Flatten(const Tensor& x);
// Broadcasts to `shape` (NumPy rules: each input dim is 1 or equals the target dim).
Tensor BroadcastTo(const Tensor& x, std::span<const int64_t> shape);

// Joins tensors (same dtype and ndim; equal dims except `axis`). With no axis the tensors
// are flattened and joined as 1-D.
Tensor Concat(std::span<const Tensor> tensors, std::optional<int64_t> axis);

// Splits along `axis` into `sections` parts (each ceil(dim / sections) long, the last one
// what remains) or at the given ascending indices (clamped to [0, dim]).
std::vector<Tensor> Split(const Tensor& x, const std::variant<int64_t, std::vector<int64_t>>& split,
                          int64_t axis);

// Slices `axes` with Python semantics: negative begin/end count from the end and are clamped
// to the dim; strides may be negative but not zero (default 1); an empty range gives size 0.
Tensor StridedSlice(const Tensor& x, std::span<const int64_t> axes, std::span<const int64_t> begin,
                    std::span<const int64_t> end,
                    const std::optional<std::vector<int64_t>>& strides = std::nullopt);

// How take treats indices outside [0, dim).
enum class TakeMode {
  kFast,  // Relax's default: TVM assumes they never occur; here they are a RuntimeError
  kClip,  // clamp to [0, dim - 1]
  kWrap,  // wrap around (Python modulo)
  kNan,   // produce NaN (float dtypes only)
};
// "fast", "clip", "wrap", "nan"; throws RuntimeError "take: unknown mode 'x'" otherwise.
TakeMode ParseTakeMode(std::string_view mode);

// Gathers along `axis`: result shape x.shape[:axis] + indices.shape + x.shape[axis+1:].
// With no axis, x is flattened first. indices must have an integer dtype.
Tensor Take(const Tensor& x, const Tensor& indices, std::optional<int64_t> axis,
            TakeMode mode = TakeMode::kFast);

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_KERNELS_MANIPULATE_H_
