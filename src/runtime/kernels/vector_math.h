// Vectorized float32 exponential and the kernels built on it (exp, sigmoid, silu, the
// shifted exp of softmax), over contiguous arrays.
//
// exp is evaluated in double precision and rounded once to float: x = n ln2 + r with
// |r| <= ln2/2 (two-part ln2, so n ln2_hi is exact), exp(r) by its Taylor polynomial of
// degree 11 (truncation below 1e-14 relative), scaled by 2^n built from its bits. The double
// result is within about 1e-14 of exp(x), so the float result is the correctly rounded one
// except when exp(x) lies within that distance of a rounding boundary. Overflow gives +inf,
// underflow gives the correctly rounded subnormal or 0, NaN stays NaN, exp(-inf) = 0.
//
// Every operation is an IEEE add, multiply, divide, comparison or bit operation, with no
// contraction into FMA (-ffp-contract=off) and no reassociation, so the result of each
// element does not depend on the vector width: the loops are compiled for several instruction
// sets (AVX-512, AVX2, baseline x86-64) and the one the CPU runs gives the same bits as the
// others. Results are deterministic whatever the thread count or the chunking of the array.
#ifndef PIPESPLIT_SRC_RUNTIME_KERNELS_VECTOR_MATH_H_
#define PIPESPLIT_SRC_RUNTIME_KERNELS_VECTOR_MATH_H_

#include <cstdint>

namespace pipesplit::runtime::detail {

// out[i] = exp(in[i]). `out` may be `in`.
void ExpF32(const float* in, float* out, int64_t n);
// out[i] = exp(in[i] - shift), the subtraction rounded to float first (softmax's numerator).
void ExpShiftedF32(const float* in, float shift, float* out, int64_t n);
// out[i] = 1 / (1 + exp(-in[i])).
void SigmoidF32(const float* in, float* out, int64_t n);
// out[i] = in[i] * (1 / (1 + exp(-in[i]))).
void SiluF32(const float* in, float* out, int64_t n);

}  // namespace pipesplit::runtime::detail

#endif  // PIPESPLIT_SRC_RUNTIME_KERNELS_VECTOR_MATH_H_
