// What `tir-compute-inline` needs to know about a function before it inlines a producer: the
// buffers, vars and scopes of the whole function, and where each statement of an allocating
// block's sequence reads and writes which buffer. Buffers are told apart by their data var, so
// buffers sharing one count as one.
#ifndef PIPESPLIT_SRC_TRANSFORM_TIR_COMPUTE_INLINE_USES_H_
#define PIPESPLIT_SRC_TRANSFORM_TIR_COMPUTE_INLINE_USES_H_

#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pipesplit/ir/expr.h"
#include "pipesplit/ir/tir.h"

namespace pipesplit::transform::compute_inline {

using VarSet = std::unordered_set<const ir::TirVarNode*>;

// Whether T.<name>(...) is a pure scalar function of its arguments (math, bit operations,
// T.if_then_else, ...): evaluating it elsewhere, or twice, gives the same value and nothing
// else. Other calls (extern calls, pointers, address_of) make the loads they hold opaque.
bool IsPureIntrinsic(std::string_view name);

// Facts about the whole function.
struct FunctionFacts {
  // The distinct buffer nodes naming each data var.
  std::unordered_map<const ir::TirVarNode*, std::unordered_set<const ir::BufferNode*>>
      buffers_of_data;
  VarSet vars_in_exprs;  // every var an expression names (a data var there: an opaque use)
  VarSet bound_vars;     // loop, block iter, let, allocation and thread vars
  VarSet matched_data;   // data vars of the sources of T.match_buffer
  VarSet param_data;     // data vars of the parameter buffers
  bool noalias = false;  // "tir.noalias" / "tirx.noalias" is true
};

FunctionFacts CollectFunctionFacts(const ir::PrimFuncNode& func);

// A block that allocates buffers and whose body is a sequence: where producers may be inlined.
struct Scope {
  const ir::BlockNode* block = nullptr;
  const ir::SeqStmtNode* seq = nullptr;
  VarSet visible;  // data vars of the parameter buffers and of this block's and its ancestors'
                   // allocations: what every statement of the sequence may read
};

// The scopes of `func`, outer before inner. Blocks with a T.init are no scopes.
std::vector<Scope> FindScopes(const ir::PrimFuncNode& func);

// How one statement of a scope's sequence touches each buffer (by data var). A leaf block is
// one without blocks inside; its realize's iter values and predicate count as its own.
struct StatementUses {
  // Loads inside leaf blocks (body, init, iter values, predicate, regions), not under an
  // opaque call.
  std::unordered_map<const ir::TirVarNode*, std::vector<const ir::BufferLoadNode*>> leaf_loads;
  VarSet leaf_reads;  // named by the T.reads of a leaf block
  // Named anywhere else: loads outside leaf blocks or under an opaque call, regions of other
  // blocks, sources of T.match_buffer, stores outside blocks.
  VarSet other_uses;
  VarSet opaque_writes;                                          // other blocks' T.writes, matches
  std::unordered_map<const ir::TirVarNode*, int> stores;         // BufferStores
  std::unordered_map<const ir::TirVarNode*, int> write_regions;  // leaf blocks' T.writes

  bool Mentions(const ir::TirVarNode* data) const;
  bool Writes(const ir::TirVarNode* data) const;
};

StatementUses ScanStatement(const ir::Stmt& stmt);

}  // namespace pipesplit::transform::compute_inline

#endif  // PIPESPLIT_SRC_TRANSFORM_TIR_COMPUTE_INLINE_USES_H_
