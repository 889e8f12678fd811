// The access regions of a TIR block, as TVM's parser infers them for a block written without
// T.reads / T.writes (its block access region detector): every buffer load and store in the
// block's init and body, relaxed over the loops inside the block (the block's own iter vars
// stay symbolic), nested blocks by their declared regions, accesses through a buffer's data
// pointer as opaque. Only the buffers declared outside the block count.
#ifndef PIPESPLIT_IR_TIR_ACCESS_H_
#define PIPESPLIT_IR_TIR_ACCESS_H_

#include <unordered_map>
#include <vector>

#include "pipesplit/ir/tir.h"

namespace pipesplit::ir {

struct BlockAccessRegions {
  std::vector<BufferRegion> reads;   // in order of first access; for a block with an init,
                                     // the written buffers are left out
  std::vector<BufferRegion> writes;  // in order of first access
  std::vector<BufferRegion> opaque;  // buffers whose data pointer the block uses
};

// The buffers a block may name, by their data var.
using VisibleBuffers = std::unordered_map<const TirVarNode*, Buffer>;

// The regions `block` accesses, among the `visible` buffers (those declared outside it).
BlockAccessRegions DetectBlockAccessRegions(const BlockNode& block, const VisibleBuffers& visible);

}  // namespace pipesplit::ir

#endif  // PIPESPLIT_IR_TIR_ACCESS_H_
