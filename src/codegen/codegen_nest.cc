// The kernel emitter's planned loop nests (loop_plan.cc states when a nest may be reordered)
// and parallel loops. A planned nest evaluates its loop bounds once, runs its leading index
// loops (never the innermost loop) as one flattened range through the runtime's parallel
// launch, moves the planned loop innermost (cut into tiles when planned) and unswitches that
// loop on the block's T.init condition, so that the innermost loop has no branch and the C++
// compiler vectorizes it. A T.parallel loop runs its iterations through the launch. Inside a
// launched body every loop runs serially.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "src/codegen/kernel_emitter.h"

namespace pipesplit::codegen {

using ir::PrimExpr;

void KernelEmitter::EmitNest(const NestPlan& plan) {
  const size_t n = plan.loops.size();
  NestNames nm;
  nm.lt.resize(n);
  nm.lo.resize(n);
  nm.hi.resize(n);
  nm.var.resize(n);
  nm.count.resize(n);
  nm.tile_start.resize(n);
  nm.tile_end.resize(n);
  for (size_t i = 0; i < n; ++i) {  // the box is the same in every iteration (rule 2)
    const ir::ForNode& loop = *plan.loops[i];
    nm.lt[i] = ValueType(loop.loop_var()->dtype());
    nm.lo[i] = Fresh("lo");
    nm.hi[i] = Fresh("hi");
    nm.var[i] = Fresh(loop.loop_var()->name());
    nm.count[i] = Fresh("count");
    nm.tile_start[i] = Fresh("tile");
    nm.tile_end[i] = Fresh("tile_end");
  }
  for (size_t i = 0; i < n; ++i) vars_[plan.loops[i]->loop_var().get()] = nm.var[i];
  // The register tile needs the T.init condition outside the row and the moved loop.
  const bool reg = plan.reg_row >= 0 && plan.moved >= 0 &&
                   (!plan.realize->block()->init() ||
                    HoistedInit(plan, {plan.loops[plan.moved]->loop_var().get(),
                                       plan.loops[plan.reg_row]->loop_var().get()}));
  for (size_t i = 0; i < n; ++i) vars_.erase(plan.loops[i]->loop_var().get());
  Line("{  // loop nest, " + std::string(plan.moved < 0 ? "as written"
                                         : reg          ? "register-tiled"
                                                        : "reordered"));
  ++indent_;
  const std::vector<std::string>& lt = nm.lt;
  const std::vector<std::string>& lo = nm.lo;
  const std::vector<std::string>& hi = nm.hi;
  const std::vector<std::string>& var = nm.var;
  const std::vector<std::string>& count = nm.count;
  for (size_t i = 0; i < n; ++i) {
    const ir::ForNode& loop = *plan.loops[i];
    Line("const " + lt[i] + " " + lo[i] + " = static_cast<" + lt[i] + ">(" + Expr(loop.min()) +
         ");");
    Line("const " + lt[i] + " " + hi[i] + " = ps_add<" + lt[i] + ">(" + lo[i] + ", static_cast<" +
         lt[i] + ">(" + Expr(loop.extent()) + "));");
    Line("const int64_t " + count[i] + " = ps_count(" + lo[i] + ", " + hi[i] + ");");
  }
  // The loops around the innermost part: with a register tile, the index loops other than
  // the row and the moved loop, then the column tiles and the row tiles (the tile itself
  // runs the order loops); else every loop but the moved one, its tiles at its place.
  std::vector<Emitted> order;
  std::vector<int64_t> tile_size(n, plan.tile);
  if (reg) {
    for (size_t i = 0; i < n; ++i) {
      const int l = static_cast<int>(i);
      if (plan.is_index[i] && l != plan.moved && l != plan.reg_row)
        order.push_back({l, Part::kWhole});
    }
    // Row tiles innermost: consecutive tiles share the column panel of the right-hand
    // operand (read for every order-loop iteration), which then stays in cache.
    order.push_back({plan.moved, Part::kTiles});
    order.push_back({plan.reg_row, Part::kTiles});
    tile_size[plan.reg_row] = plan.reg_rows;
    tile_size[plan.moved] = plan.reg_cols;
  } else {
    for (size_t i = 0; i < n; ++i) {
      if (static_cast<int>(i) != plan.moved) {
        order.push_back({static_cast<int>(i), Part::kWhole});
      } else if (plan.tile > 0) {
        order.push_back({plan.moved, Part::kTiles});
      }
    }
    if (plan.moved >= 0) {
      order.push_back({plan.moved, plan.tile > 0 ? Part::kInTile : Part::kWhole});
    }
  }
  // The entries emitted as loops here; the last one of the plain order is the innermost loop.
  const size_t outer = reg ? order.size() : order.size() - 1;
  auto iterations = [&](const Emitted& e) {
    const std::string tile = IntLiteral(tile_size[e.loop]);
    if (e.part == Part::kWhole) return count[e.loop];
    if (e.part == Part::kTiles) return "ps_ceil_div(" + count[e.loop] + ", " + tile + ")";
    return tile;
  };
  // Binds the var of e from its iteration number (a C++ int64_t expression).
  auto bind = [&](const Emitted& e, const std::string& index) {
    const int l = e.loop;
    if (e.part == Part::kWhole) {
      Line("const " + lt[l] + " " + var[l] + " = ps_add<" + lt[l] + ">(" + lo[l] +
           ", static_cast<" + lt[l] + ">(" + index + "));");
      return;
    }
    const std::string tile = IntLiteral(tile_size[l]);
    const std::string& ts = nm.tile_start[l];
    Line("const " + lt[l] + " " + ts + " = ps_add<" + lt[l] + ">(" + lo[l] + ", static_cast<" +
         lt[l] + ">((" + index + ") * " + tile + "));");
    Line("const " + lt[l] + " " + nm.tile_end[l] + " = static_cast<int64_t>(" + hi[l] + ") - " +
         ts + " > " + tile + " ? static_cast<" + lt[l] + ">(" + ts + " + " + tile + ") : " + hi[l] +
         ";");
  };
  // A parallel launch runs the leading index loops (never the innermost loop).
  size_t prefix = 0;
  while (!in_parallel_ && prefix < outer && order[prefix].part != Part::kInTile &&
         plan.is_index[order[prefix].loop]) {
    ++prefix;
  }
  const bool was_parallel = in_parallel_;
  if (prefix > 0) {
    std::string total = "INT64_C(1)";
    std::string work = "INT64_C(1)";
    for (size_t k = 0; k < order.size(); ++k) {
      (k < prefix ? total : work) += " * " + iterations(order[k]);
    }
    if (reg) {  // the work of a register tile: its rows x columns x the order loops
      work += " * " + IntLiteral(plan.reg_rows * plan.reg_cols);
      for (size_t i = 0; i < n; ++i) {
        if (!plan.is_index[i]) work += " * " + count[i];
      }
    }
    std::string begin = Fresh("begin");
    std::string end = Fresh("end");
    std::string flat = Fresh("flat");
    Line("ps_parallel_for(ps_kernel, " + total + ", ps_grain(" + work + "), [&](int64_t " + begin +
         ", int64_t " + end + ") {");
    ++indent_;
    Line("for (int64_t " + flat + " = " + begin + "; " + flat + " < " + end + "; ++" + flat +
         ") {");
    ++indent_;
    std::string rest = Fresh("rest");
    Line("[[maybe_unused]] int64_t " + rest + " = " + flat + ";");
    for (size_t k = prefix; k-- > 0;) {
      std::string c = Fresh("c");
      Line("const int64_t " + c + " = " + iterations(order[k]) + ";");
      bind(order[k], rest + " % " + c);
      Line(rest + " /= " + c + ";");
    }
    in_parallel_ = true;
  }
  for (size_t k = prefix; k < outer; ++k) {
    const Emitted& e = order[k];
    const int l = e.loop;
    if (e.part == Part::kTiles) {
      std::string t = Fresh("t");
      Line("for (int64_t " + t + " = 0; " + t + " < " + iterations(e) + "; ++" + t + ") {");
      ++indent_;
      bind(e, t);
      continue;
    }
    Line("for (" + lt[l] + " " + var[l] + " = " + lo[l] + "; " + var[l] + " < " + hi[l] + "; ++" +
         var[l] + ") {");
    ++indent_;
  }
  for (size_t i = 0; i < n; ++i) vars_[plan.loops[i]->loop_var().get()] = var[i];
  if (reg) {
    EmitRegisterTile(plan, nm);
  } else {
    EmitInnermost(plan, nm, order.back());
  }
  for (size_t i = 0; i < n; ++i) vars_.erase(plan.loops[i]->loop_var().get());
  for (size_t k = prefix; k < outer; ++k) {
    --indent_;
    Line("}");
  }
  if (prefix > 0) {
    in_parallel_ = was_parallel;
    --indent_;
    Line("}");
    --indent_;
    Line("});");
  }
  --indent_;
  Line("}");
}

void KernelEmitter::EmitInnermost(const NestPlan& plan, const NestNames& nm, const Emitted& e) {
  // The innermost loop; the moved loop is unswitched on the block's T.init condition when
  // that does not depend on it, so that its body has no branch and vectorizes.
  const int l = e.loop;
  auto innermost = [&](InitMode mode) {
    if (l == plan.moved) Line("PS_IVDEP");
    std::string from = e.part == Part::kInTile ? nm.tile_start[l] : nm.lo[l];
    std::string to = e.part == Part::kInTile ? nm.tile_end[l] : nm.hi[l];
    Line("for (" + nm.lt[l] + " " + nm.var[l] + " = " + from + "; " + nm.var[l] + " < " + to +
         "; ++" + nm.var[l] + ") {");
    ++indent_;
    init_mode_ = mode;
    EmitBlock(*plan.realize);
    --indent_;
    Line("}");
  };
  std::optional<std::string> init =
      l == plan.moved ? HoistedInit(plan, {plan.loops[plan.moved]->loop_var().get()})
                      : std::nullopt;
  if (init) {
    Line("if (" + *init + ") {");
    ++indent_;
    innermost(InitMode::kAlways);
    --indent_;
    Line("} else {");
    ++indent_;
    innermost(InitMode::kNever);
    --indent_;
    Line("}");
  } else {
    innermost(InitMode::kCheck);
  }
}

std::optional<std::string> KernelEmitter::HoistedInit(
    const NestPlan& plan, const std::vector<const ir::TirVarNode*>& inner) {
  const ir::BlockNode& block = *plan.realize->block();
  if (!block.init()) return std::nullopt;
  bool ok = true;
  auto outside = [&](const PrimExpr& x) {
    ir::VisitTirVars(x, [&](const ir::TirVar& v) {
      ok = ok && std::find(inner.begin(), inner.end(), v.get()) == inner.end() &&
           vars_.count(v.get()) != 0;
    });
  };
  std::string cond;
  for (size_t i = 0; i < block.iter_vars().size(); ++i) {
    const ir::IterVar& iv = block.iter_vars()[i];
    if (iv.type != ir::IterVarType::kCommReduce) continue;
    const PrimExpr& value = plan.realize->iter_values()[i];
    outside(value);
    outside(iv.dom.min);
    if (!ok) return std::nullopt;
    std::string vt = ValueType(iv.var->dtype());
    if (!cond.empty()) cond += " && ";
    cond += "static_cast<" + vt + ">(" + Expr(value) + ") == static_cast<" + vt + ">(" +
            Expr(iv.dom.min) + ")";
  }
  return cond.empty() ? std::string("true") : cond;
}

void KernelEmitter::EmitParallelLoop(const ir::ForNode& n) {
  std::string lt = ValueType(n.loop_var()->dtype());
  std::string lo = Fresh("lo");
  std::string hi = Fresh("hi");
  std::string begin = Fresh("begin");
  std::string end = Fresh("end");
  std::string flat = Fresh("flat");
  std::string v = Fresh(n.loop_var()->name());
  Line("{  // T.parallel");
  ++indent_;
  Line("const " + lt + " " + lo + " = static_cast<" + lt + ">(" + Expr(n.min()) + ");");
  Line("const " + lt + " " + hi + " = ps_add<" + lt + ">(" + lo + ", static_cast<" + lt + ">(" +
       Expr(n.extent()) + "));");
  Line("ps_parallel_for(ps_kernel, ps_count(" + lo + ", " + hi + "), 1, [&](int64_t " + begin +
       ", int64_t " + end + ") {");
  ++indent_;
  Line("for (int64_t " + flat + " = " + begin + "; " + flat + " < " + end + "; ++" + flat + ") {");
  ++indent_;
  Line("const " + lt + " " + v + " = ps_add<" + lt + ">(" + lo + ", static_cast<" + lt + ">(" +
       flat + "));");
  vars_[n.loop_var().get()] = v;
  in_parallel_ = true;
  EmitStmt(n.body());
  in_parallel_ = false;
  vars_.erase(n.loop_var().get());
  --indent_;
  Line("}");
  --indent_;
  Line("});");
  --indent_;
  Line("}");
}
}  // namespace pipesplit::codegen
