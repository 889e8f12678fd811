// legalize-ops rules of the reductions that carry the arithmetic of a model: matmul (one
// `matmul` reduction block, batch dims broadcast), nn.rms_norm (an `Ared_temp` sum of squares
// in float32, then `rms_norm`), and nn.softmax (T_softmax_maxelem, T_softmax_exp,
// T_softmax_expsum, T_softmax_norm). The formulas are those of the runtime's reference kernels
// (src/runtime/kernels/norm.cc), so only the order of summation differs.
#include "pipesplit/ir/arith.h"
#include "pipesplit/ir/op.h"
#include "src/transform/legalize_ops_tir.h"

namespace pipesplit::transform::legalize {
namespace {

using ir::BinaryOp;

PrimExpr Times(PrimExpr a, PrimExpr b) {
  return ir::MakeBinary(BinaryOp::kMul, std::move(a), std::move(b));
}

std::optional<LoweredCall> LowerMatmul(const ir::CallNode& call) {
  auto out_type = Result(call);
  auto a_type = KnownTensor(call.args()[0]);
  auto b_type = KnownTensor(call.args()[1]);
  if (!out_type || !a_type || !b_type || a_type->shape.size() < 2 || b_type->shape.size() < 2) {
    return std::nullopt;
  }
  KernelBuilder kb("matmul");
  ir::Buffer a = kb.Input(call.args()[0], *a_type);
  ir::Buffer b = kb.Input(call.args()[1], *b_type);
  ir::Buffer out = kb.Output("matmul", *out_type);
  const size_t rank = out->shape().size();
  const std::vector<PrimExpr> out_batch(out->shape().begin(), out->shape().end() - 2);
  auto batch_of = [](const ir::Buffer& buf) {
    return std::vector<PrimExpr>(buf->shape().begin(), buf->shape().end() - 2);
  };
  const DataType dtype = out->dtype();
  kb.Reduce("matmul", out, {a->shape().back()}, KernelBuilder::Combiner::kSum, Imm(dtype, 0),
            [&](const Indices& v) {
              Indices batch(v.begin(), v.begin() + (rank - 2));
              const PrimExpr& k = v[rank];
              Indices ai = BroadcastIndices(batch, out_batch, batch_of(a));
              ai.push_back(v[rank - 2]);
              ai.push_back(k);
              Indices bi = BroadcastIndices(batch, out_batch, batch_of(b));
              bi.push_back(k);
              bi.push_back(v[rank - 1]);
              return Times(Cast(dtype, Load(a, ai)), Cast(dtype, Load(b, bi)));
            });
  return kb.Finish();
}

// The normalized axes of a call's `axes` / `axis` attribute when they are the trailing dims
// of a rank-`ndim` tensor; 0 when they are not (or unknown).
size_t TrailingAxes(const ir::CallNode& call, size_t ndim) {
  std::optional<ir::AttrValue> value = ir::GetAttrOrDefault(call, "axes");
  if (!value || value->as_list() == nullptr) return 0;
  std::vector<int64_t> axes;
  for (const ir::AttrValue& item : *value->as_list()) {
    std::optional<int64_t> a = item.ToInt();
    if (!a) return 0;
    axes.push_back(*a < 0 ? *a + static_cast<int64_t>(ndim) : *a);
  }
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] != static_cast<int64_t>(ndim - axes.size() + i)) return 0;
  }
  return axes.size();
}

std::optional<LoweredCall> LowerRmsNorm(const ir::CallNode& call) {
  auto out_type = Result(call);
  auto x_type = KnownTensor(call.args()[0]);
  auto w_type = KnownTensor(call.args()[1]);
  std::optional<ir::AttrValue> eps_attr = ir::GetAttrOrDefault(call, "epsilon");
  if (!out_type || !x_type || !w_type || !x_type->dtype.is_float() || !eps_attr) {
    return std::nullopt;
  }
  const double* eps = eps_attr->as_float();
  const size_t ndim = x_type->shape.size();
  const size_t m = TrailingAxes(call, ndim);
  if (eps == nullptr || m == 0 || w_type->shape.size() != m) return std::nullopt;
  const DataType f32 = DataType::Float(32);
  KernelBuilder kb("rms_norm");
  ir::Buffer x = kb.Input(call.args()[0], *x_type);
  ir::Buffer w = kb.Input(call.args()[1], *w_type);
  ir::Buffer out = kb.Output("rms_norm", *out_type);
  const std::vector<PrimExpr> kept(x->shape().begin(), x->shape().end() - m);
  const std::vector<PrimExpr> reduced(x->shape().end() - m, x->shape().end());
  ir::Buffer sum = kb.Alloc("Ared_temp", f32, kept);
  kb.Reduce("Ared_temp", sum, reduced, KernelBuilder::Combiner::kSum, Imm(f32, 0),
            [&](const Indices& v) {
              PrimExpr e = Cast(f32, Load(x, v));
              return Times(e, e);
            });
  PrimExpr count = ir::ShapeProduct(reduced);
  PrimExpr count_f = ir::AsConstInt(count) ? Imm(f32, static_cast<double>(*ir::AsConstInt(count)))
                                           : Cast(f32, count);
  kb.Compute(
      "rms_norm", out,
      [&](const Indices& v) {
        Indices kept_v(v.begin(), v.end() - m), reduced_v(v.end() - m, v.end());
        PrimExpr mean = ir::MakeBinary(BinaryOp::kDiv, Load(sum, kept_v), count_f);
        PrimExpr r =
            ir::MakeBinary(BinaryOp::kDiv, Imm(f32, 1),
                           Call("sqrt", ir::MakeBinary(BinaryOp::kAdd, mean, Imm(f32, *eps))));
        PrimExpr e = Times(Times(r, Cast(f32, Load(x, v))), Cast(f32, Load(w, reduced_v)));
        return Cast(out->dtype(), e);
      },
      "i");
  return kb.Finish();
}

std::optional<LoweredCall> LowerSoftmax(const ir::CallNode& call) {
  auto out_type = Result(call);
  auto x_type = KnownTensor(call.args()[0]);
  std::optional<ir::AttrValue> axis_attr = ir::GetAttrOrDefault(call, "axis");
  if (!out_type || !x_type || !x_type->dtype.is_float() || !axis_attr || !axis_attr->ToInt()) {
    return std::nullopt;
  }
  const size_t ndim = x_type->shape.size();
  int64_t axis_value = *axis_attr->ToInt();
  if (axis_value < 0) axis_value += static_cast<int64_t>(ndim);
  const size_t axis = static_cast<size_t>(axis_value);
  KernelBuilder kb("softmax");
  ir::Buffer x = kb.Input(call.args()[0], *x_type);
  ir::Buffer out = kb.Output("T_softmax_norm", *out_type);
  const DataType dtype = out->dtype();
  std::vector<PrimExpr> kept = x->shape();
  kept.erase(kept.begin() + axis);
  ir::Buffer max = kb.Alloc("T_softmax_maxelem", dtype, kept);
  ir::Buffer exp = kb.Alloc("T_softmax_exp", dtype, x->shape());
  ir::Buffer sum = kb.Alloc("T_softmax_expsum", dtype, kept);
  // Full-rank indices from the kept vars followed by the reduction var.
  auto full = [&](const Indices& v) {
    Indices index(v.begin(), v.end() - 1);
    index.insert(index.begin() + axis, v.back());
    return index;
  };
  auto drop_axis = [&](const Indices& v) {
    Indices index = v;
    index.erase(index.begin() + axis);
    return index;
  };
  kb.Reduce("T_softmax_maxelem", max, {x->shape()[axis]}, KernelBuilder::Combiner::kMax,
            MinValue(dtype), [&](const Indices& v) { return Load(x, full(v)); });
  kb.Compute(
      "T_softmax_exp", exp,
      [&](const Indices& v) {
        return Call("exp", ir::MakeBinary(BinaryOp::kSub, Load(x, v), Load(max, drop_axis(v))));
      },
      "i");
  kb.Reduce("T_softmax_expsum", sum, {x->shape()[axis]}, KernelBuilder::Combiner::kSum,
            Imm(dtype, 0), [&](const Indices& v) { return Load(exp, full(v)); });
  kb.Compute("T_softmax_norm", out,
             [&](const Indices& v) {
               return ir::MakeBinary(BinaryOp::kDiv, Load(exp, v), Load(sum, drop_axis(v)));
             },
             "i",
             {{"axis", ir::AttrValue(ir::IntImm(static_cast<int64_t>(axis), DataType::Int(32)))}});
  return kb.Finish();
}

}  // namespace

void AddNnRules(std::unordered_map<std::string, Rule>* rules) {
  (*rules)["relax.matmul"] = LowerMatmul;
  (*rules)["relax.nn.rms_norm"] = LowerRmsNorm;
  (*rules)["relax.nn.softmax"] = LowerSoftmax;
}

}  // namespace pipesplit::transform::legalize
