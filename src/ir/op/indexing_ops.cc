// Indexing operators: take, strided_slice, dynamic_strided_slice, gather_elements, gather_nd,
// index_put, index_tensor, scatter_elements, scatter_nd, slice_scatter and one_hot.
#include "src/ir/op/op_families.h"

namespace pipesplit::ir {
namespace {

bool IsIntegerOrUnknown(DataType dtype) { return dtype.is_void() || dtype.is_integer(); }

StructInfo InferTake(const CallNode& call) {
  CheckArgCount(call, 2);
  const TensorSInfoNode& x = TensorArg(call, 0);
  // A scalar prim index behaves like a 0-d tensor.
  std::optional<std::vector<PrimExpr>> index_shape;
  int index_ndim;
  DataType index_dtype;
  const StructInfo& index_sinfo = ArgSInfo(call, 1);
  if (const auto* t = As<TensorSInfoNode>(index_sinfo)) {
    index_shape = t->shape();
    index_ndim = t->ndim();
    index_dtype = t->dtype();
  } else if (const auto* p = As<PrimSInfoNode>(index_sinfo)) {
    index_shape = std::vector<PrimExpr>{};
    index_ndim = 0;
    index_dtype = p->dtype();
  } else {
    Fail(call, "indices must be a tensor or an R.Prim value, got " + SInfoKindName(index_sinfo));
  }
  if (!IsIntegerOrUnknown(index_dtype)) {
    Fail(call, "indices must have an integer dtype, got " + index_dtype.ToString());
  }
  auto axis_attr = CallAttrs(call).OptInt("axis");
  if (!axis_attr && x.ndim() != 1) {
    Fail(call, "needs an axis unless the data is 1-d (it has " + std::to_string(x.ndim()) +
                   " dimensions)");
  }
  if (x.ndim() == -1 || index_ndim == -1) return MakeTensorNdim(x.dtype(), -1, x.vdevice());
  int axis = axis_attr ? NormalizeAxis(call, x.ndim(), *axis_attr) : 0;
  if (!x.shape() || !index_shape) {
    return MakeTensorNdim(x.dtype(), x.ndim() + index_ndim - 1, x.vdevice());
  }
  std::vector<PrimExpr> shape;
  for (int i = 0; i < x.ndim(); ++i) {
    if (i == axis) {
      shape.insert(shape.end(), index_shape->begin(), index_shape->end());
    } else {
      shape.push_back((*x.shape())[i]);
    }
  }
  return MakeTensor(std::move(shape), x.dtype(), x.vdevice());
}

// ceil(a / b) as TVM's ceildiv spells it: (a + b - 1) // b, folded.
PrimExpr CeilDivExpr(const PrimExpr& a, const PrimExpr& b) {
  return NormalizeArith(FloorDiv(Sub(Add(a, b), Int64(1)), b));
}

// Clamps a slice index into the valid range for a stride direction, as topi does. nullptr
// when the result cannot be expressed without a run-time select.
PrimExpr CanonicalIndex(const PrimExpr& index, const PrimExpr& extent, int64_t stride) {
  auto c_index = AsConstInt(index);
  auto c_extent = AsConstInt(extent);
  if (c_index && c_extent) {
    __int128 v = *c_index < 0 ? static_cast<__int128>(*c_index) + *c_extent : *c_index;
    __int128 lo = stride < 0 ? -1 : 0;
    __int128 hi = stride < 0 ? static_cast<__int128>(*c_extent) - 1 : *c_extent;
    return Int64(static_cast<int64_t>(std::min(std::max(v, lo), hi)));
  }
  if (stride < 0) return nullptr;
  // Dims and shape vars are non-negative; a negative constant counts from the end.
  PrimExpr v = index;
  if (c_index && *c_index < 0) {
    v = Add(extent, index);
  } else if (!KnownNonNegative(index)) {
    return nullptr;
  }
  auto room = ConstDifference(extent, v);
  if (room && *room >= 0) return v;
  if (room && *room < 0) return extent;
  if (c_index && *c_index == 0) return v;
  return Min(v, extent);
}

// The length of a slice of one axis; nullptr when it cannot be stated statically.
PrimExpr SliceLength(const PrimExpr& begin, const PrimExpr& end, const PrimExpr& stride,
                     const PrimExpr& extent, bool assume_inbound) {
  if (assume_inbound) return CeilDivExpr(Sub(end, begin), stride);
  auto s = AsConstInt(stride);
  if (!s || *s == 0) return nullptr;
  PrimExpr b = CanonicalIndex(begin, extent, *s);
  PrimExpr e = CanonicalIndex(end, extent, *s);
  if (!b || !e) return nullptr;
  // extent - min(v, extent) is max(extent - v, 0), which is extent - v for v <= extent.
  auto diff = [&](const PrimExpr& hi, const PrimExpr& lo) {
    const auto* m = As<BinaryNode>(lo);
    if (m != nullptr && m->op() == BinaryOp::kMin && ProvablyEq(m->b(), hi)) {
      PrimExpr d = NormalizeArith(Sub(hi, m->a()));
      return KnownNonNegative(d) ? d : Max(d, Int64(0));
    }
    return Sub(hi, lo);
  };
  PrimExpr len = *s < 0 ? CeilDivExpr(diff(b, e), Int64(-*s)) : CeilDivExpr(diff(e, b), stride);
  // Slices never have a negative length.
  if (auto c = AsConstInt(len); c && *c < 0) return Int64(0);
  return len;
}

StructInfo InferStridedSlice(const CallNode& call) {
  CheckArgCountBetween(call, 4, 5);
  const TensorSInfoNode& x = TensorArg(call, 0);
  auto axes = PrimTupleArgValues(call, 1);
  auto begin = PrimTupleArgValues(call, 2);
  auto end = PrimTupleArgValues(call, 3);
  std::optional<std::vector<PrimExpr>> strides;
  if (call.args().size() == 5) strides = PrimTupleArgValues(call, 4);
  bool assume_inbound = CallAttrs(call).Bool("assume_inbound");
  auto unknown = [&] { return MakeTensorNdim(x.dtype(), x.ndim(), x.vdevice()); };
  if (!axes || !begin || !end || (call.args().size() == 5 && !strides)) return unknown();
  size_t n = axes->size();
  auto check_len = [&](const std::vector<PrimExpr>& v, const char* what) {
    if (v.size() != n) {
      Fail(call, std::string(what) + " has " + std::to_string(v.size()) + " entries but axes has " +
                     std::to_string(n));
    }
  };
  check_len(*begin, "begin");
  check_len(*end, "end");
  if (strides) {
    check_len(*strides, "strides");
  } else {
    strides = std::vector<PrimExpr>(n, Int64(1));
  }
  std::vector<int64_t> axis_values;
  for (const PrimExpr& a : *axes) {
    auto c = AsConstInt(a);
    if (!c) return unknown();
    axis_values.push_back(*c);
  }
  if (!x.shape()) return unknown();
  std::vector<int> norm = NormalizeAxes(call, x.ndim(), axis_values);
  std::vector<PrimExpr> shape = *x.shape();
  // Dims are int64: begin, end and strides of another integer type (R.prim_value of an int32
  // var) are cast first.
  auto int64 = [](const PrimExpr& e) { return CastTo(e, DataType::Int(64)); };
  for (size_t i = 0; i < n; ++i) {
    PrimExpr len = SliceLength(int64((*begin)[i]), int64((*end)[i]), int64((*strides)[i]),
                               shape[norm[i]], assume_inbound);
    if (!len) return unknown();
    shape[norm[i]] = len;
  }
  return MakeTensor(std::move(shape), x.dtype(), x.vdevice());
}

StructInfo InferDynamicStridedSlice(const CallNode& call) {
  CheckArgCount(call, 4);
  const TensorSInfoNode& x = TensorArg(call, 0);
  if (x.ndim() == -1) return MakeTensorNdim(x.dtype(), -1, x.vdevice());
  for (size_t i = 1; i < 4; ++i) {
    const TensorSInfoNode& t = TensorArg(call, i);
    std::string name = ArgName(call, i);
    if (t.ndim() != 1) Fail(call, name + " must be a 1-d tensor");
    auto n = t.shape() ? AsConstInt((*t.shape())[0]) : std::nullopt;
    if (!n) Fail(call, name + " must have a known length");
    if (*n != x.ndim()) {
      Fail(call, name + " has " + std::to_string(*n) + " entries but the data has " +
                     std::to_string(x.ndim()) + " dimensions");
    }
    if (!t.dtype().is_void() && t.dtype() != DataType::Int(64)) {
      Fail(call, name + " must have dtype int64, got " + t.dtype().ToString());
    }
  }
  return MakeTensorNdim(x.dtype(), x.ndim(), x.vdevice());
}

StructInfo InferGatherElements(const CallNode& call) {
  CheckArgCount(call, 2);
  const TensorSInfoNode& data = TensorArg(call, 0);
  const TensorSInfoNode& indices = TensorArg(call, 1);
  if (!indices.dtype().is_void() && !indices.dtype().is_int()) {
    Fail(call, "indices must have an integer dtype, got " + indices.dtype().ToString());
  }
  if (data.ndim() == -1 || indices.ndim() == -1) {
    return MakeTensorNdim(data.dtype(), -1, data.vdevice());
  }
  NormalizeAxis(call, data.ndim(), CallAttrs(call).Int("axis"));
  if (data.ndim() != indices.ndim()) {
    Fail(call, "data and indices must have the same rank, got " + std::to_string(data.ndim()) +
                   " and " + std::to_string(indices.ndim()));
  }
  if (indices.shape()) return MakeTensor(*indices.shape(), data.dtype(), data.vdevice());
  return MakeTensorNdim(data.dtype(), indices.ndim(), data.vdevice());
}

StructInfo InferGatherND(const CallNode& call) {
  CheckArgCount(call, 2);
  const TensorSInfoNode& data = TensorArg(call, 0);
  const TensorSInfoNode& indices = TensorArg(call, 1);
  int64_t batch_dims = CallAttrs(call).Int("batch_dims");
  if (!indices.dtype().is_void() && indices.dtype() != DataType::Int(64)) {
    Fail(call, "indices must have dtype int64, got " + indices.dtype().ToString());
  }
  if (data.ndim() == -1 || indices.ndim() == -1) {
    return MakeTensorNdim(data.dtype(), -1, data.vdevice());
  }
  if (batch_dims < 0 || batch_dims > data.ndim() || batch_dims > indices.ndim() - 1) {
    Fail(call, "batch_dims " + std::to_string(batch_dims) + " is out of range");
  }
  auto l = indices.shape() ? AsConstInt(indices.shape()->back()) : std::nullopt;
  if (!l) return MakeTensorNdim(data.dtype(), -1, data.vdevice());
  int out_ndim = static_cast<int>(indices.ndim() + data.ndim() - *l - 1 - batch_dims);
  if (!data.shape()) return MakeTensorNdim(data.dtype(), out_ndim, data.vdevice());
  if (*l > data.ndim() - batch_dims) {
    Fail(call, "the last dimension of indices (" + std::to_string(*l) +
                   ") exceeds the rank of data minus batch_dims");
  }
  std::vector<PrimExpr> shape(indices.shape()->begin(), indices.shape()->end() - 1);
  for (int64_t i = batch_dims + *l; i < data.ndim(); ++i) shape.push_back((*data.shape())[i]);
  return MakeTensor(std::move(shape), data.dtype(), data.vdevice());
}

// The result of scatter-like ops: the data tensor's info.
StructInfo SameAsData(const TensorSInfoNode& data) {
  if (data.shape()) return MakeTensor(*data.shape(), data.dtype(), data.vdevice());
  return MakeTensorNdim(data.dtype(), data.ndim(), data.vdevice());
}

void CheckSameDType(const CallNode& call, const TensorSInfoNode& a, const TensorSInfoNode& b,
                    const char* what) {
  if (!a.dtype().is_void() && !b.dtype().is_void() && a.dtype() != b.dtype()) {
    Fail(call, std::string(what) + " must have the dtype of data (" + a.dtype().ToString() +
                   "), got " + b.dtype().ToString());
  }
}

StructInfo InferScatterElements(const CallNode& call) {
  CheckArgCount(call, 3);
  const TensorSInfoNode& data = TensorArg(call, 0);
  const TensorSInfoNode& indices = TensorArg(call, 1);
  const TensorSInfoNode& updates = TensorArg(call, 2);
  if (data.ndim() == -1) return MakeTensorNdim(data.dtype(), -1, data.vdevice());
  if (indices.ndim() != -1 && indices.ndim() != data.ndim()) {
    Fail(call, "indices must have the rank of data");
  }
  if (updates.ndim() != -1 && updates.ndim() != data.ndim()) {
    Fail(call, "updates must have the rank of data");
  }
  CheckSameDType(call, data, updates, "updates");
  if (!IsIntegerOrUnknown(indices.dtype())) {
    Fail(call, "indices must have an integer dtype, got " + indices.dtype().ToString());
  }
  if (indices.shape() && updates.shape()) {
    for (size_t i = 0; i < indices.shape()->size(); ++i) {
      if (ProvablyNe((*indices.shape())[i], (*updates.shape())[i])) {
        Fail(call, "indices and updates must have the same shape");
      }
    }
  }
  return SameAsData(data);
}

StructInfo InferScatterND(const CallNode& call) {
  CheckArgCount(call, 3);
  const TensorSInfoNode& data = TensorArg(call, 0);
  const TensorSInfoNode& indices = TensorArg(call, 1);
  const TensorSInfoNode& updates = TensorArg(call, 2);
  CheckSameDType(call, data, updates, "updates");
  if (!IsIntegerOrUnknown(indices.dtype())) {
    Fail(call, "indices must have an integer dtype, got " + indices.dtype().ToString());
  }
  return SameAsData(data);
}

StructInfo InferDataWithMatchingValues(const CallNode& call) {
  const TensorSInfoNode& data = TensorArg(call, 0);
  const TensorSInfoNode& values = TensorArg(call, 2);
  CheckSameDType(call, data, values, ArgName(call, 2).c_str());
  return SameAsData(data);
}

StructInfo InferIndexPut(const CallNode& call) {
  CheckArgCount(call, 3);
  const StructInfo& indices = ArgSInfo(call, 1);
  if (indices->kind() == NodeKind::kTupleSInfo) {
    for (const TensorSInfoNode* t : TensorTupleArg(call, 1)) {
      if (!IsIntegerOrUnknown(t->dtype())) {
        Fail(call, "indices must have an integer dtype, got " + t->dtype().ToString());
      }
    }
  } else {
    TensorArg(call, 1);
  }
  return InferDataWithMatchingValues(call);
}

StructInfo InferSliceScatter(const CallNode& call) {
  CheckArgCount(call, 5);
  const TensorSInfoNode& data = TensorArg(call, 0);
  if (data.ndim() != -1) NormalizeAxis(call, data.ndim(), CallAttrs(call).Int("axis"));
  const TensorSInfoNode& src = TensorArg(call, 1);
  CheckSameDType(call, data, src, "src");
  return SameAsData(data);
}

StructInfo InferOneHot(const CallNode& call) {
  CheckArgCount(call, 3);
  const TensorSInfoNode& indices = TensorArg(call, 0);
  PrimExpr on = PrimArgValue(call, 1);
  PrimExpr off = PrimArgValue(call, 2);
  if (!on || !off) Fail(call, "on_value and off_value must be R.prim_value constants");
  if (on->dtype() != off->dtype()) {
    Fail(call, "on_value and off_value have different dtypes " + on->dtype().ToString() + " and " +
                   off->dtype().ToString());
  }
  if (!IsIntegerOrUnknown(indices.dtype())) {
    Fail(call, "indices must have an integer dtype, got " + indices.dtype().ToString());
  }
  DataType dtype = on->dtype();
  if (indices.ndim() == -1) return MakeTensorNdim(dtype, -1, indices.vdevice());
  if (!indices.shape()) return MakeTensorNdim(dtype, indices.ndim() + 1, indices.vdevice());
  CallAttrs attrs(call);
  std::vector<PrimExpr> shape = *indices.shape();
  int axis = NormalizeAxis(call, indices.ndim() + 1, attrs.Int("axis"));
  shape.insert(shape.begin() + axis, Int64(attrs.Int("depth")));
  return MakeTensor(std::move(shape), dtype, indices.vdevice());
}

}  // namespace

void RegisterIndexingOps() {
  RegisterOp({.name = "relax.take",
              .params = {Arg("x"), Arg("indices"), Attr("axis", AttrValue()), Attr("mode", "fast")},
              .infer = InferTake,
              .summary = "gather slices along an axis at the given indices"});
  RegisterOp({.name = "relax.strided_slice",
              .params = {Arg("x"), Arg("axes"), Arg("begin"), Arg("end"), OptionalArg("strides"),
                         Attr("assume_inbound", false)},
              .infer = InferStridedSlice,
              .summary = "slice a tensor along some axes with begin, end and strides"});
  RegisterOp({.name = "relax.dynamic_strided_slice",
              .params = {Arg("x"), Arg("begin"), Arg("end"), Arg("strides")},
              .infer = InferDynamicStridedSlice,
              .summary = "strided slice with begin, end and strides given as tensors"});
  RegisterOp({.name = "relax.gather_elements",
              .params = {Arg("data"), Arg("indices"), Attr("axis", 0)},
              .infer = InferGatherElements,
              .summary = "gather elements along an axis at indices of the data's rank"});
  RegisterOp({.name = "relax.gather_nd",
              .params = {Arg("data"), Arg("indices"), Attr("batch_dims", 0)},
              .infer = InferGatherND,
              .summary = "gather slices at n-dimensional indices"});
  RegisterOp({.name = "relax.index_put",
              .params = {Arg("data"), Arg("indices"), Arg("values"), Attr("accumulate", false)},
              .infer = InferIndexPut,
              .summary = "write (or accumulate) values at the given indices"});
  RegisterOp({.name = "relax.index_tensor",
              .params = {Arg("data"), Arg("indices")},
              .infer = nullptr,
              .summary = "advanced (numpy-style) indexing with a tuple of index tensors"});
  RegisterOp({.name = "relax.scatter_elements",
              .params = {Arg("data"), Arg("indices"), Arg("updates"), Attr("axis", 0),
                         Attr("reduction", "update")},
              .infer = InferScatterElements,
              .summary = "scatter updates into data along an axis"});
  RegisterOp({.name = "relax.scatter_nd",
              .params = {Arg("data"), Arg("indices"), Arg("updates"), Attr("reduction", "update")},
              .infer = InferScatterND,
              .summary = "scatter updates into data at n-dimensional indices"});
  RegisterOp({.name = "relax.slice_scatter",
              .params = {Arg("input_tensor"), Arg("src"), Arg("start"), Arg("end"), Arg("step"),
                         Attr("axis", 0)},
              .infer = InferSliceScatter,
              .summary = "write src into a strided slice of the input along an axis"});
  RegisterOp({.name = "relax.one_hot",
              .params = {Arg("indices"), Arg("on_value"), Arg("off_value"), RequiredAttr("depth"),
                         Attr("axis", -1)},
              .infer = InferOneHot,
              .summary = "one-hot encode integer indices"});
}

}  // namespace pipesplit::ir
