// Matrix multiplication (relax.matmul).
//
// NumPy matmul semantics: a 1-D left operand is a row vector (its dim is dropped from the
// result), a 1-D right operand a column vector; leading batch dims broadcast. float32 runs on
// OpenBLAS sgemm (float64 on dgemm), one call per batch or a single call when the right
// operand has no batch dims; float16/bfloat16 are multiplied in float32 and rounded once;
// integer dtypes use plain loops with wrapping arithmetic.
//
// OpenBLAS runs single-threaded by default (see SetBlasThreads): its multi-threaded sgemm
// splits the work differently per thread count and does not give bit-identical results.
#ifndef PIPESPLIT_RUNTIME_KERNELS_LINALG_H_
#define PIPESPLIT_RUNTIME_KERNELS_LINALG_H_

#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::runtime {

// a @ b. Without out_dtype (void) a and b must have the same dtype, which the result takes;
// with it, both operands are converted to out_dtype first (Relax's legalization).
// transpose_a / transpose_b swap the last two dims of that operand first (it must be at
// least 2-D), which lets callers fold a permute_dims into the multiplication for free.
Tensor Matmul(const Tensor& a, const Tensor& b, DataType out_dtype = DataType::Void(),
              bool transpose_a = false, bool transpose_b = false);

// Number of threads OpenBLAS may use (default 1). Other counts change results at the bit
// level, so split and unsplit runs only match when every run uses the same count.
void SetBlasThreads(int threads);
int GetBlasThreads();

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_KERNELS_LINALG_H_
