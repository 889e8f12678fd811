// Reductions (sum, mean, max, min, prod, argmax, argmin) and the normalizing nn kernels
// built on them (softmax, log_softmax, rms_norm, layer_norm).
//
// Axes may be negative; nullopt means every axis. Reductions run in the input dtype
// (float16/bfloat16 in float32) with a fixed summation order, so results are bit-identical
// run to run. Max/min propagate NaN; reducing an empty axis with max/min/argmax/argmin is a
// RuntimeError (sum gives 0, prod 1).
#ifndef PIPESPLIT_RUNTIME_KERNELS_REDUCE_H_
#define PIPESPLIT_RUNTIME_KERNELS_REDUCE_H_

#include <optional>
#include <vector>

#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::runtime {

using Axes = std::optional<std::vector<int64_t>>;

Tensor Sum(const Tensor& x, const Axes& axes, bool keepdims = false);
// sum / count; integers divide truncating (as Relax's legalization does).
Tensor Mean(const Tensor& x, const Axes& axes, bool keepdims = false);
Tensor Max(const Tensor& x, const Axes& axes, bool keepdims = false);
Tensor Min(const Tensor& x, const Axes& axes, bool keepdims = false);
Tensor Prod(const Tensor& x, const Axes& axes, bool keepdims = false);
// Index (int64) of the first largest / smallest element along `axis` (of the flattened
// tensor when nullopt). NaN counts as the largest and the smallest, as in NumPy.
Tensor Argmax(const Tensor& x, std::optional<int64_t> axis, bool keepdims = false);
Tensor Argmin(const Tensor& x, std::optional<int64_t> axis, bool keepdims = false);

// nn.softmax: exp(x - max) / sum(exp(x - max)) along `axis` (float dtypes).
Tensor Softmax(const Tensor& x, int64_t axis = -1);
// nn.log_softmax: x - max - log(sum(exp(x - max))).
Tensor LogSoftmax(const Tensor& x, int64_t axis = -1);
// nn.rms_norm: rsqrt(mean(x^2 over axes) + epsilon) * x * weight (float dtypes; float16 and
// bfloat16 computed in float32, as TVM does). weight's shape is x's dims at `axes` (in
// ascending axis order).
Tensor RmsNorm(const Tensor& x, const Tensor& weight, const std::vector<int64_t>& axes,
               double epsilon = 1e-5);
// nn.layer_norm: (x - mean) * rsqrt(var + epsilon) * gamma + beta over `axes`, two-pass mean
// and variance. `scale` = false skips gamma, `center` = false skips beta (both still
// shape-checked). gamma/beta have x's dims at `axes`.
Tensor LayerNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                 const std::vector<int64_t>& axes, double epsilon = 1e-5, bool center = true,
                 bool scale = true);

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_KERNELS_REDUCE_H_
