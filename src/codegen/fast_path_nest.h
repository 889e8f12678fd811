// The loop nests of a kernel as the fast path's match sees them (fast_path.h): the top-level
// blocks in order, each with the loops around it, and whether those loops cover the block's
// iteration domain exactly once.
#ifndef PIPESPLIT_SRC_CODEGEN_FAST_PATH_NEST_H_
#define PIPESPLIT_SRC_CODEGEN_FAST_PATH_NEST_H_

#include <string>
#include <vector>

#include "pipesplit/ir/expr.h"
#include "pipesplit/ir/tir.h"

namespace pipesplit::codegen::detail {

struct NestBlock {
  const ir::BlockRealizeNode* realize = nullptr;
  const ir::BlockNode* block = nullptr;
  std::vector<const ir::ForNode*> loops;  // outermost first
};

struct KernelNests {
  std::vector<NestBlock> blocks;
  std::vector<ir::Buffer> allocated;  // buffers the kernel allocates (root block, statements)
};

// The blocks of `func`'s body: an optional root block (no iter vars) allocating buffers, then a
// sequence of loop nests each ending in one block. Returns false with `why` for anything else.
bool CollectNests(const ir::PrimFuncNode& func, KernelNests* out, std::string* why);

// Whether the loops of `nest` bind its block's iter vars so that every point of the iteration
// domain (each iter var in [0, extent)) runs exactly once: loops starting at 0, of kinds serial,
// parallel, vectorized or unrolled; every iter value a sum of loop vars times constants (nested
// sums too), each loop var in one iter value (or of extent 1); a predicate only of bounds
// (sum < c, conjunctions) each on the loops of one iter var. An iter var bound to one loop of
// its own extent (symbolic too) passes; any other is checked by enumerating its loops' points
// (constant extents, at most 2^22): the points the predicate keeps must give each value of
// [0, extent) once. Returns false with `why` otherwise.
bool CoversDomainOnce(const NestBlock& nest, std::string* why);

}  // namespace pipesplit::codegen::detail

#endif  // PIPESPLIT_SRC_CODEGEN_FAST_PATH_NEST_H_
