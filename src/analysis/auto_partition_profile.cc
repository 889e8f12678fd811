// Profiles of functions for the automatic partitioner (see auto_partition.h): per binding cost,
// activation bytes and weight reads; per cut the live values and whether it is a cut point.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "pipesplit/analysis/auto_partition.h"
#include "pipesplit/analysis/cost_model.h"
#include "pipesplit/ir/functor.h"
#include "pipesplit/ir/protocol.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/diagnostic.h"

namespace pipesplit::analysis {

using namespace ir;  // NOLINT: IR node names throughout

namespace {

// Every Var a binding's value uses.
std::vector<const VarNode*> UsedVars(const Expr& value) {
  struct Collector : ExprVisitor {
    std::vector<const VarNode*> vars;
    void VisitExpr_(const VarNode& var) override { vars.push_back(&var); }
  } collector;
  collector.VisitExpr(value);
  return collector.vars;
}

int64_t Picoseconds(double amount, double rate) {
  return rate > 0 ? static_cast<int64_t>(std::ceil(amount / rate * 1e12)) : 0;
}

}  // namespace

std::vector<Var> FunctionProfile::CrossingValues(int cut) const {
  std::vector<Var> out;
  for (int i = 0; i < cut && i < static_cast<int>(bindings.size()); ++i) {
    if (last_use[i] >= cut) out.push_back(bindings[i]->var());
  }
  return out;
}

FunctionProfile ProfileFunction(const IRModule& mod, const GlobalVar& gvar, const Function& func,
                                const PartitionOptions& options) {
  FunctionProfile p;
  p.gvar = gvar;
  p.func = func;
  const auto* seq = As<SeqExprNode>(func->body());
  PS_CHECK(seq != nullptr && seq->blocks().size() == 1) << "profile of a function not checked";
  p.bindings = seq->blocks()[0]->bindings();
  const Var& packed = func->params().back();
  if (const auto* tuple = As<TupleSInfoNode>(packed->struct_info())) {
    p.weight_bytes.resize(tuple->fields().size(), 0);
  }
  ShapeBounds bounds(func, options.assume);
  if (const auto* tuple = As<TupleSInfoNode>(packed->struct_info())) {
    for (size_t i = 0; i < tuple->fields().size(); ++i) {
      std::optional<int64_t> b = bounds.Bytes(tuple->fields()[i]);
      if (!b) {
        ThrowError(packed->span(), "auto-pipeline-stages: cannot size weight " + std::to_string(i) +
                                       " of '" + gvar->name_hint() + "': symbolic var '" +
                                       bounds.FirstUnbound(tuple->fields()[i]) +
                                       "' has no bound (add assume=" +
                                       bounds.FirstUnbound(tuple->fields()[i]) + ":VALUE)");
      }
      p.weight_bytes[i] = *b;
    }
  }
  const size_t m = p.bindings.size();
  CostModel model(mod);
  std::unordered_map<const VarNode*, int> pos;
  p.flops.resize(m);
  p.time_ps.resize(m);
  p.act_bytes.resize(m);
  p.weight_index.assign(m, -1);
  p.last_use.assign(m, -1);
  p.def_pos.resize(m);
  for (size_t i = 0; i < m; ++i) {
    const Binding& b = p.bindings[i];
    pos[b->var().get()] = static_cast<int>(i);
    p.def_pos[i] = static_cast<int>(i);
    if (const auto* get = As<TupleGetItemNode>(b->value())) {
      if (get->tuple().get() == packed.get()) p.weight_index[i] = get->index();
    }
    for (const VarNode* used : UsedVars(b->value())) {
      auto it = pos.find(used);
      if (it != pos.end()) p.last_use[it->second] = static_cast<int>(i);
    }
    std::optional<Cost> cost = model.BindingCost(b, bounds);
    std::optional<int64_t> out = bounds.Bytes(b->var()->struct_info());
    if (!cost || !out) {
      std::string var = bounds.FirstUnbound(b->var()->struct_info());
      ThrowError(b->span(),
                 "auto-pipeline-stages: cannot evaluate the cost of '" + b->var()->name_hint() +
                     "' in '" + gvar->name_hint() + "'" +
                     (var.empty() ? std::string(": unknown shape")
                                  : ": symbolic var '" + var + "' has no bound (add assume=" + var +
                                        ":VALUE or a tir_var_upper_bound)"));
    }
    p.flops[i] = cost->flops;
    p.time_ps[i] = std::max(Picoseconds(static_cast<double>(cost->flops), options.compute_rate),
                            Picoseconds(static_cast<double>(cost->bytes), options.memory_rate));
    p.act_bytes[i] = p.weight_index[i] >= 0 ? 0 : *out;
  }
  if (const auto* ret = As<VarNode>(seq->body())) {
    auto it = pos.find(ret);
    if (it != pos.end()) p.last_use[it->second] = static_cast<int>(m);
  }
  // Live ranges as difference arrays over the cuts: value i crosses cuts i+1 .. last_use[i].
  std::vector<int64_t> bytes(m + 2, 0);
  std::vector<int> count(m + 2, 0), bad(m + 2, 0);
  for (size_t i = 0; i < m; ++i) {
    if (p.last_use[i] <= static_cast<int>(i)) continue;
    const StructInfo& sinfo = p.bindings[i]->var()->struct_info();
    bool tensor = As<TensorSInfoNode>(sinfo) != nullptr;
    int64_t b = bounds.Bytes(sinfo).value_or(0);
    bytes[i + 1] += b;
    bytes[p.last_use[i] + 1] -= b;
    count[i + 1] += 1;
    count[p.last_use[i] + 1] -= 1;
    if (!tensor || p.weight_index[i] >= 0) {
      bad[i + 1] += 1;
      bad[p.last_use[i] + 1] -= 1;
    }
  }
  p.cross_bytes.assign(m + 1, 0);
  p.cross_count.assign(m + 1, 0);
  p.cut_point.assign(m + 1, false);
  int64_t run_bytes = 0;
  int run_count = 0, run_bad = 0;
  for (size_t c = 0; c <= m; ++c) {
    run_bytes += bytes[c];
    run_count += count[c];
    run_bad += bad[c];
    p.cross_bytes[c] = run_bytes;
    p.cross_count[c] = run_count;
    p.cut_point[c] =
        c > 0 && c < m && run_bad == 0 && run_count >= 1 && run_count <= options.max_crossing;
  }
  p.cross_bytes[0] = p.cross_bytes[m] = 0;
  return p;
}

}  // namespace pipesplit::analysis
