// Elementwise kernels: Relax's binary arithmetic, comparisons, logical ops, unary math and
// activations, where, clip and astype.
//
// Binary kernels broadcast as NumPy does and require both operands to have the same dtype
// (as Relax's type inference does). float16/bfloat16 are computed in float32 and rounded to
// nearest even on store. Integer arithmetic wraps on overflow; integer division by zero is a
// RuntimeError. Errors name the op: "add: shapes [2, 3] and [4] cannot be broadcast".
#ifndef PIPESPLIT_RUNTIME_KERNELS_ELEMENTWISE_H_
#define PIPESPLIT_RUNTIME_KERNELS_ELEMENTWISE_H_

#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::runtime {

// --- binary arithmetic (numeric dtypes; result has the operands' dtype) ---
Tensor Add(const Tensor& a, const Tensor& b);
Tensor Subtract(const Tensor& a, const Tensor& b);
Tensor Multiply(const Tensor& a, const Tensor& b);
// Floats: IEEE division. Integers: truncating division (TIR's Div).
Tensor Divide(const Tensor& a, const Tensor& b);
// floor(a / b); integers round toward negative infinity.
Tensor FloorDivide(const Tensor& a, const Tensor& b);
// a - floor(a / b) * b (the result takes the sign of b).
Tensor FloorMod(const Tensor& a, const Tensor& b);
// Truncated remainder (std::fmod for floats; the result takes the sign of a).
Tensor Mod(const Tensor& a, const Tensor& b);
// Floats: std::pow. Integers: exact wrapping power; a negative exponent is a RuntimeError.
Tensor Power(const Tensor& a, const Tensor& b);
// NaN-propagating, as NumPy's maximum/minimum.
Tensor Maximum(const Tensor& a, const Tensor& b);
Tensor Minimum(const Tensor& a, const Tensor& b);

// --- comparisons (any dtype incl. bool; result is bool) ---
Tensor Equal(const Tensor& a, const Tensor& b);
Tensor NotEqual(const Tensor& a, const Tensor& b);
Tensor Less(const Tensor& a, const Tensor& b);
Tensor LessEqual(const Tensor& a, const Tensor& b);
Tensor Greater(const Tensor& a, const Tensor& b);
Tensor GreaterEqual(const Tensor& a, const Tensor& b);

// --- logical (bool operands) ---
Tensor LogicalAnd(const Tensor& a, const Tensor& b);
Tensor LogicalOr(const Tensor& a, const Tensor& b);
Tensor LogicalXor(const Tensor& a, const Tensor& b);
Tensor LogicalNot(const Tensor& x);

// --- unary ---
// Numeric dtypes:
Tensor Negative(const Tensor& x);
Tensor Abs(const Tensor& x);
Tensor Square(const Tensor& x);
Tensor Relu(const Tensor& x);  // nn.relu: max(x, 0)
// Clamps to [min, max] (relax.clip); bounds are converted to x's dtype first.
Tensor Clip(const Tensor& x, double min, double max);
// Float dtypes only:
Tensor Exp(const Tensor& x);
Tensor Log(const Tensor& x);
Tensor Sqrt(const Tensor& x);
Tensor Rsqrt(const Tensor& x);  // 1 / sqrt(x)
Tensor Tanh(const Tensor& x);
Tensor Sigmoid(const Tensor& x);  // 1 / (1 + exp(-x))
Tensor Erf(const Tensor& x);
Tensor Sin(const Tensor& x);
Tensor Cos(const Tensor& x);
Tensor Floor(const Tensor& x);
Tensor Ceil(const Tensor& x);
Tensor Silu(const Tensor& x);  // nn.silu: x * sigmoid(x)
// nn.gelu, erf form: x * (0.5 + erf(x * sqrt(0.5)) * 0.5).
Tensor Gelu(const Tensor& x);
// nn.gelu_tanh: 0.5 * x * (1 + tanh(sqrt(2 / pi) * x * (1 + 0.044715 * x * x))).
Tensor GeluTanh(const Tensor& x);

// --- selection and conversion ---
// where(cond, x, y): cond must be bool; x and y the same dtype; all three broadcast.
Tensor Where(const Tensor& cond, const Tensor& x, const Tensor& y);
// Converts to `dtype`: floats round to nearest even; float -> integer truncates toward zero,
// saturating at the integer range, NaN -> 0; integer -> integer wraps; -> bool is "nonzero".
// Returns `x` itself when the dtype already matches.
Tensor Astype(const Tensor& x, DataType dtype);

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_KERNELS_ELEMENTWISE_H_
