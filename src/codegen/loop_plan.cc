// Loop nest planning: which loops of a perfect nest may be reordered, tiled and run in
// parallel without changing a single bit of the results.
//
// Preconditions: the nest is well-formed TIR (vars defined before use); the emitter asks only
// when it emits without bounds checks (a bounds-checked kernel runs as written, so that the
// first out-of-range access it reports is the written order's).
//
// A nest qualifies when all of the following hold (else PlanLoopNest returns nullopt and the
// nest runs as written):
//  1. It is perfect: serial For loops, each the only statement of the previous one, ending in
//     one BlockRealize. Loop kinds other than serial (parallel, vectorized, unrolled, thread
//     bindings) end the analysis.
//  2. No loop's min or extent uses a loop var of the nest or loads a buffer: the iteration
//     space is a box that the emitter may evaluate once, before the loops.
//  3. The block has no T.alloc_buffer and no T.match_buffer; its body is one BufferStore to
//     a buffer O, and its T.init (if any) one BufferStore to O at the same indices.
//  4. Every index of the store is either (a) a loop var of the nest, directly or as a block
//     iter var bound to exactly that var, each such loop var used by at most one index: the
//     nest's "index loops"; or (b) free of the nest's loop vars, of block iter vars and of
//     buffer loads (the same value in every iteration). So distinct iterations of the index
//     loops store to distinct elements of O. The remaining loops are "order loops".
//  5. O is read only inside the store's value, and only at exactly the store's indices (the
//     accumulator); a buffer sharing O's data var counts as O. The predicate (T.where), the
//     iter values and the init value do not read O.
//  6. O cannot alias another buffer of the kernel: it is allocated by the kernel, or the
//     kernel has "tir.noalias" (or, since 2026, "tirx.noalias"): True (as LegalizeOps writes
//     every kernel).
// Then each output element is computed by the iterations of the order loops at one fixed
// point of the index loops, and nothing else the nest computes depends on another element. An
// order of the loops in which the order loops keep their relative order visits, for every
// element, the same values in the same sequence: its T.init runs at the same point (the
// condition tests the iter vars' values), its terms accumulate in the same order, its
// predicate and loads see the same values. Index loops may therefore move anywhere, be cut
// into tiles, and run in parallel; the set of loads is unchanged (no new out-of-range access).
//
// Steps:
//  1. Collect the nest and check 1-3.
//  2. Classify the store indices (4), marking the index loops.
//  3. Check the reads of O (5) and aliasing (6).
//  4. Choose the order: when the innermost written loop is an order loop (a reduction), move
//     the index loop of the store's last such index innermost, so that the innermost loop
//     walks contiguous output elements and vectorizes; cut it into tiles of kTile iterations
//     when its extent is not a constant <= kTile, the tile loop taking its written place.
//  5. Choose a register tile: when the store has another index loop (the "row" loop, that of
//     the last such index before the moved loop's) and the block has no predicate, the emitter
//     may hold a tile of kRegRows rows x kRegCols moved-loop iterations in local accumulators
//     across all order loops (each still in its written relative order, so every element
//     sums its terms in the written sequence). Rows and columns shrink to constant extents
//     smaller than the tile.
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "pipesplit/ir/arith.h"
#include "pipesplit/ir/attrs.h"
#include "src/codegen/codegen_internal.h"

namespace pipesplit::codegen {
namespace {

constexpr int64_t kTile = 64;
constexpr int64_t kRegRows = 8;   // accumulator rows: 8 x 16 floats fill 8 AVX-512 or
constexpr int64_t kRegCols = 16;  // 16 AVX2 registers (measured best on 512^3 float32)

// Calls fn on every BufferLoad in e (pre-order).
void ForEachLoad(const ir::PrimExpr& e, const std::function<void(const ir::BufferLoadNode&)>& fn) {
  if (!e) return;
  if (const auto* load = ir::As<ir::BufferLoadNode>(e)) fn(*load);
  ir::ForEachChild(e, [&](const ir::PrimExpr& c) { ForEachLoad(c, fn); });
}

bool HasLoad(const ir::PrimExpr& e) {
  bool found = false;
  ForEachLoad(e, [&](const ir::BufferLoadNode&) { found = true; });
  return found;
}

bool UsesAny(const ir::PrimExpr& e, const std::unordered_set<const ir::TirVarNode*>& vars) {
  bool found = false;
  ir::VisitTirVars(e, [&](const ir::TirVar& v) { found = found || vars.count(v.get()) != 0; });
  return found;
}

bool NoAlias(const ir::PrimFuncNode& func) {
  // "tirx.noalias" since TVM's 2026 rename of tir to tirx.
  const ir::AttrValue* v = ir::FindAttr(func.attrs(), "tir.noalias");
  if (v == nullptr) v = ir::FindAttr(func.attrs(), "tirx.noalias");
  if (v == nullptr) return false;
  if (const bool* b = v->as_bool()) return *b;
  if (const ir::PrimExpr* e = v->as_prim_expr()) return ir::AsConstInt(*e) == 1;  // T.bool(True)
  return v->ToInt() == 1;
}

bool IsParamBuffer(const ir::PrimFuncNode& func, const ir::BufferNode* buffer) {
  for (const ir::TirVar& p : func.params()) {
    const ir::Buffer* b = func.BufferOf(p.get());
    if (b != nullptr && (b->get() == buffer || (*b)->data() == buffer->data())) return true;
  }
  return false;
}

bool SameIndices(const std::vector<ir::PrimExpr>& a, const std::vector<ir::PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!ir::ExprDeepEqual(a[i], b[i])) return false;
  }
  return true;
}

}  // namespace

std::optional<NestPlan> PlanLoopNest(const ir::ForNode& outer, const ir::PrimFuncNode& func) {
  // Step 1: the nest.
  NestPlan plan;
  const ir::StmtNode* s = &outer;
  while (s->kind() == ir::NodeKind::kFor) {
    const auto* loop = static_cast<const ir::ForNode*>(s);
    if (loop->for_kind() != ir::ForKind::kSerial) return std::nullopt;
    plan.loops.push_back(loop);
    s = loop->body().get();
  }
  if (s->kind() != ir::NodeKind::kBlockRealize) return std::nullopt;
  plan.realize = static_cast<const ir::BlockRealizeNode*>(s);
  std::unordered_set<const ir::TirVarNode*> loop_vars;
  std::unordered_map<const ir::TirVarNode*, int> loop_of;
  for (size_t i = 0; i < plan.loops.size(); ++i) {
    loop_vars.insert(plan.loops[i]->loop_var().get());
    loop_of[plan.loops[i]->loop_var().get()] = static_cast<int>(i);
  }
  for (const ir::ForNode* loop : plan.loops) {
    for (const ir::PrimExpr& e : {loop->min(), loop->extent()}) {
      if (UsesAny(e, loop_vars) || HasLoad(e)) return std::nullopt;
    }
  }
  const ir::BlockNode& block = *plan.realize->block();
  if (!block.alloc_buffers().empty() || !block.match_buffers().empty()) return std::nullopt;
  if (plan.realize->iter_values().size() != block.iter_vars().size()) return std::nullopt;
  const auto* store = ir::As<ir::BufferStoreNode>(block.body());
  if (store == nullptr) return std::nullopt;
  const ir::BufferStoreNode* init = nullptr;
  if (block.init()) {
    init = ir::As<ir::BufferStoreNode>(block.init());
    if (init == nullptr || init->buffer() != store->buffer() ||
        !SameIndices(init->indices(), store->indices())) {
      return std::nullopt;
    }
  }

  // Step 2: the store's indices.
  std::unordered_map<const ir::TirVarNode*, const ir::PrimExpr*> binding;
  std::unordered_set<const ir::TirVarNode*> iter_vars;
  for (size_t i = 0; i < block.iter_vars().size(); ++i) {
    binding[block.iter_vars()[i].var.get()] = &plan.realize->iter_values()[i];
    iter_vars.insert(block.iter_vars()[i].var.get());
  }
  plan.is_index.assign(plan.loops.size(), false);
  std::vector<int> index_loop_of_dim;
  for (const ir::PrimExpr& index : store->indices()) {
    const ir::PrimExpr* e = &index;
    if (const auto* v = ir::As<ir::TirVarNode>(*e); v != nullptr && binding.count(v)) {
      e = binding[v];
    }
    const auto* v = ir::As<ir::TirVarNode>(*e);
    if (v != nullptr && loop_of.count(v)) {
      int loop = loop_of[v];
      if (plan.is_index[loop]) return std::nullopt;
      plan.is_index[loop] = true;
      index_loop_of_dim.push_back(loop);
      continue;
    }
    if (UsesAny(*e, loop_vars) || UsesAny(*e, iter_vars) || HasLoad(*e)) return std::nullopt;
    index_loop_of_dim.push_back(-1);
  }

  // Step 3: reads of the output, and aliasing.
  const ir::Buffer& out = store->buffer();
  bool ok = true;
  auto no_reads = [&](const ir::BufferLoadNode& load) {
    if (load.buffer()->data() == out->data()) ok = false;
  };
  ForEachLoad(plan.realize->predicate(), no_reads);
  for (const ir::PrimExpr& v : plan.realize->iter_values()) ForEachLoad(v, no_reads);
  for (const ir::PrimExpr& i : store->indices()) ForEachLoad(i, no_reads);
  if (init != nullptr) ForEachLoad(init->value(), no_reads);
  ForEachLoad(store->value(), [&](const ir::BufferLoadNode& load) {
    if (load.buffer()->data() != out->data()) return;
    if (load.buffer() != out || !SameIndices(load.indices(), store->indices())) ok = false;
    for (const ir::PrimExpr& i : load.indices()) ForEachLoad(i, no_reads);
  });
  if (!ok) return std::nullopt;
  if (IsParamBuffer(func, out.get()) && !NoAlias(func)) return std::nullopt;

  // Step 4: the order.
  if (plan.is_index.back()) return plan;  // no reduction innermost: keep the written order
  for (auto it = index_loop_of_dim.rbegin(); it != index_loop_of_dim.rend(); ++it) {
    if (*it < 0) continue;
    plan.moved = *it;
    std::optional<int64_t> extent = ir::AsConstInt(plan.loops[*it]->extent());
    if (!extent || *extent > kTile) plan.tile = kTile;
    break;
  }

  // Step 5: the register tile.
  if (plan.realize->predicate()) {
    std::optional<int64_t> pred = ir::AsConstInt(plan.realize->predicate());
    if (!pred || *pred == 0) return plan;
  }
  bool after_moved = false;
  for (auto it = index_loop_of_dim.rbegin(); it != index_loop_of_dim.rend(); ++it) {
    if (*it == plan.moved) after_moved = true;
    if (!after_moved || *it < 0 || *it == plan.moved) continue;
    plan.reg_row = *it;
    break;
  }
  if (plan.reg_row < 0) return plan;
  auto tile_of = [&](int loop, int64_t most) {
    std::optional<int64_t> extent = ir::AsConstInt(plan.loops[loop]->extent());
    return extent && *extent > 0 && *extent < most ? *extent : most;
  };
  plan.reg_rows = tile_of(plan.reg_row, kRegRows);
  plan.reg_cols = tile_of(plan.moved, kRegCols);
  return plan;
}

}  // namespace pipesplit::codegen
