// TVM's compute_inline as an automatic TIR pass (`tir-compute-inline`): every producer block of
// a buffer the function allocates is inlined into the blocks that read the buffer, when that
// is safe, until no more can be (src/transform/tir_compute_inline.cc lists the conditions).
//
// Guarantees: under codegen's semantics (float16 rounded after every operation, a store of a
// value of the buffer's dtype is exact) the function computes bit for bit what it computed
// before; the inlined value is recomputed at each use with the same operations, never
// simplified nor reordered. Reductions, blocks with a predicate and everything else the
// conditions do not admit stay as written. A function with nothing to inline comes back as
// the very same node.
#ifndef PIPESPLIT_TRANSFORM_TIR_COMPUTE_INLINE_H_
#define PIPESPLIT_TRANSFORM_TIR_COMPUTE_INLINE_H_

#include <string>
#include <vector>

#include "pipesplit/ir/expr.h"

namespace pipesplit::transform {

// What ComputeInline did to one function.
struct ComputeInlineReport {
  // The names of the producer blocks inlined, in the order they were inlined.
  std::vector<std::string> inlined;
  // At the fixed point, each block left that writes a buffer of the function's own and why it
  // stayed: {block name, reason}.
  struct Refusal {
    std::string block;
    std::string reason;
  };
  std::vector<Refusal> refused;
};

// `func` with every inlinable producer block inlined into its consumers, its loop nest removed
// and its buffer's allocation dropped; the same node when there is none. Fills `report` when
// given.
ir::PrimFunc ComputeInline(const ir::PrimFunc& func, ComputeInlineReport* report = nullptr);

}  // namespace pipesplit::transform

#endif  // PIPESPLIT_TRANSFORM_TIR_COMPUTE_INLINE_H_
