// Reductions and related ops: sum, mean, max, min, prod, std, variance, median, argmax,
// argmin, cumsum, cumprod, sort, argsort, topk, bucketize, unique and nonzero.
#include <algorithm>

#include "src/ir/op/op_families.h"

namespace pipesplit::ir {
namespace {

// The output of reducing `x` over `axis` (None: every axis), keeping reduced dims as 1 when
// `keepdims`. Dims are nullopt when unknown; `ndim` -1 when unknown.
struct Reduced {
  std::optional<std::vector<PrimExpr>> shape;
  int ndim;
};

Reduced Reduce(const CallNode& call, const TensorSInfoNode& x,
               const std::optional<std::vector<int64_t>>& axis, bool keepdims) {
  std::vector<int> axes;
  if (x.ndim() != -1 && axis) axes = NormalizeAxes(call, x.ndim(), *axis);
  int ndim;
  if (keepdims) {
    ndim = x.ndim();
  } else if (!axis) {
    ndim = 0;
  } else if (x.ndim() == -1) {
    ndim = -1;
  } else {
    ndim = x.ndim() - static_cast<int>(axes.size());
  }
  if (!x.shape()) {
    if (!axis && keepdims && ndim != -1 && ndim <= kMaxTupleFields) {
      return {std::vector<PrimExpr>(ndim, Int64(1)), ndim};
    }
    if (ndim == 0) return {std::vector<PrimExpr>{}, 0};
    return {std::nullopt, ndim};
  }
  std::vector<PrimExpr> shape;
  for (int i = 0; i < x.ndim(); ++i) {
    bool reduced = !axis || std::find(axes.begin(), axes.end(), i) != axes.end();
    if (!reduced) {
      shape.push_back((*x.shape())[i]);
    } else if (keepdims) {
      shape.push_back(Int64(1));
    }
  }
  return {std::move(shape), ndim};
}

StructInfo ToTensor(const Reduced& r, DataType dtype, const std::string& vdevice) {
  if (r.shape) return MakeTensor(*r.shape, dtype, vdevice);
  return MakeTensorNdim(dtype, r.ndim, vdevice);
}

StructInfo InferStatistical(const CallNode& call) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& x = TensorArg(call, 0);
  CallAttrs attrs(call);
  Reduced r = Reduce(call, x, attrs.OptIntList("axis"), attrs.Bool("keepdims"));
  return ToTensor(r, x.dtype(), x.vdevice());
}

// median: with a single axis it also returns the int64 indices, as TVM.
StructInfo InferMedian(const CallNode& call) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& x = TensorArg(call, 0);
  CallAttrs attrs(call);
  auto axis = attrs.OptIntList("axis");
  Reduced r = Reduce(call, x, axis, attrs.Bool("keepdims"));
  if (!x.shape()) {
    if (r.shape) return ToTensor(r, x.dtype(), x.vdevice());
    return TupleSInfo(
        {ToTensor(r, x.dtype(), x.vdevice()), ToTensor(r, DataType::Int(64), x.vdevice())});
  }
  if (!axis || axis->size() > 1) return ToTensor(r, x.dtype(), x.vdevice());
  return TupleSInfo(
      {ToTensor(r, x.dtype(), x.vdevice()), ToTensor(r, DataType::Int(64), x.vdevice())});
}

StructInfo InferArgReduce(const CallNode& call) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& x = TensorArg(call, 0);
  CallAttrs attrs(call);
  auto axis = attrs.OptInt("axis");
  std::optional<std::vector<int64_t>> axes;
  if (axis) axes = std::vector<int64_t>{*axis};
  Reduced r = Reduce(call, x, axes, attrs.Bool("keepdims"));
  return ToTensor(r, DataType::Int(64), x.vdevice());
}

StructInfo InferScan(const CallNode& call) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& x = TensorArg(call, 0);
  CallAttrs attrs(call);
  DataType dtype = attrs.DType("dtype");
  if (dtype.is_void()) dtype = x.dtype();
  if (attrs.IsNone("axis")) {
    // The input is flattened.
    if (!x.shape()) return MakeTensorNdim(dtype, x.ndim(), x.vdevice());
    return MakeTensor({ShapeProduct(*x.shape())}, dtype, x.vdevice());
  }
  return WithDType(x, dtype);
}

StructInfo InferSort(const CallNode& call) {
  CheckArgCount(call, 1);
  TensorArg(call, 0);
  return ArgSInfo(call, 0);
}

StructInfo InferArgsort(const CallNode& call) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& x = TensorArg(call, 0);
  DataType dtype = CallAttrs(call).DType("dtype");
  return WithDType(x, dtype.is_void() ? x.dtype() : dtype);
}

StructInfo InferTopK(const CallNode& call) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& x = TensorArg(call, 0);
  CallAttrs attrs(call);
  DataType index_dtype = attrs.DType("dtype");
  if (index_dtype.is_void()) index_dtype = x.dtype();
  int64_t k = attrs.Int("k");
  std::string ret_type = attrs.Str("ret_type");
  if (ret_type != "both" && ret_type != "values" && ret_type != "indices") {
    Fail(call, "ret_type must be \"both\", \"values\" or \"indices\", got \"" + ret_type + "\"");
  }
  StructInfo values, indices;
  if (!x.shape()) {
    values = MakeTensorNdim(x.dtype(), x.ndim(), x.vdevice());
    indices = MakeTensorNdim(index_dtype, x.ndim(), x.vdevice());
  } else {
    int axis = NormalizeAxis(call, x.ndim(), attrs.Int("axis"));
    std::vector<PrimExpr> shape = *x.shape();
    auto dim = AsConstInt(shape[axis]);
    if (k > 0 && (!dim || k < *dim)) shape[axis] = Int64(k);
    values = MakeTensor(shape, x.dtype(), x.vdevice());
    indices = MakeTensor(shape, index_dtype, x.vdevice());
  }
  if (ret_type == "values") return values;
  if (ret_type == "indices") return indices;
  return TupleSInfo({values, indices});
}

StructInfo InferBucketize(const CallNode& call) {
  CheckArgCount(call, 2);
  const TensorSInfoNode& x = TensorArg(call, 0);
  const TensorSInfoNode& boundaries = TensorArg(call, 1);
  if (boundaries.ndim() != -1 && boundaries.ndim() != 1) {
    Fail(call, "boundaries must be a 1-d tensor, got " + std::to_string(boundaries.ndim()) +
                   " dimensions");
  }
  DataType dtype = CallAttrs(call).Bool("out_int32") ? DataType::Int(32) : DataType::Int(64);
  return WithDType(x, dtype);
}

StructInfo InferUnique(const CallNode& call) {
  CheckArgCountBetween(call, 5, 6);
  const TensorSInfoNode& x = TensorArg(call, 0);
  if (call.args().size() == 6 && x.ndim() != -1) {
    if (auto axis = AsConstInt(PrimArgValue(call, 5))) NormalizeAxis(call, x.ndim(), *axis);
  }
  auto flag = [&](size_t i) {
    auto v = AsConstInt(PrimArgValue(call, i));
    if (!v) Fail(call, ArgName(call, i) + " must be a constant R.prim_value");
    return *v != 0;
  };
  bool has_axis = call.args().size() == 6;
  std::vector<StructInfo> fields;
  if (x.ndim() == 0) {
    fields.push_back(MakeTensor({Int64(1)}, x.dtype(), x.vdevice()));
  } else {
    fields.push_back(MakeTensorNdim(x.dtype(), has_axis ? x.ndim() : 1, x.vdevice()));
  }
  StructInfo extra = x.ndim() == 0 ? MakeTensor({Int64(1)}, DataType::Int(64), x.vdevice())
                                   : MakeTensorNdim(DataType::Int(64), 1, x.vdevice());
  for (size_t i = 2; i <= 4; ++i) {
    if (flag(i)) fields.push_back(extra);
  }
  if (fields.size() == 1) return fields[0];
  return TupleSInfo(std::move(fields));
}

StructInfo InferNonzero(const CallNode& call) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& x = TensorArg(call, 0);
  return MakeTensorNdim(DataType::Int(64), 2, x.vdevice());
}

}  // namespace

void RegisterReductionOps() {
  struct Stat {
    const char* name;
    const char* summary;
  };
  for (const Stat& s :
       {Stat{"sum", "sum over axes"}, Stat{"mean", "mean over axes"},
        Stat{"max", "maximum over axes"}, Stat{"min", "minimum over axes"},
        Stat{"prod", "product over axes"}, Stat{"std", "standard deviation over axes"},
        Stat{"variance", "variance over axes"}}) {
    RegisterOp({.name = std::string("relax.") + s.name,
                .params = {Arg("x"), Attr("axis", AttrValue()), Attr("keepdims", false)},
                .infer = InferStatistical,
                .summary = s.summary,
                .complete_attrs = ListifyInts({"axis"})});
  }
  RegisterOp({.name = "relax.median",
              .params = {Arg("x"), Attr("axis", AttrValue()), Attr("keepdims", false)},
              .infer = InferMedian,
              .summary = "median over axes (with indices when over one axis)",
              .complete_attrs = ListifyInts({"axis"})});
  RegisterOp({.name = "relax.argmax",
              .params = {Arg("x"), Attr("axis", AttrValue()), Attr("keepdims", false)},
              .infer = InferArgReduce,
              .summary = "index of the maximum along an axis (of the flattened tensor if None)"});
  RegisterOp({.name = "relax.argmin",
              .params = {Arg("x"), Attr("axis", AttrValue()), Attr("keepdims", false)},
              .infer = InferArgReduce,
              .summary = "index of the minimum along an axis (of the flattened tensor if None)"});
  RegisterOp({.name = "relax.cumsum",
              .params = {Arg("data"), Attr("axis", AttrValue()), OptionalDType("dtype"),
                         Attr("exclusive", false)},
              .infer = InferScan,
              .summary = "cumulative sum along an axis (of the flattened tensor if None)"});
  RegisterOp({.name = "relax.cumprod",
              .params = {Arg("data"), Attr("axis", AttrValue()), OptionalDType("dtype"),
                         Attr("exclusive", false)},
              .infer = InferScan,
              .summary = "cumulative product along an axis (of the flattened tensor if None)"});
  RegisterOp({.name = "relax.sort",
              .params = {Arg("x"), Attr("axis", -1), Attr("descending", false)},
              .infer = InferSort,
              .summary = "sort along an axis"});
  RegisterOp(
      {.name = "relax.argsort",
       .params = {Arg("data"), Attr("axis", -1), Attr("descending", false), Attr("dtype", "int32")},
       .infer = InferArgsort,
       .summary = "indices that sort a tensor along an axis"});
  RegisterOp({.name = "relax.topk",
              .params = {Arg("data"), Attr("k", 1), Attr("axis", -1), Attr("ret_type", "both"),
                         Attr("largest", true), Attr("dtype", "int32")},
              .infer = InferTopK,
              .summary = "the k largest (or smallest) elements along an axis and their indices"});
  RegisterOp({.name = "relax.bucketize",
              .params = {Arg("input_tensor"), Arg("boundaries"), Attr("out_int32", false),
                         Attr("right", false)},
              .infer = InferBucketize,
              .summary = "index of the bucket of each element given sorted boundaries"});
  RegisterOp({.name = "relax.unique",
              .params = {Arg("x"), OptionalArg("sorted", DefaultInt(1)),
                         OptionalArg("return_index", DefaultInt(0)),
                         OptionalArg("return_inverse", DefaultInt(0)),
                         OptionalArg("return_counts", DefaultInt(0)), OptionalArg("axis")},
              .infer = InferUnique,
              .summary = "the unique elements of a tensor (and optional indices and counts)"});
  RegisterOp({.name = "relax.nonzero",
              .params = {Arg("x")},
              .infer = InferNonzero,
              .summary = "the indices of the non-zero elements, one row per dimension"});
}

}  // namespace pipesplit::ir
