// The kernel emitter's planned loop nests (loop_plan.cc states when a nest may be reordered)
// and parallel loops. A planned nest evaluates its loop bounds once, runs its leading index
// loops (never the innermost loop) as one flattened range through the runtime's parallel
// launch, moves the planned loop innermost (cut into tiles when planned) and unswitches that
// loop on the block's T.init condition, so that the innermost loop has no branch and the C++
// compiler vectorizes it. A T.parallel loop runs its iterations through the launch. Inside a
// launched body every loop runs serially.
#include <optional>
#include <string>
#include <vector>

#include "src/codegen/kernel_emitter.h"

namespace pipesplit::codegen {

using ir::PrimExpr;

void KernelEmitter::EmitNest(const NestPlan& plan) {
  const size_t n = plan.loops.size();
  Line("{  // loop nest, " + std::string(plan.moved < 0 ? "as written" : "reordered"));
  ++indent_;
  std::vector<std::string> lt(n), lo(n), hi(n), var(n), count(n);
  for (size_t i = 0; i < n; ++i) {  // the box is the same in every iteration (rule 2)
    const ir::ForNode& loop = *plan.loops[i];
    lt[i] = ValueType(loop.loop_var()->dtype());
    lo[i] = Fresh("lo");
    hi[i] = Fresh("hi");
    var[i] = Fresh(loop.loop_var()->name());
    count[i] = Fresh("count");
    Line("const " + lt[i] + " " + lo[i] + " = static_cast<" + lt[i] + ">(" + Expr(loop.min()) +
         ");");
    Line("const " + lt[i] + " " + hi[i] + " = ps_add<" + lt[i] + ">(" + lo[i] + ", static_cast<" +
         lt[i] + ">(" + Expr(loop.extent()) + "));");
    Line("const int64_t " + count[i] + " = ps_count(" + lo[i] + ", " + hi[i] + ");");
  }
  std::vector<Emitted> order;
  for (size_t i = 0; i < n; ++i) {
    if (static_cast<int>(i) != plan.moved) {
      order.push_back({static_cast<int>(i), Part::kWhole});
    } else if (plan.tile > 0) {
      order.push_back({plan.moved, Part::kTiles});
    }
  }
  if (plan.moved >= 0) order.push_back({plan.moved, plan.tile > 0 ? Part::kInTile : Part::kWhole});
  const std::string tile = IntLiteral(plan.tile);
  const std::string tile_start = Fresh("tile");
  const std::string tile_end = Fresh("tile_end");
  auto iterations = [&](const Emitted& e) {
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
    Line("const " + lt[l] + " " + tile_start + " = ps_add<" + lt[l] + ">(" + lo[l] +
         ", static_cast<" + lt[l] + ">((" + index + ") * " + tile + "));");
    Line("const " + lt[l] + " " + tile_end + " = static_cast<int64_t>(" + hi[l] + ") - " +
         tile_start + " > " + tile + " ? static_cast<" + lt[l] + ">(" + tile_start + " + " + tile +
         ") : " + hi[l] + ";");
  };
  // A parallel launch runs the leading index loops (never the innermost loop).
  size_t prefix = 0;
  while (!in_parallel_ && prefix + 1 < order.size() && order[prefix].part != Part::kInTile &&
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
  for (size_t k = prefix; k + 1 < order.size(); ++k) {
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
  // The innermost loop; the moved loop is unswitched on the block's T.init condition when
  // that does not depend on it, so that its body has no branch and vectorizes.
  const Emitted& e = order.back();
  const int l = e.loop;
  auto innermost = [&](InitMode mode) {
    if (l == plan.moved) Line("PS_IVDEP");
    std::string from = e.part == Part::kInTile ? tile_start : lo[l];
    std::string to = e.part == Part::kInTile ? tile_end : hi[l];
    Line("for (" + lt[l] + " " + var[l] + " = " + from + "; " + var[l] + " < " + to + "; ++" +
         var[l] + ") {");
    ++indent_;
    init_mode_ = mode;
    EmitBlock(*plan.realize);
    --indent_;
    Line("}");
  };
  std::optional<std::string> init = l == plan.moved ? HoistedInit(plan) : std::nullopt;
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
  for (size_t i = 0; i < n; ++i) vars_.erase(plan.loops[i]->loop_var().get());
  for (size_t k = prefix; k + 1 < order.size(); ++k) {
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

std::optional<std::string> KernelEmitter::HoistedInit(const NestPlan& plan) {
  const ir::BlockNode& block = *plan.realize->block();
  if (!block.init()) return std::nullopt;
  const ir::TirVarNode* moved = plan.loops[plan.moved]->loop_var().get();
  bool ok = true;
  auto outside = [&](const PrimExpr& x) {
    ir::VisitTirVars(
        x, [&](const ir::TirVar& v) { ok = ok && v.get() != moved && vars_.count(v.get()) != 0; });
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
