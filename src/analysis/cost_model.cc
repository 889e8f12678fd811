// Cost model of Relax bindings (see cost_model.h): shape bounds and the costs of high-level
// ops from struct info; the TIR loop-nest costs are in cost_model_tir.cc.
#include "pipesplit/analysis/cost_model.h"

#include <string_view>

#include "pipesplit/ir/arith.h"
#include "pipesplit/ir/attr_names.h"
#include "pipesplit/ir/protocol.h"

namespace pipesplit::analysis {

using namespace ir;  // NOLINT: IR node names throughout

ShapeBounds::ShapeBounds(const Function& func, const std::map<std::string, int64_t>& assume)
    : values_(assume) {
  const AttrValue* bounds = func->GetAttr(attr::kTirVarUpperBound);
  if (const AttrMap* map = bounds != nullptr ? bounds->as_map() : nullptr) {
    for (const auto& [name, value] : *map) {
      std::optional<int64_t> v = value.ToInt();
      if (v && !values_.count(name)) values_[name] = *v;
    }
  }
  // Declared non-negative and bounded nowhere: counted as 1, so that a tensor is costed by its
  // other dims (see cost_model.h).
  const AttrValue* non_negative = func->GetAttr(attr::kTirNonNegativeVar);
  if (const AttrList* list = non_negative != nullptr ? non_negative->as_list() : nullptr) {
    for (const AttrValue& value : *list) {
      if (const std::string* name = value.as_string(); name != nullptr && !values_.count(*name)) {
        values_[*name] = 1;
      }
    }
  }
}

std::optional<int64_t> ShapeBounds::Eval(const PrimExpr& e, const TirVarMap& extra) const {
  if (!e) return std::nullopt;
  if (auto c = AsConstInt(e)) return c;
  TirVarMap map = extra;
  bool unbound = false;
  VisitTirVars(e, [&](const TirVar& var) {
    if (map.count(var.get())) return;
    auto it = values_.find(var->name());
    if (it == values_.end()) {
      unbound = true;
    } else {
      map[var.get()] = IntImm(it->second, var->dtype());
    }
  });
  if (unbound) return std::nullopt;
  return AsConstInt(Simplify(Substitute(e, map)));
}

std::optional<int64_t> ShapeBounds::Elements(const StructInfo& sinfo) const {
  const auto* t = As<TensorSInfoNode>(sinfo);
  if (t == nullptr || !t->shape()) return std::nullopt;
  int64_t n = 1;
  for (const PrimExpr& d : *t->shape()) {
    std::optional<int64_t> v = Eval(d);
    if (!v) return std::nullopt;
    n *= *v;
  }
  return n;
}

std::optional<int64_t> ShapeBounds::Bytes(const StructInfo& sinfo) const {
  if (const auto* t = As<TensorSInfoNode>(sinfo)) {
    std::optional<int64_t> n = Elements(sinfo);
    if (!n || t->dtype().is_void()) return std::nullopt;
    return *n * t->dtype().bytes();
  }
  if (const auto* tuple = As<TupleSInfoNode>(sinfo)) {
    int64_t total = 0;
    for (const StructInfo& f : tuple->fields()) {
      std::optional<int64_t> b = Bytes(f);
      if (!b) return std::nullopt;
      total += *b;
    }
    return total;
  }
  return 0;
}

std::string ShapeBounds::FirstUnbound(const StructInfo& sinfo) const {
  std::string found;
  VisitTirVars(sinfo, [&](const TirVar& var) {
    if (found.empty() && !values_.count(var->name())) found = var->name();
  });
  return found;
}

namespace {

// Ops that only move or create data: no arithmetic.
bool IsDataMovement(std::string_view name) {
  static constexpr std::string_view kOps[] = {"relax.reshape",
                                              "relax.permute_dims",
                                              "relax.take",
                                              "relax.strided_slice",
                                              "relax.concat",
                                              "relax.split",
                                              "relax.expand_dims",
                                              "relax.squeeze",
                                              "relax.flatten",
                                              "relax.broadcast_to",
                                              "relax.tile",
                                              "relax.repeat",
                                              "relax.flip",
                                              "relax.gather_elements",
                                              "relax.gather_nd",
                                              "relax.scatter_elements",
                                              "relax.scatter_nd",
                                              "relax.full",
                                              "relax.full_like",
                                              "relax.zeros",
                                              "relax.zeros_like",
                                              "relax.ones",
                                              "relax.ones_like",
                                              "relax.arange",
                                              "relax.triu",
                                              "relax.tril",
                                              "relax.astype",
                                              "relax.layout_transform",
                                              "relax.dynamic_strided_slice",
                                              "relax.stack",
                                              "relax.index_tensor",
                                              "relax.eye",
                                              "relax.collapse_sum_to",
                                              "relax.shape_of",
                                              "relax.call_pure_packed",
                                              "relax.call_dps_packed",
                                              "relax.call_builtin_with_ctx"};
  for (std::string_view op : kOps) {
    if (name == op) return true;
  }
  return false;
}

// Reductions: one FLOP per input element.
bool IsReduction(std::string_view name) {
  static constexpr std::string_view kOps[] = {
      "relax.sum",      "relax.mean",   "relax.max",    "relax.min",    "relax.prod",   "relax.std",
      "relax.variance", "relax.argmax", "relax.argmin", "relax.cumsum", "relax.cumprod"};
  for (std::string_view op : kOps) {
    if (name == op) return true;
  }
  return false;
}

// Normalizations and softmax: about five FLOPs per element (square or exp, sum, divide, scale).
bool IsNormLike(std::string_view name) {
  return name == "relax.nn.softmax" || name == "relax.nn.log_softmax" ||
         name == "relax.nn.rms_norm" || name == "relax.nn.layer_norm" ||
         name == "relax.nn.group_norm" || name == "relax.nn.instance_norm" ||
         name == "relax.nn.batch_norm";
}

constexpr int64_t kNormFlopsPerElement = 5;

const std::vector<PrimExpr>* ShapeOf(const Expr& e) {
  const auto* t = As<TensorSInfoNode>(e->struct_info());
  return t != nullptr && t->shape() ? &*t->shape() : nullptr;
}

}  // namespace

std::optional<int64_t> CostModel::OpFlops(const CallNode& call, const ShapeBounds& bounds) const {
  const OpNode* op = call.op_node();
  std::optional<int64_t> out = bounds.Elements(call.struct_info());
  if (op == nullptr) return 0;  // calls of functions and closures: not costed
  std::string_view name = op->name();
  if (name == "relax.call_tir" || name == "relax.call_tir_inplace") {
    if (auto flops = CallTirFlops(call, bounds)) return flops;
    return out ? *out : 0;
  }
  if (IsDataMovement(name)) return 0;
  if (name == "relax.matmul" && call.args().size() >= 2) {
    const auto* a = ShapeOf(call.args()[0]);
    std::optional<int64_t> k = a != nullptr && !a->empty() ? bounds.Eval(a->back()) : std::nullopt;
    if (!out || !k) return std::nullopt;
    return 2 * *out * *k;
  }
  if (name.substr(0, 13) == "relax.nn.conv" && call.args().size() >= 2) {
    // Each output element: a dot product over in_channels / groups x the kernel window.
    const auto* w = ShapeOf(call.args()[1]);
    if (!out || w == nullptr || w->size() < 2) return std::nullopt;
    int64_t window = 1;
    for (size_t i = 1; i < w->size(); ++i) {
      std::optional<int64_t> d = bounds.Eval((*w)[i]);
      if (!d) return std::nullopt;
      window *= *d;
    }
    return 2 * *out * window;
  }
  if (name.substr(0, 18) == "relax.nn.attention" && call.args().size() >= 3) {
    // q [B, Sq, H, D], k [B, Sk, H, D]: QK^T and PV (2 * 2 * B*H*Sq*Sk*D) plus the softmax.
    const auto* q = ShapeOf(call.args()[0]);
    const auto* k = ShapeOf(call.args()[1]);
    if (q == nullptr || k == nullptr || q->size() != 4 || k->size() != 4) return out;
    auto b = bounds.Eval((*q)[0]), sq = bounds.Eval((*q)[1]), h = bounds.Eval((*q)[2]),
         d = bounds.Eval((*q)[3]), sk = bounds.Eval((*k)[1]);
    if (!b || !sq || !h || !d || !sk) return std::nullopt;
    int64_t scores = *b * *h * *sq * *sk;
    return 4 * scores * *d + kNormFlopsPerElement * scores;
  }
  if (IsNormLike(name)) return out ? std::optional<int64_t>(kNormFlopsPerElement * *out) : out;
  if (IsReduction(name)) {
    if (call.args().empty()) return 0;
    return bounds.Elements(call.args()[0]->struct_info());
  }
  // Element-wise and everything else with a tensor result: one FLOP per output element.
  if (As<TensorSInfoNode>(call.struct_info()) == nullptr) return 0;
  return out;
}

std::optional<int64_t> CostModel::CallTirFlops(const CallNode& call,
                                               const ShapeBounds& bounds) const {
  if (call.args().size() < 2) return std::nullopt;
  const auto* gvar = As<GlobalVarNode>(call.args()[0]);
  if (gvar == nullptr) return std::nullopt;
  auto func = Cast<PrimFuncNode>(mod_.Lookup(gvar->name_hint()));
  if (!func) return std::nullopt;
  // The kernel's parameters take, in order: the arguments, the outputs, the tir_vars.
  std::vector<StructInfo> tensors;
  if (const auto* tuple = As<TupleNode>(call.args()[1])) {
    for (const Expr& f : tuple->fields()) tensors.push_back(f->struct_info());
  } else {
    tensors.push_back(call.args()[1]->struct_info());
  }
  const StructInfo& out = call.sinfo_args().empty() ? call.struct_info() : call.sinfo_args()[0];
  if (const auto* tuple = As<TupleSInfoNode>(out)) {
    for (const StructInfo& f : tuple->fields()) tensors.push_back(f);
  } else {
    tensors.push_back(out);
  }
  std::vector<PrimExpr> scalars;
  if (call.args().size() >= 3) {
    if (const auto* shape = As<ShapeExprNode>(call.args()[2])) scalars = shape->values();
  }
  TirVarMap values;
  size_t tensor_i = 0, scalar_i = 0;
  for (const TirVar& param : func->params()) {
    const Buffer* buffer = func->BufferOf(param.get());
    if (buffer == nullptr) {
      if (scalar_i < scalars.size()) {
        if (auto v = bounds.Eval(scalars[scalar_i])) values[param.get()] = IntImm(*v);
      }
      ++scalar_i;
      continue;
    }
    if (tensor_i >= tensors.size()) return std::nullopt;
    const auto* t = As<TensorSInfoNode>(tensors[tensor_i++]);
    if (t == nullptr || !t->shape() || t->shape()->size() != (*buffer)->shape().size()) continue;
    // A buffer dim that is a bare var takes the value of the tensor's dim.
    for (size_t i = 0; i < t->shape()->size(); ++i) {
      const auto* var = As<TirVarNode>((*buffer)->shape()[i]);
      if (var == nullptr || values.count(var)) continue;
      if (auto v = bounds.Eval((*t->shape())[i])) values[var] = IntImm(*v);
    }
  }
  return KernelFlops(func, values, bounds);
}

std::optional<Cost> CostModel::BindingCost(const Binding& binding,
                                           const ShapeBounds& bounds) const {
  const Expr& value = binding->value();
  Cost cost;
  const auto* call = As<CallNode>(value);
  if (call == nullptr) return cost;  // weight reads, tuples, aliases: no work
  std::optional<int64_t> flops = OpFlops(*call, bounds);
  if (!flops) return std::nullopt;
  cost.flops = *flops;
  auto add_bytes = [&](const StructInfo& sinfo) {
    std::optional<int64_t> b = bounds.Bytes(sinfo);
    if (!b) return false;
    cost.bytes += *b;
    return true;
  };
  for (const Expr& arg : call->args()) {
    if (const auto* tuple = As<TupleNode>(arg)) {
      for (const Expr& f : tuple->fields()) {
        if (!add_bytes(f->struct_info())) return std::nullopt;
      }
    } else if (!add_bytes(arg->struct_info())) {
      return std::nullopt;
    }
  }
  if (!add_bytes(binding->var()->struct_info())) return std::nullopt;
  return cost;
}

}  // namespace pipesplit::analysis
