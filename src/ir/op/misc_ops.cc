// Smaller op families: image resizing, vision (detection post-processing), collective
// communication (ccl.*), distributed annotations (dist.*), training helpers (grad.*),
// quantization, sampling and tensor inspection (inspect.*).
#include "src/ir/op/op_families.h"

namespace pipesplit::ir {
namespace {

StructInfo InferResize(const CallNode& call, int n) {
  CheckArgCount(call, 2);
  const TensorSInfoNode& data = TensorArg(call, 0);
  const ShapeSInfoNode& size = ShapeArg(call, 1);
  if (size.ndim() != n) {
    Fail(call, "size must have " + std::to_string(n) + " dims, got " + std::to_string(size.ndim()));
  }
  CallAttrs attrs(call);
  DataType dtype = attrs.DType("out_dtype");
  if (dtype.is_void()) dtype = data.dtype();
  std::string spatial = n == 2 ? "HW" : "DHW";
  auto layout = TensorLayout::Parse(call, attrs.Str("layout"), "NC" + spatial, "data");
  auto shape = layout.ShapeOf(call, data, "data");
  if (!shape || call.args()[1]->kind() != NodeKind::kShapeExpr) {
    return MakeTensorNdim(dtype, layout.ndim(), data.vdevice());
  }
  std::vector<PrimExpr> dims = layout.ToPrimal(*shape);
  for (int i = 0; i < n; ++i) dims[i + 2] = (*size.values())[i];
  return MakeTensor(layout.FromPrimal(dims), dtype, data.vdevice());
}

StructInfo InferAffineGrid(const CallNode& call) {
  CheckArgCount(call, 2);
  const TensorSInfoNode& theta = TensorArg(call, 0);
  const ShapeSInfoNode& size = ShapeArg(call, 1);
  if (theta.ndim() != -1 && theta.ndim() != 3) Fail(call, "data must be 3-d");
  if (!theta.shape() || !size.values() || size.values()->size() != 2) {
    return MakeTensorNdim(theta.dtype(), 4, theta.vdevice());
  }
  return MakeTensor({(*theta.shape())[0], Int64(2), (*size.values())[0], (*size.values())[1]},
                    theta.dtype(), theta.vdevice());
}

StructInfo InferSameAsArg(const CallNode& call, size_t num_args, size_t result_index) {
  CheckArgCount(call, num_args);
  for (size_t i = 0; i < num_args; ++i) TensorArg(call, i);
  return ArgSInfo(call, result_index);
}

InferStructInfoFn SameAsArg(size_t num_args, size_t result_index) {
  return [num_args, result_index](const CallNode& call) {
    return InferSameAsArg(call, num_args, result_index);
  };
}

// R.ccl.allreduce: the input's struct info; the reduction is one TVM's legalization knows.
StructInfo InferAllReduce(const CallNode& call) {
  StructInfo out = InferSameAsArg(call, 1, 0);
  CallAttrs attrs(call);
  std::string op_type = attrs.Str("op_type");
  if (op_type != "sum" && op_type != "prod" && op_type != "min" && op_type != "max" &&
      op_type != "avg") {
    Fail(call,
         "op_type must be \"sum\", \"prod\", \"min\", \"max\" or \"avg\", not \"" + op_type + "\"");
  }
  attrs.Bool("in_group");
  return out;
}

// Splits (scatter, replica-to-shard) or gathers (allgather) one axis across workers.
StructInfo InferShardAxis(const CallNode& call, bool gather) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& x = TensorArg(call, 0);
  CallAttrs attrs(call);
  int64_t workers = attrs.Int("num_workers");
  if (workers <= 0) Fail(call, "num_workers must be positive");
  if (gather && FindAttr(call.attrs(), "in_group") != nullptr) attrs.Bool("in_group");
  if (!x.shape()) {
    // TVM gathers a tensor of unknown shape into one of unknown shape, and scatters only a
    // tensor of known shape.
    if (!gather) Fail(call, "expects a tensor of known shape");
    return ArgSInfo(call, 0);
  }
  std::vector<PrimExpr> shape = *x.shape();
  int axis = gather ? 0 : NormalizeAxis(call, x.ndim(), attrs.Int("axis"));
  if (x.ndim() == 0) Fail(call, "expects a tensor of at least 1 dimension");
  if (gather) {
    shape[axis] = Mul(shape[axis], Int64(workers));
  } else {
    if (auto d = AsConstInt(shape[axis]); d && *d % workers != 0) {
      Fail(call, "dimension " + std::to_string(axis) + " (" + std::to_string(*d) +
                     ") is not divisible by " + std::to_string(workers) + " workers");
    }
    shape[axis] = Simplify(MakeBinary(BinaryOp::kDiv, shape[axis], Int64(workers)));
  }
  return MakeTensor(std::move(shape), x.dtype(), x.vdevice());
}

StructInfo InferQuantize(const CallNode& call) {
  CheckArgCount(call, 3);
  const TensorSInfoNode& data = TensorArg(call, 0);
  CallAttrs attrs(call);
  if (data.ndim() != -1 && data.ndim() > 0) NormalizeAxis(call, data.ndim(), attrs.Int("axis"));
  return WithDType(data, attrs.DType("out_dtype"));
}

StructInfo InferMultinomial(const CallNode& call) {
  CheckArgCount(call, 3);
  const TensorSInfoNode& prob = TensorArg(call, 0);
  const TensorSInfoNode& uniform = TensorArg(call, 1);
  const TensorSInfoNode& indices = TensorArg(call, 2);
  DataType dtype = CallAttrs(call).DType("dtype");
  if (!prob.dtype().is_float()) Fail(call, "prob must be a float tensor");
  if (!uniform.dtype().is_float()) Fail(call, "uniform_sample must be a float tensor");
  if (!indices.dtype().is_int()) Fail(call, "sample_indices must be an int tensor");
  if (prob.ndim() == -1 || uniform.ndim() == -1 || indices.ndim() == -1) {
    return MakeTensorNdim(dtype, -1, prob.vdevice());
  }
  for (size_t i = 0; i < 3; ++i) {
    if (TensorArg(call, i).ndim() != 2) Fail(call, ArgName(call, i) + " must be 2-d");
  }
  if (!uniform.shape()) return MakeTensorNdim(dtype, 2, prob.vdevice());
  return MakeTensor({(*uniform.shape())[0], Int64(1)}, dtype, prob.vdevice());
}

// inspect.*: a scalar property of a tensor.
InferStructInfoFn Inspect(DataType dtype) {
  return [dtype](const CallNode& call) -> StructInfo {
    if (call.args().empty()) Fail(call, "expects a tensor");
    TensorArg(call, 0);
    return Make<PrimSInfoNode>(dtype);
  };
}

// ---- Vision (detection post-processing); box tensors are [batch, boxes, elements] ----

// The shape of tensor argument `arg`, which must have rank `ndim`; nullopt when unknown.
std::optional<std::vector<PrimExpr>> ShapeOfRank(const CallNode& call, size_t arg, int ndim) {
  const TensorSInfoNode& t = TensorArg(call, arg);
  if (t.ndim() != -1 && t.ndim() != ndim) {
    Fail(call, ArgName(call, arg) + " must be " + std::to_string(ndim) + "-d, got " +
                   std::to_string(t.ndim()) + "-d");
  }
  if (!t.shape()) return std::nullopt;
  return *t.shape();
}

// A tensor of the given dims, or of their number only when the dims are unknown.
StructInfo TensorOrNdim(const std::optional<std::vector<PrimExpr>>& dims, int ndim, DataType dtype,
                        const std::string& vdevice) {
  return dims ? MakeTensor(*dims, dtype, vdevice) : MakeTensorNdim(dtype, ndim, vdevice);
}

// (valid count [B] int32, the boxes moved [B, N, K], their indices [B, N] int32).
StructInfo InferGetValidCounts(const CallNode& call) {
  CheckArgCount(call, 1);
  auto shape = ShapeOfRank(call, 0, 3);
  const std::string& vdevice = TensorArg(call, 0).vdevice();
  DataType i32 = DataType::Int(32);
  std::optional<std::vector<PrimExpr>> count, indices;
  if (shape) count = {{(*shape)[0]}}, indices = {{(*shape)[0], (*shape)[1]}};
  return TupleSInfo({TensorOrNdim(count, 1, i32, vdevice), ArgSInfo(call, 0),
                     TensorOrNdim(indices, 2, i32, vdevice)});
}

// The boxes kept ([B, N, K], as data) when return_indices is false; else their indices
// [B, N] int32 and count [B, 1] int32, preceded by the rescored boxes for soft NMS (sigma > 0).
StructInfo InferNonMaxSuppression(const CallNode& call) {
  CheckArgCount(call, 3);
  auto shape = ShapeOfRank(call, 0, 3);
  TensorArg(call, 1);
  TensorArg(call, 2);
  CallAttrs attrs(call);
  if (!attrs.Bool("return_indices")) return ArgSInfo(call, 0);
  const std::string& vdevice = TensorArg(call, 0).vdevice();
  DataType i32 = DataType::Int(32);
  std::optional<std::vector<PrimExpr>> indices, count;
  if (shape) indices = {{(*shape)[0], (*shape)[1]}}, count = {{(*shape)[0], Int64(1)}};
  std::vector<StructInfo> fields;
  const AttrValue& sigma = attrs.Get("soft_nms_sigma");
  const double* sigma_f = sigma.as_float();
  std::optional<int64_t> sigma_i = sigma.ToInt();
  if ((sigma_f != nullptr && *sigma_f > 0) || (sigma_i && *sigma_i > 0)) {
    fields.push_back(ArgSInfo(call, 0));
  }
  fields.push_back(TensorOrNdim(indices, 2, i32, vdevice));
  fields.push_back(TensorOrNdim(count, 2, i32, vdevice));
  return TupleSInfo(std::move(fields));
}

// boxes [B, N, 4], scores [B, C, N] -> "onnx": (selected [B*C*N, 3] int64, count [1] int64);
// "tensorflow": (indices [B, C*N, 2] int64, scores [B, C*N] float32, counts [B] int64).
StructInfo InferAllClassNonMaxSuppression(const CallNode& call) {
  CheckArgCount(call, 5);
  auto boxes = ShapeOfRank(call, 0, 3);
  auto scores = ShapeOfRank(call, 1, 3);
  const std::string& vdevice = TensorArg(call, 0).vdevice();
  const DataType i64 = DataType::Int(64);
  std::optional<std::vector<PrimExpr>> a, b, c;
  std::vector<StructInfo> fields;
  if (CallAttrs(call).Str("output_format") == "onnx") {
    if (boxes && scores) {
      a = {{Mul(Mul((*boxes)[0], (*scores)[1]), (*boxes)[1]), Int64(3)}};
    }
    fields.push_back(TensorOrNdim(a, 2, i64, vdevice));
    fields.push_back(TensorOrNdim(std::vector<PrimExpr>{Int64(1)}, 1, i64, vdevice));
    return TupleSInfo(std::move(fields));
  }
  if (boxes && scores) {
    const PrimExpr per_batch = Mul((*scores)[1], (*boxes)[1]);
    a = {{(*boxes)[0], per_batch, Int64(2)}};
    b = {{(*boxes)[0], per_batch}};
    c = {{(*boxes)[0]}};
  }
  fields.push_back(TensorOrNdim(a, 3, i64, vdevice));
  fields.push_back(TensorOrNdim(b, 2, DataType::Float(32), vdevice));
  fields.push_back(TensorOrNdim(c, 1, i64, vdevice));
  return TupleSInfo(std::move(fields));
}

// cls_pred [B, C, N], loc_pred [B, 4N], anchor [1, N, 4] -> (boxes [B, N, 4], scores [B, C, N]).
StructInfo InferMultiboxTransformLoc(const CallNode& call) {
  CheckArgCount(call, 3);
  auto cls = ShapeOfRank(call, 0, 3);
  ShapeOfRank(call, 1, 2);
  ShapeOfRank(call, 2, 3);
  const TensorSInfoNode& loc_t = TensorArg(call, 1);
  std::optional<std::vector<PrimExpr>> boxes;
  if (cls) boxes = {{(*cls)[0], (*cls)[2], Int64(4)}};
  return TupleSInfo({TensorOrNdim(boxes, 3, loc_t.dtype(), loc_t.vdevice()), ArgSInfo(call, 0)});
}

std::vector<OpParam> ResizeParams(int n) {
  AttrList roi;
  for (int i = 0; i < 2 * n; ++i) roi.emplace_back(FloatImm(0.0, DataType::Float(32)));
  return {Arg("data"),
          Arg("size"),
          Attr("roi", roi),
          Attr("layout", n == 2 ? "NCHW" : "NCDHW"),
          Attr("method", "linear"),
          Attr("coordinate_transformation_mode", "half_pixel"),
          Attr("rounding_method", n == 2 ? "round" : ""),
          Attr("cubic_alpha", -0.75),
          Attr("cubic_exclude", 0),
          Attr("extrapolation_value", 0.0),
          OptionalDType("out_dtype")};
}

void RegisterVision() {
  RegisterOp(
      {.name = "relax.vision.roi_align",
       .params = {Arg("data"), Arg("rois"), RequiredAttr("pooled_size"),
                  RequiredAttr("spatial_scale"), Attr("sample_ratio", -1), Attr("aligned", false),
                  Attr("layout", "NCHW"), Attr("mode", "avg")},
       .infer = nullptr,
       .summary = "region-of-interest align pooling",
       .complete_attrs = Then(ListifyInts({"pooled_size"}), FloatifyInts({"spatial_scale"}))});
  RegisterOp(
      {.name = "relax.vision.roi_pool",
       .params = {Arg("data"), Arg("rois"), RequiredAttr("pooled_size"),
                  RequiredAttr("spatial_scale"), Attr("layout", "NCHW")},
       .infer = nullptr,
       .summary = "region-of-interest max pooling",
       .complete_attrs = Then(ListifyInts({"pooled_size"}), FloatifyInts({"spatial_scale"}))});
  RegisterOp({.name = "relax.vision.get_valid_counts",
              .params = {Arg("data"), Attr("score_threshold", 0.0), Attr("id_index", 0),
                         Attr("score_index", 1)},
              .infer = InferGetValidCounts,
              .summary = "count and move the boxes above a score threshold to the front"});
  RegisterOp(
      {.name = "relax.vision.non_max_suppression",
       .params = {Arg("data"), Arg("valid_count"), Arg("indices"), Attr("max_output_size", -1),
                  Attr("iou_threshold", 0.5), Attr("force_suppress", false), Attr("top_k", -1),
                  Attr("coord_start", 2), Attr("score_index", 1), Attr("id_index", 0),
                  Attr("return_indices", true), Attr("invalid_to_bottom", false),
                  Attr("soft_nms_sigma", 0.0), Attr("score_threshold", 0.0)},
       .infer = InferNonMaxSuppression,
       .summary = "non-maximum suppression of detection boxes"});
  RegisterOp(
      {.name = "relax.vision.all_class_non_max_suppression",
       .params = {Arg("boxes"), Arg("scores"), Arg("max_output_boxes_per_class"),
                  Arg("iou_threshold"), Arg("score_threshold"), Attr("output_format", "onnx")},
       .infer = InferAllClassNonMaxSuppression,
       .summary = "non-maximum suppression per class (ONNX semantics)"});
  RegisterOp({.name = "relax.vision.multibox_transform_loc",
              .params = {Arg("cls_pred"), Arg("loc_pred"), Arg("anchor"), Attr("clip", false),
                         Attr("threshold", 0.0), Attr("variances", FloatList({1.0, 1.0, 1.0, 1.0})),
                         Attr("keep_background", true)},
              .infer = InferMultiboxTransformLoc,
              .summary = "decode SSD box predictions against anchors"});
}

}  // namespace

void RegisterMiscOps() {
  RegisterOp({.name = "relax.image.resize2d",
              .params = ResizeParams(2),
              .infer = [](const CallNode& call) { return InferResize(call, 2); },
              .summary = "resize the spatial dims of an image batch"});
  RegisterOp({.name = "relax.image.resize3d",
              .params = ResizeParams(3),
              .infer = [](const CallNode& call) { return InferResize(call, 3); },
              .summary = "resize the spatial dims of a volume batch"});
  RegisterOp(
      {.name = "relax.image.grid_sample",
       .params = {Arg("data"), Arg("grid"), Attr("method", "bilinear"), Attr("layout", "NCHW"),
                  Attr("padding_mode", "zeros"), Attr("align_corners", false)},
       .infer = nullptr,
       .summary = "sample an image at grid coordinates"});
  RegisterOp({.name = "relax.image.affine_grid",
              .params = {Arg("data"), Arg("size")},
              .infer = InferAffineGrid,
              .summary = "sampling grid of an affine transform"});
  RegisterVision();

  RegisterOp(
      {.name = "relax.reverse_sequence",
       .params = {Arg("data"), Arg("seq_lengths"), Attr("seq_axis", 1), Attr("batch_axis", 0)},
       .infer = SameAsArg(2, 0),
       .summary = "reverse the first seq_lengths[b] elements of each batch row"});

  RegisterOp({.name = "relax.ccl.allreduce",
              .params = {Arg("x"), Attr("op_type", "sum"), Attr("in_group", true)},
              .infer = InferAllReduce,
              .summary = "all-reduce a tensor across workers"});
  RegisterOp({.name = "relax.ccl.allgather",
              .params = {Arg("x"), RequiredAttr("num_workers"), Attr("in_group", true)},
              .infer = [](const CallNode& call) { return InferShardAxis(call, true); },
              .summary = "gather a tensor from all workers along its first axis"});
  RegisterOp({.name = "relax.ccl.broadcast_from_worker0",
              .params = {Arg("x")},
              .infer = SameAsArg(1, 0),
              .summary = "broadcast worker 0's tensor to every worker"});
  RegisterOp({.name = "relax.ccl.scatter_from_worker0",
              .params = {Arg("x"), RequiredAttr("num_workers"), Attr("axis", 0)},
              .infer = [](const CallNode& call) { return InferShardAxis(call, false); },
              .summary = "split worker 0's tensor along an axis, one part per worker"});
  RegisterOp({.name = "relax.dist.redistribute_replica_to_shard",
              .params = {Arg("input"), RequiredAttr("num_workers"), RequiredAttr("axis")},
              .infer = [](const CallNode& call) { return InferShardAxis(call, false); },
              .summary = "keep this worker's shard of a replicated tensor"});
  RegisterOp({.name = "relax.dist.annotate_sharding",
              .params = {Arg("input"), RequiredAttr("device_mesh"), RequiredAttr("placement")},
              .infer = SameAsArg(1, 0),
              .summary = "annotate how a tensor is sharded over a device mesh"});
  RegisterOp({.name = "relax.dist.redistribute",
              .params = {Arg("input"), RequiredAttr("device_mesh"), RequiredAttr("placement")},
              .infer = nullptr,
              .summary = "change the sharding of a distributed tensor"});
  RegisterOp({.name = "relax.dist.call_tir_local_view",
              .params = {Arg("gvar"), Arg("args"), SInfoArgs("out_sinfo"), OptionalArg("tir_vars")},
              .infer = DeclaredResult,
              .summary = "call a TIR kernel on the local shards of distributed tensors"});

  RegisterOp({.name = "relax.grad.no_grad",
              .params = {Arg("input")},
              .infer = SameAsArg(1, 0),
              .summary = "stop gradients from flowing through a value"});
  RegisterOp({.name = "relax.grad.start_checkpoint",
              .params = {Arg("input")},
              .infer = SameAsArg(1, 0),
              .summary = "mark the start of a gradient checkpoint"});
  RegisterOp({.name = "relax.grad.end_checkpoint",
              .params = {Arg("input")},
              .infer = SameAsArg(1, 0),
              .summary = "mark the end of a gradient checkpoint"});
  RegisterOp(
      {.name = "relax.grad.nll_loss_backward",
       .params = {Arg("output_grad"), Arg("predictions"), Arg("targets"), OptionalArg("weights"),
                  Attr("reduction", "mean"), Attr("ignore_index", -100)},
       .infer =
           [](const CallNode& call) {
             CheckArgCountBetween(call, 3, 4);
             return ArgSInfo(call, 1);
           },
       .summary = "gradient of nn.nll_loss with respect to the predictions"});
  RegisterOp({.name = "relax.grad.take_backward",
              .params = {Arg("output_grad"), Arg("x"), Arg("indices"), Attr("axis", AttrValue()),
                         Attr("mode", "")},
              .infer = SameAsArg(3, 1),
              .summary = "gradient of take with respect to its data"});

  RegisterOp({.name = "relax.quantize",
              .params = {Arg("data"), Arg("scale"), Arg("zero_point"), Attr("axis", -1),
                         Attr("out_dtype", "int8")},
              .infer = InferQuantize,
              .summary = "quantize a float tensor with a scale and zero point",
              .attr_order = {"out_dtype", "axis"}});
  RegisterOp({.name = "relax.dequantize",
              .params = {Arg("data"), Arg("scale"), Arg("zero_point"), Attr("axis", -1),
                         Attr("out_dtype", "float32")},
              .infer = InferQuantize,
              .summary = "dequantize an integer tensor with a scale and zero point",
              .attr_order = {"out_dtype", "axis"}});
  RegisterOp({.name = "relax.multinomial_from_uniform",
              .params = {Arg("prob"), Arg("uniform_sample"), Arg("sample_indices"),
                         Attr("dtype", "int64")},
              .infer = InferMultinomial,
              .summary = "sample from categorical distributions given uniform samples"});

  RegisterOp({.name = "relax.inspect.tensor_dtype_code",
              .params = {Arg("expr")},
              .infer = Inspect(DataType::UInt(8)),
              .summary = "the type code of a tensor's dtype"});
  RegisterOp({.name = "relax.inspect.tensor_dtype_bits",
              .params = {Arg("expr")},
              .infer = Inspect(DataType::UInt(8)),
              .summary = "the bit width of a tensor's dtype"});
  RegisterOp({.name = "relax.inspect.tensor_dtype_lanes",
              .params = {Arg("expr")},
              .infer = Inspect(DataType::UInt(16)),
              .summary = "the vector lanes of a tensor's dtype"});
  RegisterOp({.name = "relax.inspect.tensor_ndim",
              .params = {Arg("expr")},
              .infer = Inspect(DataType::Int(32)),
              .summary = "the rank of a tensor"});
  RegisterOp({.name = "relax.inspect.tensor_shape_i",
              .params = {Arg("expr"), Arg("axis")},
              .infer = Inspect(DataType::Int(64)),
              .summary = "one dim of a tensor's shape"});
  RegisterOp({.name = "relax.inspect.tensor_stride_i",
              .params = {Arg("expr"), Arg("axis")},
              .infer = Inspect(DataType::Int(64)),
              .summary = "one stride of a tensor"});
  RegisterOp({.name = "relax.inspect.tensor_byte_offset",
              .params = {Arg("expr")},
              .infer = Inspect(DataType::UInt(64)),
              .summary = "the byte offset of a tensor's data"});
  RegisterOp({.name = "relax.inspect.tensor_elem_offset",
              .params = {Arg("expr")},
              .infer = Inspect(DataType::UInt(64)),
              .summary = "the element offset of a tensor's data"});
}

}  // namespace pipesplit::ir
