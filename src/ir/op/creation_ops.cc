// Tensor creation operators: full, ones, zeros and their *_like forms, eye, eye_like, arange,
// hamming_window, and the triangular masks tril and triu.
#include <cmath>

#include "src/ir/op/op_families.h"

namespace pipesplit::ir {
namespace {

StructInfo InferFull(const CallNode& call) {
  CheckArgCount(call, 2);
  ShapeArg(call, 0);  // checked before fill_value
  const auto* fill = As<TensorSInfoNode>(ArgSInfo(call, 1));
  // An unknown rank is accepted: metadata constants are read without their shapes.
  if (fill == nullptr || (fill->ndim() != 0 && fill->ndim() != -1)) {
    Fail(call, "fill_value must be a 0-d tensor");
  }
  DataType dtype = CallAttrs(call).DType("dtype");
  return TensorOfShapeArg(call, 0, dtype.is_void() ? fill->dtype() : dtype, fill->vdevice());
}

StructInfo InferFullLike(const CallNode& call) {
  CheckArgCount(call, 2);
  const TensorSInfoNode& x = TensorArg(call, 0);
  const TensorSInfoNode& fill = TensorArg(call, 1);
  if (fill.ndim() != 0 && fill.ndim() != -1) {
    Fail(call,
         "fill_value must be a 0-d tensor, got " + std::to_string(fill.ndim()) + " dimensions");
  }
  DataType dtype = CallAttrs(call).DType("dtype");
  if (dtype.is_void()) return ArgSInfo(call, 0);
  return WithDType(x, dtype);
}

StructInfo InferOnesZeros(const CallNode& call) {
  CheckArgCount(call, 1);
  return TensorOfShapeArg(call, 0, CallAttrs(call).DType("dtype"), "");
}

StructInfo InferLike(const CallNode& call) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& x = TensorArg(call, 0);
  DataType dtype = CallAttrs(call).DType("dtype");
  if (dtype.is_void()) return ArgSInfo(call, 0);
  return WithDType(x, dtype);
}

// The value of a PrimValue argument, which must be known.
PrimExpr RequirePrim(const CallNode& call, size_t i) {
  PrimExpr v = PrimArgValue(call, i);
  if (!v) Fail(call, ArgName(call, i) + " must be an R.prim_value");
  return v;
}

StructInfo InferEye(const CallNode& call) {
  CheckArgCountBetween(call, 2, 3);
  PrimExpr n = RequirePrim(call, 0);
  // Without m the matrix is square (TVM's constructor stores m = n).
  PrimExpr m = call.args().size() == 3 ? RequirePrim(call, 1) : n;
  return MakeTensor({n, m}, CallAttrs(call).DType("dtype"), "");
}

StructInfo InferEyeLike(const CallNode& call) {
  CheckArgCountBetween(call, 1, 2);
  const TensorSInfoNode& x = TensorArg(call, 0);
  if (x.ndim() != 2 && x.ndim() != -1) {
    Fail(call, "x must be 2-d, got " + std::to_string(x.ndim()) + " dimensions");
  }
  DataType dtype = CallAttrs(call).DType("dtype");
  return WithDType(x, dtype.is_void() ? x.dtype() : dtype);
}

StructInfo InferArange(const CallNode& call) {
  CheckArgCount(call, 3);
  PrimExpr start = RequirePrim(call, 0);
  PrimExpr end = RequirePrim(call, 1);
  PrimExpr step = RequirePrim(call, 2);
  DataType dtype = CallAttrs(call).DType("dtype");
  if (start->dtype().is_integer() && end->dtype().is_integer() && step->dtype().is_integer()) {
    if (AsConstInt(step) == 0) Fail(call, "step must not be zero");
    // The length is a dim: computed in int64 whatever the bounds' integer type.
    start = CastTo(start, DataType::Int(64));
    end = CastTo(end, DataType::Int(64));
    step = CastTo(step, DataType::Int(64));
    PrimExpr n = NormalizeArith(FloorDiv(Sub(Add(Sub(end, start), step), Int64(1)), step));
    return MakeTensor({n}, dtype, "");
  }
  auto number = [](const PrimExpr& e) -> std::optional<double> {
    if (const auto* f = As<FloatImmNode>(e)) return f->value();
    if (auto i = AsConstInt(e)) return static_cast<double>(*i);
    return std::nullopt;
  };
  auto s = number(start), e = number(end), st = number(step);
  if (s && e && st) {
    if (*st == 0) Fail(call, "step must not be zero");
    // TVM computes the length in float32.
    float len = std::ceil(static_cast<float>(*e - *s) / static_cast<float>(*st));
    if (!std::isfinite(len) || std::fabs(len) > 9.0e18f) return MakeTensorNdim(dtype, 1, "");
    return MakeTensor({Int64(static_cast<int64_t>(len))}, dtype, "");
  }
  return MakeTensorNdim(dtype, 1, "");
}

// R.arange's dtype when not given: int64 for integer bounds, else float32.
AttrMap CompleteArange(AttrMap attrs, const std::vector<Expr>& args) {
  for (auto& [key, value] : attrs) {
    if (key != "dtype" || !value.is_none() || args.empty()) continue;
    bool all_int = true;
    for (const Expr& a : args) {
      const auto* p = As<PrimSInfoNode>(a->struct_info());
      all_int &= p != nullptr && p->dtype().is_integer();
    }
    value = all_int ? "int64" : "float32";
  }
  return attrs;
}

StructInfo InferHammingWindow(const CallNode& call) {
  CheckArgCount(call, 4);
  DataType dtype = CallAttrs(call).DType("dtype");
  if (dtype.is_integer()) Fail(call, "dtype must be a float type, got " + dtype.ToString());
  PrimExpr size = RequirePrim(call, 0);
  if (auto c = AsConstInt(size); c && *c < 1) {
    Fail(call, "window_size must be positive, got " + std::to_string(*c));
  }
  return MakeTensor({size}, dtype, "");
}

StructInfo InferTriangular(const CallNode& call) {
  CheckArgCount(call, 2);
  const TensorSInfoNode& x = TensorArg(call, 0);
  if (ArgSInfo(call, 1)->kind() != NodeKind::kPrimSInfo) {
    Fail(call, "k must be an R.Prim value, got " + SInfoKindName(ArgSInfo(call, 1)));
  }
  if (x.ndim() != -1 && x.ndim() < 2) {
    Fail(call, "x must have at least 2 dimensions, got " + std::to_string(x.ndim()));
  }
  return ArgSInfo(call, 0);
}

}  // namespace

void RegisterCreationOps() {
  RegisterOp({.name = "relax.full",
              .params = {Arg("shape"), Arg("fill_value"), OptionalDType("dtype")},
              .infer = InferFull,
              .summary = "a tensor of a shape filled with a scalar"});
  RegisterOp({.name = "relax.full_like",
              .params = {Arg("x"), Arg("fill_value"), OptionalDType("dtype")},
              .infer = InferFullLike,
              .summary = "a tensor shaped like x filled with a scalar"});
  RegisterOp({.name = "relax.ones",
              .params = {Arg("shape"), RequiredAttr("dtype")},
              .infer = InferOnesZeros,
              .summary = "a tensor of ones"});
  RegisterOp({.name = "relax.ones_like",
              .params = {Arg("x"), OptionalDType("dtype")},
              .infer = InferLike,
              .summary = "a tensor of ones shaped like x"});
  RegisterOp({.name = "relax.zeros",
              .params = {Arg("shape"), RequiredAttr("dtype")},
              .infer = InferOnesZeros,
              .summary = "a tensor of zeros"});
  RegisterOp({.name = "relax.zeros_like",
              .params = {Arg("x"), OptionalDType("dtype")},
              .infer = InferLike,
              .summary = "a tensor of zeros shaped like x"});
  RegisterOp({.name = "relax.eye",
              .params = {Arg("n"), OptionalArg("m"), OptionalArg("k", DefaultInt(0)),
                         Attr("dtype", "float32")},
              .infer = InferEye,
              .summary = "a 2-d tensor with ones on a diagonal"});
  RegisterOp({.name = "relax.eye_like",
              .params = {Arg("x"), OptionalArg("k", DefaultInt(0)), OptionalDType("dtype")},
              .infer = InferEyeLike,
              .summary = "a tensor shaped like x with ones on a diagonal"});
  RegisterOp({.name = "relax.arange",
              .params = {Arg("start"), Arg("end"), OptionalArg("step", DefaultInt(1)),
                         Attr("dtype", AttrValue())},
              .infer = InferArange,
              .summary = "evenly spaced values in [start, end)",
              .complete_attrs = CompleteArange});
  RegisterOp({.name = "relax.hamming_window",
              .params = {Arg("window_size"), Arg("periodic"), Arg("alpha"), Arg("beta"),
                         RequiredAttr("dtype")},
              .infer = InferHammingWindow,
              .summary = "a Hamming window"});
  RegisterOp({.name = "relax.tril",
              .params = {Arg("x"), OptionalArg("k", DefaultInt(0))},
              .infer = InferTriangular,
              .summary = "the lower triangle of the last two dimensions (others zeroed)"});
  RegisterOp({.name = "relax.triu",
              .params = {Arg("x"), OptionalArg("k", DefaultInt(0))},
              .infer = InferTriangular,
              .summary = "the upper triangle of the last two dimensions (others zeroed)"});
}

}  // namespace pipesplit::ir
