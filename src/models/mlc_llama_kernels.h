// The TIR kernels of the module pipesplit writes for an MLC folder (mlc_llama_module.h), in the
// form MLC's fusion gives them (phase 3 of its compile): q4f16_1's 4-bit unpacking and
// dequantization as blocks of their own before the product, which pipesplit's fast path folds
// into one pass over the packed weight; TVM's rms_norm lowering. Rows (b, s) of a kernel come in a
// `form`: "1x1", "1xm" or "mx1" (m a symbolic var).
#ifndef PIPESPLIT_SRC_MODELS_MLC_LLAMA_KERNELS_H_
#define PIPESPLIT_SRC_MODELS_MLC_LLAMA_KERNELS_H_

#include <cstdint>
#include <string>

namespace pipesplit::models {

// A [rows, cols] weight, q4f16_1-quantized (q_weight, q_scale) or in the model dtype (w).
struct KernelWeight {
  int64_t rows = 0, cols = 0;
  bool quantized = false;
};

struct KernelText {
  std::string name;  // unique for what it computes
  std::string text;  // the @T.prim_func, indented as a module member
};

// out[b, s, n] = sum_k x[b, s, k] * W[n, k]; with `epilogue` "add" plus a residual input, with
// "cast" as float32 (the logits), each a block after the product's as MLC's fusion writes them.
KernelText NtMatmulKernel(const KernelWeight& weight, const std::string& form,
                          const std::string& epilogue, const std::string& dtype);

// MLC's rms_norm over a hidden size (TVM's legalization: in float32, the sum of squares in k
// order, rsqrt of its mean plus eps, times x, times the weight, cast back).
KernelText RmsNormKernel(const std::string& form, int64_t hidden, double eps,
                         const std::string& dtype);

// take(dequantize(table), ids) for a q4f16_1 table: only the rows asked for are dequantized.
KernelText DequantizeTakeKernel(const KernelWeight& table);

}  // namespace pipesplit::models

#endif  // PIPESPLIT_SRC_MODELS_MLC_LLAMA_KERNELS_H_
