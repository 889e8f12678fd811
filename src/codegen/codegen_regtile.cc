// The register tile of a planned nest (loop_plan.cc, step 5): a tile of rows (iterations of
// the row loop) x columns (iterations of the moved, contiguous loop) accumulates in a local
// array across all the order loops, which keep their written relative order inside the tile.
//
// Preconditions: the plan has a register tile; the caller has emitted the tile loops of the
// row and the moved loop (their tile_start / tile_end names bound) and the other index loops,
// and checked that the block's T.init condition does not use the row or the moved loop.
//
// Steps:
//  1. Skip the tile when an order loop is empty (the written nest touches no element then).
//  2. Load the tile's elements of the output into the accumulators (storage type, so the
//     value each element holds is bit for bit the one the written nest would read; a 16-bit
//     float is held as its value, a float rounded to its precision: reading it gives what
//     ps_h2f of the stored bits gives, and storing it back gives the bits the written nest
//     stores, since ps_f2h(ps_h2f(b)) == b for every b that ps_f2h returns. That saves two
//     conversions per update of the reduction chain).
//  3. Run the order loops; per iteration, when the T.init condition holds, set every
//     accumulator to its init value, then apply the block's store to every accumulator (a
//     load of the output at the store's indices reads the accumulator: rule 5 of the plan).
//  4. Store the accumulators back.
// Full tiles run with constant bounds (the column loop vectorizes, the row loop unrolls);
// edge tiles run the same code with the tile's actual rows and columns.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pipesplit/support/check.h"
#include "src/codegen/kernel_emitter.h"

namespace pipesplit::codegen {

void KernelEmitter::EmitRegisterTile(const NestPlan& plan, const NestNames& nm) {
  const ir::BlockNode& block = *plan.realize->block();
  const auto* store = ir::As<ir::BufferStoreNode>(block.body());
  const auto* init = block.init() ? ir::As<ir::BufferStoreNode>(block.init()) : nullptr;
  const DataType dt = store->buffer()->dtype();
  const std::string st = StorageType(dt);
  const int row = plan.reg_row;
  const int col = plan.moved;
  const size_t n = plan.loops.size();
  std::vector<int> order_loops;
  std::vector<const ir::TirVarNode*> order_vars;
  for (size_t i = 0; i < n; ++i) {
    if (plan.is_index[i]) continue;
    order_loops.push_back(static_cast<int>(i));
    order_vars.push_back(plan.loops[i]->loop_var().get());
  }
  // Step 1.
  std::string nonempty;
  for (int l : order_loops) nonempty += (nonempty.empty() ? "" : " && ") + nm.count[l] + " > 0";
  Line("if (" + nonempty + ") {");
  ++indent_;
  const std::string rows = Fresh("rows");
  const std::string cols = Fresh("cols");
  Line("const int64_t " + rows + " = static_cast<int64_t>(" + nm.tile_end[row] +
       ") - static_cast<int64_t>(" + nm.tile_start[row] + ");");
  Line("const int64_t " + cols + " = static_cast<int64_t>(" + nm.tile_end[col] +
       ") - static_cast<int64_t>(" + nm.tile_start[col] + ");");
  for (const ir::TirVarNode* v : order_vars) vars_.erase(v);
  const std::string acc = Fresh("acc");
  // Runs `body` (given the accumulator element) for every element of the tile, with the row
  // and column vars and the block iter vars computable there bound.
  auto each = [&](const std::string& rb, const std::string& cb, bool constant,
                  const std::function<void(const std::string&)>& body) {
    const std::string r = Fresh("r");
    const std::string c = Fresh("c");
    if (constant) Line("PS_UNROLL");
    Line("for (int64_t " + r + " = 0; " + r + " < " + rb + "; ++" + r + ") {");
    ++indent_;
    Line("PS_IVDEP");
    if (constant) Line("PS_UNROLL");  // unrolled, GCC vectorizes the straight-line lanes
    Line("for (int64_t " + c + " = 0; " + c + " < " + cb + "; ++" + c + ") {");
    ++indent_;
    // GCC unrolls at most 16 iterations of each loop (PS_UNROLL).
    const int64_t saved_unroll = unroll_;
    if (constant) {
      unroll_ *= std::min<int64_t>(plan.reg_rows, 16) * std::min<int64_t>(plan.reg_cols, 16);
    }
    const std::string rv = Fresh(plan.loops[row]->loop_var()->name());
    const std::string cv = Fresh(plan.loops[col]->loop_var()->name());
    Line("[[maybe_unused]] const " + nm.lt[row] + " " + rv + " = static_cast<" + nm.lt[row] + ">(" +
         nm.tile_start[row] + " + " + r + ");");
    Line("[[maybe_unused]] const " + nm.lt[col] + " " + cv + " = static_cast<" + nm.lt[col] + ">(" +
         nm.tile_start[col] + " + " + c + ");");
    vars_[plan.loops[row]->loop_var().get()] = rv;
    vars_[plan.loops[col]->loop_var().get()] = cv;
    for (size_t i = 0; i < block.iter_vars().size(); ++i) {
      const ir::PrimExpr& value = plan.realize->iter_values()[i];
      bool bound = true;
      ir::VisitTirVars(value,
                       [&](const ir::TirVar& v) { bound = bound && vars_.count(v.get()) != 0; });
      if (bound) BindVar(block.iter_vars()[i].var, Expr(value));
    }
    body(acc + "[" + r + "][" + c + "]");
    unroll_ = saved_unroll;
    for (const ir::IterVar& iv : block.iter_vars()) vars_.erase(iv.var.get());
    --indent_;
    Line("}");
    --indent_;
    Line("}");
  };
  // Step 2: the accumulators' type; a 16-bit float accumulates as its value (see above).
  const bool as_value = IsHalf(dt) || IsBF16(dt);
  const std::string acc_type = as_value ? ValueType(dt) : st;
  auto to_acc = [&](const std::string& value) {
    return as_value ? RoundOnce(dt, value) : ToStorage(dt, value);
  };
  auto tile = [&](const std::string& rb, const std::string& cb, bool constant) {
    Line(acc_type + " " + acc + "[" + IntLiteral(plan.reg_rows) + "][" + IntLiteral(plan.reg_cols) +
         "];");
    each(rb, cb, constant, [&](const std::string& a) {
      const std::string element = Element(store->buffer(), store->indices());
      Line(a + " = " + (as_value ? FromStorage(dt, element) : element) + ";");
    });
    // Step 3.
    for (int l : order_loops) {
      const std::string& v = nm.var[l];
      Line("for (" + nm.lt[l] + " " + v + " = " + nm.lo[l] + "; " + v + " < " + nm.hi[l] + "; ++" +
           v + ") {");
      ++indent_;
      vars_[plan.loops[l]->loop_var().get()] = v;
    }
    if (init != nullptr) {
      std::optional<std::string> cond =
          HoistedInit(plan, {plan.loops[col]->loop_var().get(), plan.loops[row]->loop_var().get()});
      PS_CHECK(cond.has_value());
      Line("if (" + *cond + ") {");
      ++indent_;
      each(rb, cb, constant,
           [&](const std::string& a) { Line(a + " = " + to_acc(Expr(init->value())) + ";"); });
      --indent_;
      Line("}");
    }
    each(rb, cb, constant, [&](const std::string& a) {
      acc_buffer_ = &store->buffer();
      acc_element_ = as_value ? a : FromStorage(dt, a);
      std::string value = Expr(store->value());
      acc_buffer_ = nullptr;
      Line(a + " = " + to_acc(value) + ";");
    });
    for (size_t k = 0; k < order_loops.size(); ++k) {
      vars_.erase(order_vars[k]);
      --indent_;
      Line("}");
    }
    // Step 4.
    each(rb, cb, constant, [&](const std::string& a) {
      Line(Element(store->buffer(), store->indices()) + " = " + (as_value ? ToStorage(dt, a) : a) +
           ";");
    });
  };
  Line("if (" + rows + " == " + IntLiteral(plan.reg_rows) + " && " + cols +
       " == " + IntLiteral(plan.reg_cols) + ") {");
  ++indent_;
  tile(IntLiteral(plan.reg_rows), IntLiteral(plan.reg_cols), true);
  --indent_;
  Line("} else {");
  ++indent_;
  tile(rows, cols, false);
  --indent_;
  Line("}");
  --indent_;
  Line("}");
}

}  // namespace pipesplit::codegen
