// The fast path's pattern match: which PrimFuncs compute a contraction the runtime's
// microkernels run (runtime/kernels/contraction.h, through PipesplitContraction of
// support/kernel_abi.h), recognised by what they compute, never by their names.
//
// A kernel matches when, after tir-compute-inline (transform/tir_compute_inline.h), it is:
//  - one reduction block  O[b..., n] = O[b..., n] + X[b..., k] * W(n, k)  with T.init O = 0,
//    over a k that covers X's last dim, where W(n, k) is a load W[n, k] of a dense float weight
//    [N, K], or MLC's 4-bit dequantization
//      (T.Cast(D, (Wq[n, k // 8] >> T.Cast("uint32", k % 8 * 4)) & 15) - z) * S[n, k // G]
//    of uint32 words Wq [N, K / 8] with scales S [N, ceil(K / G)] (G a multiple of 32); each
//    factor may be cast to a float type first; the product and O are float16, bfloat16 or
//    float32;
//  - then any elementwise blocks each reading the previous result at the very indices it
//    writes: a cast, or an add / multiply with a parameter of the output's shape or of shape
//    [N] indexed by n; every buffer between two blocks allocated by the kernel and read by the
//    next block only, the last one a parameter;
//  - every block's loops cover its iteration domain exactly once (serial, parallel or
//    vectorized loops bound to its iter vars by splits and fusions, unit loops around them),
//    with no predicate; the batch indices b... of O and X the same iter vars in the same order
//    (unit dims may be indexed by 0); nothing else in the kernel.
// Anything else is refused with the reason. What matched is described in one line, e.g.
// "4-bit matmul (float16 x, float16 scales, group 32) -> float16, + [M, N] float16".
#ifndef PIPESPLIT_CODEGEN_FAST_PATH_H_
#define PIPESPLIT_CODEGEN_FAST_PATH_H_

#include <optional>
#include <string>
#include <vector>

#include "pipesplit/ir/expr.h"
#include "pipesplit/support/dtype.h"

namespace pipesplit::codegen {

struct FastEpilogueOp {
  enum class Kind { kCast, kAdd, kMultiply };
  Kind kind = Kind::kCast;
  DataType dtype;               // the result's type
  int operand_param = -1;       // kAdd / kMultiply: the parameter combined with
  bool operand_column = false;  // the operand is [N] (else the output's shape)
  bool operand_first = false;   // operand (op) value
};

// A recognised contraction; parameters by their index in the PrimFunc's params.
struct FastContraction {
  bool quantized = false;  // 4-bit weight (w_param: uint32 words, scale_param: scales)
  int x_param = -1;
  int w_param = -1;
  int scale_param = -1;
  int out_param = -1;
  int64_t group_size = 0;
  double zero_point = 0;
  DataType dequant;  // the type the weight is dequantized in
  DataType product;  // the reduction's result type
  std::vector<FastEpilogueOp> epilogue;
  std::string description;
};

struct FastPathMatch {
  std::optional<FastContraction> contraction;
  std::string refusal;  // why not, when contraction is empty
};

// Matches `func` as written (it is inlined first, internally).
FastPathMatch MatchFastPath(const ir::PrimFunc& func);

}  // namespace pipesplit::codegen

#endif  // PIPESPLIT_CODEGEN_FAST_PATH_H_
