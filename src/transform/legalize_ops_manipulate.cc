// legalize-ops rules of the data-movement and creation ops: reshape (T_reshape, the output
// index flattened and split over the input's dims), permute_dims (T_transpose), strided_slice
// (T_strided_slice_with_axes), concat (T_concat, nested T.if_then_else from the last input),
// take (T_take, the index read from the indices buffer), full (T_full, a constant fill), and
// triu / tril (trilu, T.Select on the last two dims).
#include "pipesplit/ir/arith.h"
#include "pipesplit/ir/op.h"
#include "src/transform/legalize_ops_tir.h"

namespace pipesplit::transform::legalize {
namespace {

using ir::BinaryOp;

// The integer values of an attribute list (axes=[0, 2, 1, 3]); nullopt when absent or not
// constant.
std::optional<std::vector<int64_t>> IntList(const ir::CallNode& call, const char* name) {
  std::optional<ir::AttrValue> value = ir::GetAttrOrDefault(call, name);
  if (!value || value->as_list() == nullptr) return std::nullopt;
  std::vector<int64_t> out;
  for (const ir::AttrValue& item : *value->as_list()) {
    std::optional<int64_t> v = item.ToInt();
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

std::optional<int64_t> IntAttr(const ir::CallNode& call, const char* name) {
  std::optional<ir::AttrValue> value = ir::GetAttrOrDefault(call, name);
  if (!value) return std::nullopt;
  return value->ToInt();
}

// The prim values of a tuple argument ((R.prim_value(3),)), or nullopt.
std::optional<std::vector<PrimExpr>> PrimTuple(const ir::Expr& e) {
  const auto* t = ir::As<ir::TupleNode>(e);
  if (t == nullptr) return std::nullopt;
  std::vector<PrimExpr> out;
  for (const ir::Expr& f : t->fields()) {
    const auto* p = ir::As<ir::PrimValueNode>(f);
    if (p == nullptr) return std::nullopt;
    out.push_back(p->value());
  }
  return out;
}

int64_t NormalizeAxis(int64_t axis, size_t ndim) {
  return axis < 0 ? axis + static_cast<int64_t>(ndim) : axis;
}

// Row-major strides of `shape` (innermost 1).
std::vector<PrimExpr> Strides(const std::vector<PrimExpr>& shape) {
  std::vector<PrimExpr> strides(shape.size(), ir::Int64(1));
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = ir::Mul(strides[i], shape[i]);
  return strides;
}

std::optional<LoweredCall> LowerReshape(const ir::CallNode& call) {
  auto out_type = Result(call);
  auto in_type = KnownTensor(call.args()[0]);
  if (!out_type || !in_type) return std::nullopt;
  KernelBuilder kb("reshape");
  ir::Buffer x = kb.Input(call.args()[0], *in_type);
  ir::Buffer out = kb.Output("T_reshape", *out_type);
  kb.Compute("T_reshape", out, [&](const Indices& v) {
    std::vector<PrimExpr> out_strides = Strides(out->shape());
    PrimExpr flat = ir::Int64(0);
    for (size_t i = 0; i < v.size(); ++i) flat = ir::Add(flat, ir::Mul(v[i], out_strides[i]));
    std::vector<PrimExpr> in_strides = Strides(x->shape());
    Indices index;
    for (size_t j = 0; j < x->shape().size(); ++j) {
      PrimExpr e = ir::FloorDiv(flat, in_strides[j]);
      if (j > 0) e = ir::MakeBinary(BinaryOp::kFloorMod, e, x->shape()[j]);
      index.push_back(ir::Simplify(e));
    }
    return Load(x, index);
  });
  return kb.Finish();
}

std::optional<LoweredCall> LowerPermuteDims(const ir::CallNode& call) {
  auto out_type = Result(call);
  auto in_type = KnownTensor(call.args()[0]);
  if (!out_type || !in_type) return std::nullopt;
  const size_t ndim = in_type->shape.size();
  std::vector<int64_t> axes;
  if (auto list = IntList(call, "axes")) {
    axes = *list;
  } else {
    for (size_t i = ndim; i-- > 0;) axes.push_back(static_cast<int64_t>(i));
  }
  if (axes.size() != ndim) return std::nullopt;
  KernelBuilder kb("transpose");
  ir::Buffer x = kb.Input(call.args()[0], *in_type);
  ir::Buffer out = kb.Output("T_transpose", *out_type);
  kb.Compute("T_transpose", out, [&](const Indices& v) {
    Indices index(ndim);
    for (size_t i = 0; i < ndim; ++i) index[NormalizeAxis(axes[i], ndim)] = v[i];
    return Load(x, index);
  });
  return kb.Finish();
}

std::optional<LoweredCall> LowerStridedSlice(const ir::CallNode& call) {
  auto out_type = Result(call);
  auto in_type = KnownTensor(call.args()[0]);
  if (!out_type || !in_type || call.args().size() < 4) return std::nullopt;
  auto axes = PrimTuple(call.args()[1]);
  auto begin = PrimTuple(call.args()[2]);
  auto strides = call.args().size() > 4 ? PrimTuple(call.args()[4]) : std::nullopt;
  if (!axes || !begin || (call.args().size() > 4 && !strides)) return std::nullopt;
  const size_t ndim = in_type->shape.size();
  KernelBuilder kb("strided_slice");
  std::vector<PrimExpr> offset(ndim, ir::Int64(0)), step(ndim, ir::Int64(1));
  for (size_t i = 0; i < axes->size(); ++i) {
    std::optional<int64_t> axis = ir::AsConstInt((*axes)[i]);
    if (!axis) return std::nullopt;
    const size_t a = static_cast<size_t>(NormalizeAxis(*axis, ndim));
    const PrimExpr& dim = in_type->shape[a];
    PrimExpr b = (*begin)[i];
    std::optional<int64_t> stride = strides ? ir::AsConstInt((*strides)[i]) : int64_t{1};
    if (!stride || *stride == 0) return std::nullopt;
    std::optional<int64_t> bc = ir::AsConstInt(b), dc = ir::AsConstInt(dim);
    if (bc && dc) {  // clamp a constant begin as the op does
      int64_t v = *bc < 0 ? *bc + *dc : *bc;
      v = std::max<int64_t>(0, std::min(v, *stride > 0 ? *dc : *dc - 1));
      b = ir::Int64(v);
    }
    offset[a] = kb.Local(b);
    step[a] = ir::Int64(*stride);
  }
  ir::Buffer x = kb.Input(call.args()[0], *in_type);
  ir::Buffer out = kb.Output("T_strided_slice_with_axes", *out_type);
  kb.Compute("T_strided_slice_with_axes", out, [&](const Indices& v) {
    Indices index;
    for (size_t i = 0; i < ndim; ++i) index.push_back(ir::Add(ir::Mul(v[i], step[i]), offset[i]));
    return Load(x, index);
  });
  return kb.Finish();
}

std::optional<LoweredCall> LowerConcat(const ir::CallNode& call) {
  auto out_type = Result(call);
  const auto* tuple = ir::As<ir::TupleNode>(call.args()[0]);
  std::optional<int64_t> axis_attr = IntAttr(call, "axis");
  if (!out_type || tuple == nullptr || tuple->fields().empty() || !axis_attr) return std::nullopt;
  const size_t axis = static_cast<size_t>(NormalizeAxis(*axis_attr, out_type->shape.size()));
  KernelBuilder kb("concatenate");
  std::vector<ir::Buffer> inputs;
  std::vector<PrimExpr> offsets;
  PrimExpr offset = ir::Int64(0);
  for (const ir::Expr& field : tuple->fields()) {
    auto t = KnownTensor(field);
    if (!t || t->shape.size() != out_type->shape.size()) return std::nullopt;
    inputs.push_back(kb.Input(field, *t));
    offsets.push_back(offset);
    offset = ir::Add(offset, inputs.back()->shape()[axis]);
  }
  ir::Buffer out = kb.Output("T_concat", *out_type);
  kb.Compute("T_concat", out, [&](const Indices& v) {
    auto read = [&](size_t i) {
      Indices index = v;
      index[axis] = ir::Sub(v[axis], offsets[i]);
      return Load(inputs[i], index);
    };
    PrimExpr e = read(0);
    for (size_t i = 1; i < inputs.size(); ++i) {
      PrimExpr cond = ir::MakeBinary(BinaryOp::kLE, offsets[i], v[axis]);
      e = ir::Make<ir::PrimCallNode>("if_then_else", std::vector<PrimExpr>{cond, read(i), e},
                                     e->dtype());
    }
    return e;
  });
  return kb.Finish();
}

std::optional<LoweredCall> LowerTake(const ir::CallNode& call) {
  auto out_type = Result(call);
  auto x_type = KnownTensor(call.args()[0]);
  auto idx_type = KnownTensor(call.args()[1]);
  std::optional<int64_t> axis_attr = IntAttr(call, "axis");
  if (!out_type || !x_type || !idx_type || !axis_attr || !idx_type->dtype.is_integer()) {
    return std::nullopt;
  }
  const size_t axis = static_cast<size_t>(NormalizeAxis(*axis_attr, x_type->shape.size()));
  const size_t k = idx_type->shape.size();
  KernelBuilder kb("take");
  ir::Buffer x = kb.Input(call.args()[0], *x_type);
  ir::Buffer indices = kb.Input(call.args()[1], *idx_type);
  ir::Buffer out = kb.Output("T_take", *out_type);
  kb.Compute("T_take", out, [&](const Indices& v) {
    Indices index(v.begin(), v.begin() + axis);
    index.push_back(Load(indices, Indices(v.begin() + axis, v.begin() + axis + k)));
    index.insert(index.end(), v.begin() + axis + k, v.end());
    return Load(x, index);
  });
  return kb.Finish();
}

std::optional<LoweredCall> LowerFull(const ir::CallNode& call) {
  auto out_type = Result(call);
  PrimExpr fill = ScalarConstant(call.args()[1]);
  if (!out_type || fill == nullptr) return std::nullopt;
  KernelBuilder kb("full");
  ir::Buffer out = kb.Output("T_full", *out_type);
  PrimExpr value = Cast(out_type->dtype, fill);
  kb.Compute("T_full", out, [&](const Indices&) { return value; });
  return kb.Finish();
}

Rule TriluRule(bool upper) {
  return [upper](const ir::CallNode& call) -> std::optional<LoweredCall> {
    auto out_type = Result(call);
    auto in_type = KnownTensor(call.args()[0]);
    if (!out_type || !in_type || in_type->shape.size() < 2) return std::nullopt;
    PrimExpr k = ir::Int64(0);
    if (call.args().size() > 1) {
      const auto* p = ir::As<ir::PrimValueNode>(call.args()[1]);
      if (p == nullptr || !p->value()->dtype().is_integer()) return std::nullopt;
      k = p->value();
    }
    KernelBuilder kb(upper ? "triu" : "tril");
    PrimExpr local_k = Cast(DataType::Int(64), kb.Local(k));
    ir::Buffer x = kb.Input(call.args()[0], *in_type);
    ir::Buffer out = kb.Output("trilu", *out_type);
    kb.Compute(
        "trilu", out,
        [&](const Indices& v) {
          const PrimExpr& row = v[v.size() - 2];
          const PrimExpr& col = v[v.size() - 1];
          PrimExpr cond = upper ? ir::MakeBinary(BinaryOp::kLE, ir::Add(row, local_k), col)
                                : ir::MakeBinary(BinaryOp::kLE, col, ir::Add(row, local_k));
          return ir::Make<ir::SelectNode>(cond, Load(x, v), Imm(x->dtype(), 0));
        },
        "i");
    return kb.Finish();
  };
}

}  // namespace

void AddManipulateRules(std::unordered_map<std::string, Rule>* rules) {
  (*rules)["relax.reshape"] = LowerReshape;
  (*rules)["relax.permute_dims"] = LowerPermuteDims;
  (*rules)["relax.strided_slice"] = LowerStridedSlice;
  (*rules)["relax.concat"] = LowerConcat;
  (*rules)["relax.take"] = LowerTake;
  (*rules)["relax.full"] = LowerFull;
  (*rules)["relax.triu"] = TriluRule(true);
  (*rules)["relax.tril"] = TriluRule(false);
}

}  // namespace pipesplit::transform::legalize
