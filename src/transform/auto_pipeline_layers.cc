// Transformer layers for auto-pipeline-stages (see auto_pipeline_layers.h).
#include "src/transform/auto_pipeline_layers.h"

#include <algorithm>
#include <limits>
#include <string>
#include <unordered_map>

#include "pipesplit/ir/functor.h"
#include "pipesplit/ir/protocol.h"
#include "pipesplit/support/diagnostic.h"

namespace pipesplit::transform {
namespace {

// Every Var a binding's value uses.
std::vector<const ir::VarNode*> UsedVars(const ir::Expr& value) {
  struct Collector : ir::ExprVisitor {
    std::vector<const ir::VarNode*> vars;
    void VisitExpr_(const ir::VarNode& var) override { vars.push_back(&var); }
  } collector;
  collector.VisitExpr(value);
  return collector.vars;
}

std::string JoinInts(const std::vector<int64_t>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out;
}

// Replaces the layer partition of the KV cache creations it visits.
class KvPartitionSetter : public ir::ExprMutator {
 public:
  explicit KvPartitionSetter(const std::vector<int64_t>& layers) : layers_(layers) {}

 protected:
  ir::Expr VisitExpr_(const ir::Ptr<ir::CallNode>& node) override {
    ir::Expr visited = ir::ExprMutator::VisitExpr_(node);
    const auto* call = ir::As<ir::CallNode>(visited);
    // R.call_packed(create, sizes, partition, ...) or call_pure_packed(create, sizes, ...).
    size_t at = 0;
    if (ir::IsExternCall(visited, ir::protocol::kPagedKvCacheCreate) != nullptr) {
      at = 1;
    } else if (const ir::ExternFuncNode* callee = ir::PackedCallee(*call);
               callee != nullptr && callee->global_symbol() == ir::protocol::kPagedKvCacheCreate) {
      at = 2;
    } else {
      return visited;
    }
    const auto* shape = at < call->args().size() ? ir::As<ir::ShapeExprNode>(call->args()[at])
                                                 : static_cast<const ir::ShapeExprNode*>(nullptr);
    const Span span = shape != nullptr && shape->span().valid() ? shape->span() : call->span();
    std::vector<int64_t> old;
    if (shape != nullptr) {
      for (const ir::PrimExpr& v : shape->values()) {
        std::optional<int64_t> c = ir::AsConstInt(v);
        if (!c) {
          old.clear();
          break;
        }
        old.push_back(*c);
      }
    }
    if (old.size() < 2) {
      ThrowError(span, std::string("auto-pipeline-stages: the layer partition of ") +
                           ir::protocol::kPagedKvCacheCreate +
                           " must be a shape of constants R.shape([0, ..., L])");
    }
    if (old.front() != 0 || old.back() != layers_.back()) {
      ThrowError(span, "auto-pipeline-stages: the KV cache's layer partition [" + JoinInts(old) +
                           "] does not span the " + std::to_string(layers_.back()) +
                           " transformer layers the weights name");
    }
    std::vector<ir::PrimExpr> values;
    for (int64_t l : layers_) values.push_back(ir::IntImm(l));
    std::vector<ir::Expr> args = call->args();
    args[at] = ir::Make<ir::ShapeExprNode>(std::move(values), shape->span());
    return ir::Make<ir::CallNode>(call->op(), std::move(args), call->attrs(), call->sinfo_args(),
                                  call->struct_info(), call->span());
  }

 private:
  const std::vector<int64_t>& layers_;
};

}  // namespace

std::optional<int64_t> LayerOfWeightName(std::string_view name) {
  static constexpr std::string_view kLayers = "layers";
  for (size_t at = name.find(kLayers); at != std::string_view::npos;
       at = name.find(kLayers, at + 1)) {
    if (at != 0 && name[at - 1] != '.' && name[at - 1] != '_') continue;
    const size_t sep_at = at + kLayers.size();
    if (sep_at >= name.size() || (name[sep_at] != '.' && name[sep_at] != '_')) continue;
    const char sep = name[sep_at];
    size_t digits = sep_at + 1, end = digits;
    while (end < name.size() && name[end] >= '0' && name[end] <= '9') ++end;
    if (end == digits || end >= name.size() || name[end] != sep || end - digits > 9) continue;
    return std::stoll(std::string(name.substr(digits, end - digits)));
  }
  return std::nullopt;
}

LayerCuts FindLayerCuts(const analysis::FunctionProfile& p) {
  const int m = static_cast<int>(p.size());
  LayerCuts out;
  out.layer_after.assign(m + 1, -1);
  // The layer of each binding: that of the weight it reads, else the latest layer of the
  // bindings and weights it uses (-1: none); then the first and last binding of each layer.
  std::unordered_map<const ir::VarNode*, int64_t> layer_of;
  std::vector<int> lo, hi;
  for (int i = 0; i < m; ++i) {
    const ir::Binding& b = p.bindings[i];
    int64_t layer = -1;
    if (p.weight_index[i] >= 0) {
      layer = LayerOfWeightName(b->var()->name_hint()).value_or(-1);
    } else {
      for (const ir::VarNode* used : UsedVars(b->value())) {
        auto it = layer_of.find(used);
        if (it != layer_of.end()) layer = std::max(layer, it->second);
      }
    }
    if (layer < 0) continue;
    layer_of[b->var().get()] = layer;
    if (layer >= static_cast<int64_t>(lo.size())) {
      lo.resize(layer + 1, std::numeric_limits<int>::max());
      hi.resize(layer + 1, -1);
    }
    lo[layer] = std::min(lo[layer], i);
    hi[layer] = std::max(hi[layer], i);
  }
  out.num_layers = static_cast<int>(lo.size());
  int prefix_hi = -1;
  for (int l = 0; l + 1 < out.num_layers; ++l) {
    prefix_hi = std::max(prefix_hi, hi[l]);
    int suffix_lo = std::numeric_limits<int>::max();
    for (int k = l + 1; k < out.num_layers; ++k) suffix_lo = std::min(suffix_lo, lo[k]);
    const int cut = prefix_hi + 1;
    if (prefix_hi < 0 || suffix_lo == std::numeric_limits<int>::max() || cut > suffix_lo) {
      continue;
    }
    if (out.layer_after[cut] < 0) out.layer_after[cut] = l;
  }
  return out;
}

ir::IRModule SetKvCacheLayerPartition(const ir::IRModule& mod, const std::vector<int64_t>& layers) {
  ir::IRModule out = mod;
  for (const ir::IRModule::Member& member : mod.members()) {
    if (ir::As<ir::FunctionNode>(member.func) == nullptr) continue;
    KvPartitionSetter setter(layers);
    ir::Expr func = setter.VisitExpr(member.func);
    if (func != member.func) out.Update(member.gvar, func);
  }
  return out;
}

}  // namespace pipesplit::transform
