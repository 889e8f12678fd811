// Shape manipulation operators: reshape, permute_dims, expand_dims, squeeze, flatten,
// broadcast_to, concat, split, stack, layout_transform, collapse_sum_*, repeat, tile, flip and
// meshgrid.
#include <algorithm>

#include "src/ir/op/op_families.h"

namespace pipesplit::ir {
namespace {

// The virtual device shared by all tensors (empty when none or when they differ).
std::string CommonVDevice(const std::vector<const TensorSInfoNode*>& tensors) {
  std::string vdevice;
  for (const TensorSInfoNode* t : tensors) {
    if (t->vdevice().empty()) continue;
    if (vdevice.empty()) {
      vdevice = t->vdevice();
    } else if (t->vdevice() != vdevice) {
      return "";
    }
  }
  return vdevice;
}

// The common dtype of tensors that must agree (void ones are unknown and make the result
// unknown).
DataType CommonDType(const CallNode& call, const std::vector<const TensorSInfoNode*>& tensors) {
  DataType dtype;
  bool any_void = false;
  for (const TensorSInfoNode* t : tensors) {
    if (t->dtype().is_void()) {
      any_void = true;
    } else if (dtype.is_void()) {
      dtype = t->dtype();
    } else if (t->dtype() != dtype) {
      Fail(call, "dtypes " + dtype.ToString() + " and " + t->dtype().ToString() + " do not match");
    }
  }
  return any_void ? DataType::Void() : dtype;
}

StructInfo InferReshape(const CallNode& call) {
  CheckArgCount(call, 2);
  const TensorSInfoNode& x = TensorArg(call, 0);
  const ShapeSInfoNode& target = ShapeArg(call, 1);
  if (!target.values()) return TensorOfShapeArg(call, 1, x.dtype(), x.vdevice());
  std::vector<PrimExpr> shape = *target.values();
  // A -1 dim is inferred and a 0 dim copies the input's, as TVM's reshape constructor does.
  int infer_dim = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    auto c = AsConstInt(shape[i]);
    if (c == -1) {
      if (infer_dim != -1) Fail(call, "the new shape has more than one -1");
      infer_dim = static_cast<int>(i);
    } else if (c == 0) {
      if (!x.shape() || i >= x.shape()->size()) {
        Fail(call, "a 0 in the new shape needs the input dim at that position");
      }
      shape[i] = (*x.shape())[i];
    } else if (c && *c < -1) {
      Fail(call, "the new shape has a negative dim " + std::to_string(*c));
    }
  }
  if (infer_dim != -1) {
    if (!x.shape()) return MakeTensorNdim(x.dtype(), static_cast<int>(shape.size()), x.vdevice());
    std::vector<PrimExpr> known = shape;
    known.erase(known.begin() + infer_dim);
    shape[infer_dim] = NormalizeArith(FloorDiv(ShapeProduct(*x.shape()), ShapeProduct(known)));
  }
  if (x.shape()) {
    PrimExpr old_size = ShapeProduct(*x.shape());
    PrimExpr new_size = ShapeProduct(shape);
    if (ProvablyNe(old_size, new_size)) {
      Fail(call, "cannot reshape a tensor of shape " + ShapeString(*x.shape()) + " (" +
                     ToString(old_size) + " elements) into shape " + ShapeString(shape) + " (" +
                     ToString(new_size) + " elements)");
    }
  }
  return MakeTensor(std::move(shape), x.dtype(), x.vdevice());
}

StructInfo InferPermuteDims(const CallNode& call) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& x = TensorArg(call, 0);
  auto axes_attr = CallAttrs(call).OptIntList("axes");
  if (!axes_attr && x.ndim() == -1) return MakeTensorNdim(x.dtype(), -1, x.vdevice());
  if (axes_attr && x.ndim() == -1) {
    return MakeTensorNdim(x.dtype(), static_cast<int>(axes_attr->size()), x.vdevice());
  }
  std::vector<int> axes;
  if (axes_attr) {
    if (static_cast<int>(axes_attr->size()) != x.ndim()) {
      Fail(call, "axes has " + std::to_string(axes_attr->size()) + " entries but the tensor has " +
                     std::to_string(x.ndim()) + " dimensions");
    }
    axes = NormalizeAxes(call, x.ndim(), *axes_attr);
  } else {
    for (int i = x.ndim() - 1; i >= 0; --i) axes.push_back(i);
  }
  bool identity = true;
  for (size_t i = 0; i < axes.size(); ++i) identity &= axes[i] == static_cast<int>(i);
  if (identity) return ArgSInfo(call, 0);
  if (!x.shape()) return MakeTensorNdim(x.dtype(), x.ndim(), x.vdevice());
  std::vector<PrimExpr> shape;
  shape.reserve(axes.size());
  for (int a : axes) shape.push_back((*x.shape())[a]);
  return MakeTensor(std::move(shape), x.dtype(), x.vdevice());
}

StructInfo InferExpandDims(const CallNode& call) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& x = TensorArg(call, 0);
  std::vector<int64_t> axis = CallAttrs(call).IntList("axis");
  if (axis.empty()) return ArgSInfo(call, 0);
  if (x.ndim() == -1) return MakeTensorNdim(x.dtype(), -1, x.vdevice());
  int out_ndim = x.ndim() + static_cast<int>(axis.size());
  std::vector<int> axes = NormalizeAxes(call, out_ndim, axis);
  if (!x.shape()) return MakeTensorNdim(x.dtype(), out_ndim, x.vdevice());
  std::vector<PrimExpr> shape(out_ndim);
  for (int a : axes) shape[a] = Int64(1);
  size_t next = 0;
  for (PrimExpr& d : shape) {
    if (!d) d = (*x.shape())[next++];
  }
  return MakeTensor(std::move(shape), x.dtype(), x.vdevice());
}

StructInfo InferSqueeze(const CallNode& call) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& x = TensorArg(call, 0);
  auto axis = CallAttrs(call).OptIntList("axis");
  if (axis && axis->empty()) return ArgSInfo(call, 0);
  if (x.ndim() == -1) return MakeTensorNdim(x.dtype(), -1, x.vdevice());
  std::vector<bool> remove(x.ndim(), false);
  if (axis) {
    std::vector<int> axes = NormalizeAxes(call, x.ndim(), *axis);
    if (!x.shape()) {
      return MakeTensorNdim(x.dtype(), x.ndim() - static_cast<int>(axes.size()), x.vdevice());
    }
    for (int a : axes) {
      // A dim known not to be 1 is silently kept, as TVM does.
      auto c = AsConstInt((*x.shape())[a]);
      if (!c || *c == 1) remove[a] = true;
    }
  } else {
    if (!x.shape()) return MakeTensorNdim(x.dtype(), -1, x.vdevice());
    for (int i = 0; i < x.ndim(); ++i) {
      auto c = AsConstInt((*x.shape())[i]);
      if (!c) return MakeTensorNdim(x.dtype(), -1, x.vdevice());
      remove[i] = *c == 1;
    }
  }
  std::vector<PrimExpr> shape;
  for (int i = 0; i < x.ndim(); ++i) {
    if (!remove[i]) shape.push_back((*x.shape())[i]);
  }
  return MakeTensor(std::move(shape), x.dtype(), x.vdevice());
}

StructInfo InferFlatten(const CallNode& call) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& x = TensorArg(call, 0);
  if (x.ndim() == -1) return MakeTensorNdim(x.dtype(), 1, x.vdevice());
  if (x.ndim() == 0) return MakeTensor({Int64(1)}, x.dtype(), x.vdevice());
  if (x.ndim() == 1) return ArgSInfo(call, 0);
  if (!x.shape()) return MakeTensorNdim(x.dtype(), 1, x.vdevice());
  return MakeTensor({ShapeProduct(*x.shape())}, x.dtype(), x.vdevice());
}

StructInfo InferBroadcastTo(const CallNode& call) {
  CheckArgCount(call, 2);
  const TensorSInfoNode& x = TensorArg(call, 0);
  const ShapeSInfoNode& target = ShapeArg(call, 1);
  if (x.ndim() != -1 && target.ndim() != -1 && target.ndim() < x.ndim()) {
    Fail(call, "cannot broadcast a tensor of " + std::to_string(x.ndim()) +
                   " dimensions to a shape of " + std::to_string(target.ndim()));
  }
  if (x.shape() && target.values()) {
    const auto& from = *x.shape();
    const auto& to = *target.values();
    for (size_t i = 1; i <= from.size(); ++i) {
      const PrimExpr& d = from[from.size() - i];
      if (AsConstInt(d) == 1) continue;
      if (ProvablyNe(d, to[to.size() - i])) {
        Fail(call, "cannot broadcast dimension " + std::to_string(from.size() - i) + " (" +
                       ToString(d) + ") to " + ToString(to[to.size() - i]));
      }
    }
  }
  return TensorOfShapeArg(call, 1, x.dtype(), x.vdevice());
}

StructInfo InferConcat(const CallNode& call) {
  CheckArgCount(call, 1);
  std::vector<const TensorSInfoNode*> tensors = TensorTupleArg(call, 0);
  if (tensors.empty()) Fail(call, "expects at least one tensor");
  auto axis_attr = CallAttrs(call).OptInt("axis");
  DataType dtype = CommonDType(call, tensors);
  std::string vdevice = CommonVDevice(tensors);
  // With axis None the inputs are flattened: 1-d.
  int ndim = axis_attr ? -1 : 1;
  for (const TensorSInfoNode* t : tensors) {
    if (ndim == -1) {
      ndim = t->ndim();
    } else if (t->ndim() != -1 && t->ndim() != ndim) {
      Fail(call, "tensors of " + std::to_string(ndim) + " and " + std::to_string(t->ndim()) +
                     " dimensions cannot be concatenated");
    }
  }
  if (ndim == -1) {
    return tensors.size() == 1 ? ArgSInfo(call, 0) : MakeTensorNdim(dtype, -1, vdevice);
  }
  int axis = axis_attr ? NormalizeAxis(call, ndim, *axis_attr) : 0;
  if (tensors.size() == 1) {
    return static_cast<const TupleSInfoNode&>(*ArgSInfo(call, 0)).fields()[0];
  }
  std::vector<const std::vector<PrimExpr>*> shapes;
  for (const TensorSInfoNode* t : tensors) {
    if (!t->shape()) return MakeTensorNdim(dtype, ndim, vdevice);
    shapes.push_back(&*t->shape());
  }
  bool unknown = false;
  for (int d = 0; d < ndim; ++d) {
    if (d == axis) continue;
    for (size_t i = 1; i < shapes.size(); ++i) {
      if (ProvablyNe((*shapes[i])[d], (*shapes[0])[d])) {
        Fail(call, "dimension " + std::to_string(d) + " differs between the inputs (" +
                       ToString((*shapes[0])[d]) + " and " + ToString((*shapes[i])[d]) + ")");
      }
      if (!ProvablyEq((*shapes[i])[d], (*shapes[0])[d])) unknown = true;
    }
  }
  if (unknown) return MakeTensorNdim(dtype, ndim, vdevice);
  bool all_same = true;
  for (const auto* s : shapes) all_same &= ProvablyEq((*s)[axis], (*shapes[0])[axis]);
  PrimExpr total = Int64(0);
  if (all_same) {
    total = Mul((*shapes[0])[axis], Int64(static_cast<int64_t>(shapes.size())));
  } else {
    for (const auto* s : shapes) total = Add(total, (*s)[axis]);
  }
  std::vector<PrimExpr> shape = *shapes[0];
  shape[axis] = total;
  return MakeTensor(std::move(shape), dtype, vdevice);
}

StructInfo InferSplit(const CallNode& call) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& x = TensorArg(call, 0);
  CallAttrs attrs(call);
  const AttrValue& spec = attrs.Get("indices_or_sections");
  int axis = x.ndim() == -1 ? -1 : NormalizeAxis(call, x.ndim(), attrs.Int("axis"));
  auto piece = [&](std::vector<PrimExpr> shape, const PrimExpr& len) {
    shape[axis] = len;
    return MakeTensor(std::move(shape), x.dtype(), x.vdevice());
  };
  std::vector<StructInfo> fields;
  if (auto sections = spec.ToInt()) {
    if (*sections <= 0) Fail(call, "the number of sections must be positive");
    if (*sections > kMaxTupleFields) {
      Fail(call, "too many sections (" + std::to_string(*sections) + ")");
    }
    if (*sections == 1) return ArgSInfo(call, 0);
    if (!x.shape()) {
      return TupleSInfo(
          std::vector<StructInfo>(*sections, MakeTensorNdim(x.dtype(), x.ndim(), x.vdevice())));
    }
    const PrimExpr& dim = (*x.shape())[axis];
    PrimExpr len = NormalizeArith(CeilDiv(dim, *sections));
    for (int64_t i = 0; i + 1 < *sections; ++i) fields.push_back(piece(*x.shape(), len));
    fields.push_back(piece(*x.shape(), NormalizeArith(Sub(dim, Mul(len, Int64(*sections - 1))))));
    return TupleSInfo(std::move(fields));
  }
  std::vector<int64_t> indices = attrs.IntList("indices_or_sections");
  if (indices.empty()) return ArgSInfo(call, 0);
  if (!x.shape()) {
    return TupleSInfo(std::vector<StructInfo>(indices.size() + 1,
                                              MakeTensorNdim(x.dtype(), x.ndim(), x.vdevice())));
  }
  const PrimExpr& dim = (*x.shape())[axis];
  auto clamp = [&](const PrimExpr& v) { return Min(Max(v, Int64(0)), dim); };
  for (size_t i = 0; i <= indices.size(); ++i) {
    PrimExpr left = clamp(i == 0 ? Int64(0) : Int64(indices[i - 1]));
    PrimExpr right = i < indices.size() ? clamp(Int64(indices[i])) : dim;
    fields.push_back(piece(*x.shape(), NormalizeArith(Max(Sub(right, left), Int64(0)))));
  }
  return TupleSInfo(std::move(fields));
}

StructInfo InferStack(const CallNode& call) {
  CheckArgCount(call, 1);
  std::vector<const TensorSInfoNode*> tensors = TensorTupleArg(call, 0);
  if (tensors.empty()) Fail(call, "expects at least one tensor");
  DataType dtype = CommonDType(call, tensors);
  std::string vdevice = CommonVDevice(tensors);
  int in_ndim = tensors[0]->ndim();
  for (const TensorSInfoNode* t : tensors) {
    if (t->ndim() != -1 && t->ndim() != in_ndim) {
      Fail(call, "tensors of " + std::to_string(in_ndim) + " and " + std::to_string(t->ndim()) +
                     " dimensions cannot be stacked");
    }
  }
  if (in_ndim == -1) return MakeTensorNdim(dtype, -1, vdevice);
  int ndim = in_ndim + 1;
  int axis = NormalizeAxis(call, ndim, CallAttrs(call).OptInt("axis").value_or(0));
  for (const TensorSInfoNode* t : tensors) {
    if (!t->shape()) return MakeTensorNdim(dtype, ndim, vdevice);
  }
  const std::vector<PrimExpr>& first = *tensors[0]->shape();
  for (int d = 0; d < in_ndim; ++d) {
    for (const TensorSInfoNode* t : tensors) {
      if (ProvablyNe((*t->shape())[d], first[d])) {
        Fail(call, "dimension " + std::to_string(d) + " differs between the inputs (" +
                       ToString(first[d]) + " and " + ToString((*t->shape())[d]) + ")");
      }
      if (!ProvablyEq((*t->shape())[d], first[d])) return MakeTensorNdim(dtype, ndim, vdevice);
    }
  }
  std::vector<PrimExpr> shape = first;
  shape.insert(shape.begin() + axis, Int64(static_cast<int64_t>(tensors.size())));
  return MakeTensor(std::move(shape), dtype, vdevice);
}

void CheckCollapse(const CallNode& call, const std::vector<PrimExpr>& data,
                   const std::vector<PrimExpr>& target) {
  int t = static_cast<int>(target.size()) - 1;
  for (int d = static_cast<int>(data.size()) - 1; d >= 0 && t >= 0; --d) {
    auto cd = AsConstInt(data[d]), ct = AsConstInt(target[t]);
    if (ProvablyEq(data[d], target[t]) || ct == 1) {
      --t;
    } else if (cd && ct) {
      Fail(call, "dimension " + std::to_string(d) + " (" + std::to_string(*cd) +
                     ") cannot be summed into dimension " + std::to_string(t) + " (" +
                     std::to_string(*ct) + ") of the target");
    } else {
      Fail(call, "cannot match dimension " + std::to_string(d) + " (" + ToString(data[d]) +
                     ") with dimension " + std::to_string(t) + " (" + ToString(target[t]) +
                     ") of the target; use R.match_cast first");
    }
  }
}

StructInfo InferCollapseSumLike(const CallNode& call) {
  CheckArgCount(call, 2);
  const TensorSInfoNode& x = TensorArg(call, 0);
  const TensorSInfoNode& target = TensorArg(call, 1);
  if (x.shape() && target.shape()) CheckCollapse(call, *x.shape(), *target.shape());
  if (target.shape()) return MakeTensor(*target.shape(), x.dtype(), target.vdevice());
  return MakeTensorNdim(x.dtype(), target.ndim(), target.vdevice());
}

StructInfo InferCollapseSumTo(const CallNode& call) {
  CheckArgCount(call, 2);
  const TensorSInfoNode& x = TensorArg(call, 0);
  const ShapeSInfoNode& target = ShapeArg(call, 1);
  if (x.shape() && target.values()) CheckCollapse(call, *x.shape(), *target.values());
  return TensorLikeShape(target, x.dtype(), x.vdevice());
}

StructInfo InferRepeat(const CallNode& call) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& x = TensorArg(call, 0);
  CallAttrs attrs(call);
  int64_t repeats = attrs.Int("repeats");
  auto axis = attrs.OptInt("axis");
  int a = 0;
  if (axis && x.ndim() != -1) a = NormalizeAxis(call, x.ndim(), *axis);
  if (!x.shape()) {
    if (!axis) return MakeTensorNdim(x.dtype(), 1, x.vdevice());
    if (repeats == 1) return ArgSInfo(call, 0);
    return MakeTensorNdim(x.dtype(), x.ndim(), x.vdevice());
  }
  if (!axis) {
    return MakeTensor({Mul(ShapeProduct(*x.shape()), Int64(repeats))}, x.dtype(), x.vdevice());
  }
  std::vector<PrimExpr> shape = *x.shape();
  shape[a] = Mul(shape[a], Int64(repeats));
  return MakeTensor(std::move(shape), x.dtype(), x.vdevice());
}

StructInfo InferTile(const CallNode& call) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& x = TensorArg(call, 0);
  std::vector<int64_t> repeats = CallAttrs(call).IntList("repeats");
  int l = static_cast<int>(repeats.size());
  if (!x.shape()) {
    if (x.ndim() == -1) return MakeTensorNdim(x.dtype(), -1, x.vdevice());
    if (l > x.ndim()) return MakeTensorNdim(x.dtype(), l, x.vdevice());
    for (int64_t r : repeats) {
      if (r != 1) return MakeTensorNdim(x.dtype(), x.ndim(), x.vdevice());
    }
    return ArgSInfo(call, 0);
  }
  int ndim = x.ndim();
  int out_ndim = std::max(l, ndim);
  std::vector<PrimExpr> shape;
  for (int i = 0; i < out_ndim; ++i) {
    int di = i - (out_ndim - ndim);  // index into the input shape
    int ri = i - (out_ndim - l);     // index into repeats
    if (ri < 0) {
      shape.push_back((*x.shape())[di]);
    } else if (di < 0) {
      shape.push_back(Int64(repeats[ri]));
    } else {
      shape.push_back(Mul((*x.shape())[di], Int64(repeats[ri])));
    }
  }
  return MakeTensor(std::move(shape), x.dtype(), x.vdevice());
}

StructInfo InferFlip(const CallNode& call) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& x = TensorArg(call, 0);
  int64_t axis = CallAttrs(call).Int("axis");
  if (x.ndim() != -1) NormalizeAxis(call, x.ndim(), axis);
  return ArgSInfo(call, 0);
}

StructInfo InferMeshgrid(const CallNode& call) {
  CheckArgCount(call, 1);
  std::vector<const TensorSInfoNode*> tensors = TensorTupleArg(call, 0);
  if (tensors.empty()) Fail(call, "expects at least one 1-d tensor");
  std::vector<PrimExpr> shape;
  bool known = true;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i]->ndim() != 1) {
      Fail(call, "expects 1-d tensors, got " + std::to_string(tensors[i]->ndim()) +
                     " dimensions at index " + std::to_string(i));
    }
    if (tensors[i]->shape()) {
      shape.push_back((*tensors[i]->shape())[0]);
    } else {
      known = false;
    }
  }
  DataType dtype;
  for (const TensorSInfoNode* t : tensors) {
    if (t->dtype().is_void()) continue;
    if (dtype.is_void()) {
      dtype = t->dtype();
    } else if (t->dtype() != dtype) {
      Fail(call, "dtypes " + dtype.ToString() + " and " + t->dtype().ToString() + " do not match");
    }
  }
  std::string vdevice = CommonVDevice(tensors);
  StructInfo field = known ? MakeTensor(shape, dtype, vdevice)
                           : MakeTensorNdim(dtype, static_cast<int>(tensors.size()), vdevice);
  return TupleSInfo(std::vector<StructInfo>(tensors.size(), field));
}

// R.layout_transform makes an index map of a bare lambda (index_map=lambda i: ...) with int64
// vars, which prints as T.index_map(lambda i: ...).
AttrMap CompleteLayoutTransform(AttrMap attrs, const std::vector<Expr>&) {
  for (auto& [key, value] : attrs) {
    const AttrCall* call = value.as_call();
    if (key != "index_map" || call == nullptr || call->callee != "lambda") continue;
    AttrCall index_map{.callee = "T.index_map", .args = {value}, .kwargs = {}};
    value = AttrValue(std::move(index_map));
  }
  return attrs;
}

}  // namespace

void RegisterManipulationOps() {
  RegisterOp({.name = "relax.reshape",
              .params = {Arg("x"), Arg("shape")},
              .infer = InferReshape,
              .summary = "reshape a tensor to a new shape with the same number of elements"});
  RegisterOp({.name = "relax.permute_dims",
              .params = {Arg("x"), Attr("axes", AttrValue())},
              .infer = InferPermuteDims,
              .summary = "permute the dimensions of a tensor (reverse them when axes is None)"});
  RegisterOp({.name = "relax.expand_dims",
              .params = {Arg("x"), RequiredAttr("axis")},
              .infer = InferExpandDims,
              .summary = "insert dimensions of length 1 at the given axes",
              .complete_attrs = ListifyInts({"axis"})});
  RegisterOp({.name = "relax.squeeze",
              .params = {Arg("x"), Attr("axis", AttrValue())},
              .infer = InferSqueeze,
              .summary = "remove dimensions of length 1",
              .complete_attrs = ListifyInts({"axis"})});
  RegisterOp({.name = "relax.flatten",
              .params = {Arg("x")},
              .infer = InferFlatten,
              .summary = "flatten a tensor to one dimension"});
  RegisterOp({.name = "relax.broadcast_to",
              .params = {Arg("x"), Arg("shape")},
              .infer = InferBroadcastTo,
              .summary = "broadcast a tensor to a shape"});
  RegisterOp({.name = "relax.concat",
              .params = {Arg("tensors"), Attr("axis", 0)},
              .infer = InferConcat,
              .summary = "concatenate a tuple of tensors along an axis"});
  RegisterOp({.name = "relax.split",
              .params = {Arg("x"), RequiredAttr("indices_or_sections"), Attr("axis", 0)},
              .infer = InferSplit,
              .summary = "split a tensor into sections or at indices along an axis"});
  RegisterOp({.name = "relax.stack",
              .params = {Arg("tensors"), Attr("axis", 0)},
              .infer = InferStack,
              .summary = "stack a tuple of equally shaped tensors along a new axis"});
  RegisterOp(
      {.name = "relax.layout_transform",
       .params = {Arg("x"), RequiredAttr("index_map"), Attr("pad_value", AttrValue()),
                  Attr("axis_separators", AttrList{}), Attr("input_axis_separators", AttrList{})},
       .infer = nullptr,
       .summary = "transform a tensor's layout with an index map",
       .complete_attrs = CompleteLayoutTransform});
  RegisterOp({.name = "relax.collapse_sum_like",
              .params = {Arg("data"), Arg("collapse_target")},
              .infer = InferCollapseSumLike,
              .summary = "sum a broadcast tensor back to the shape of another tensor"});
  RegisterOp({.name = "relax.collapse_sum_to",
              .params = {Arg("data"), Arg("shape")},
              .infer = InferCollapseSumTo,
              .summary = "sum a broadcast tensor back to a shape"});
  RegisterOp({.name = "relax.repeat",
              .params = {Arg("data"), RequiredAttr("repeats"), Attr("axis", AttrValue())},
              .infer = InferRepeat,
              .summary = "repeat elements along an axis (of the flattened tensor when None)"});
  RegisterOp({.name = "relax.tile",
              .params = {Arg("data"), RequiredAttr("repeats")},
              .infer = InferTile,
              .summary = "tile a tensor by repeating it along each dimension",
              .complete_attrs = ListifyInts({"repeats"})});
  RegisterOp({.name = "relax.flip",
              .params = {Arg("data"), RequiredAttr("axis")},
              .infer = InferFlip,
              .summary = "reverse a tensor along an axis"});
  RegisterOp({.name = "relax.meshgrid",
              .params = {Arg("tensors"), Attr("indexing", "ij")},
              .infer = InferMeshgrid,
              .summary = "coordinate grids from 1-d tensors"});
}

}  // namespace pipesplit::ir
