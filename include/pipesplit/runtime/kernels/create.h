// Creation kernels (zeros, ones, full, arange) and the triangular masks (triu, tril).
#ifndef PIPESPLIT_RUNTIME_KERNELS_CREATE_H_
#define PIPESPLIT_RUNTIME_KERNELS_CREATE_H_

#include <span>

#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::runtime {

Tensor Zeros(std::span<const int64_t> shape, DataType dtype);
Tensor Ones(std::span<const int64_t> shape, DataType dtype);
// relax.full: `fill_value` is a 0-d tensor; the result has `dtype`, or fill_value's dtype
// when dtype is void.
Tensor Full(std::span<const int64_t> shape, const Tensor& fill_value,
            DataType dtype = DataType::Void());
// A tensor of `dtype` filled with `value` (converted as astype does).
Tensor FullValue(std::span<const int64_t> shape, double value, DataType dtype);
// start, start + step, ... below end (above it for negative steps); ceil((end - start) /
// step) elements. step must not be 0.
Tensor Arange(double start, double end, double step, DataType dtype);

// Keeps the elements on and above (triu) / on and below (tril) the k-th diagonal of the
// last two dims and zeroes the rest: triu keeps col - row >= k, tril keeps col - row <= k.
Tensor Triu(const Tensor& x, int64_t k = 0);
Tensor Tril(const Tensor& x, int64_t k = 0);

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_KERNELS_CREATE_H_
