// Elementwise operators: unary math, binary arithmetic with numpy broadcasting, comparisons,
// logical and bitwise ops, clip, ewise_fma, where, astype and wrap_param.
#include <algorithm>

#include "src/ir/op/op_families.h"

namespace pipesplit::ir {
namespace {

// ---- Unary ----

StructInfo InferUnary(const CallNode& call, bool require_float, std::optional<DataType> out) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& x = TensorArg(call, 0);
  if (require_float && !x.dtype().is_void() && !x.dtype().is_float()) {
    Fail(call, "requires a float tensor, got " + x.dtype().ToString());
  }
  if (!out) return ArgSInfo(call, 0);
  return WithDType(x, *out);
}

InferStructInfoFn UnaryRule(bool require_float) {
  return [require_float](const CallNode& call) {
    return InferUnary(call, require_float, std::nullopt);
  };
}

StructInfo InferUnaryCheck(const CallNode& call) {
  return InferUnary(call, false, DataType::Bool());
}

// ---- Binary ----

// The element dtype of a binary operand, which must be a tensor or a scalar prim value.
DataType OperandDType(const CallNode& call, size_t i) {
  const StructInfo& s = ArgSInfo(call, i);
  if (const auto* t = As<TensorSInfoNode>(s)) return t->dtype();
  if (const auto* p = As<PrimSInfoNode>(s)) return p->dtype();
  Fail(call, "operands must be tensors or R.Prim values, got " + SInfoKindName(s));
}

// TVM's rule for arithmetic: unknown (void) if either is unknown; otherwise both must agree
// unless one of them is bool. The left dtype wins.
DataType ArithDType(const CallNode& call, DataType lhs, DataType rhs) {
  if (lhs.is_void() || rhs.is_void()) return DataType::Void();
  if (lhs != rhs && !lhs.is_bool() && !rhs.is_bool()) {
    Fail(call, "dtypes " + lhs.ToString() + " and " + rhs.ToString() + " do not match");
  }
  return lhs;
}

StructInfo InferBroadcast(const CallNode& call, bool is_comparison) {
  CheckArgCount(call, 2);
  DataType lhs_dtype = OperandDType(call, 0);
  DataType rhs_dtype = OperandDType(call, 1);
  DataType dtype = is_comparison ? DataType::Bool() : ArithDType(call, lhs_dtype, rhs_dtype);
  const auto* lt = As<TensorSInfoNode>(ArgSInfo(call, 0));
  const auto* rt = As<TensorSInfoNode>(ArgSInfo(call, 1));
  if (lt == nullptr && rt == nullptr) return Make<PrimSInfoNode>(dtype);
  std::string vdevice = JoinVDevice(call, lt ? lt->vdevice() : "", rt ? rt->vdevice() : "");
  // A scalar prim value broadcasts like a tensor of shape (1,), as in TVM.
  int lhs_ndim = lt ? lt->ndim() : 1;
  int rhs_ndim = rt ? rt->ndim() : 1;
  int ndim = (lhs_ndim == -1 || rhs_ndim == -1) ? -1 : std::max(lhs_ndim, rhs_ndim);
  std::optional<std::vector<PrimExpr>> lhs_shape = std::vector<PrimExpr>{Int64(1)};
  std::optional<std::vector<PrimExpr>> rhs_shape = std::vector<PrimExpr>{Int64(1)};
  if (lt != nullptr) lhs_shape = lt->shape();
  if (rt != nullptr) rhs_shape = rt->shape();
  if (lhs_shape && rhs_shape) {
    if (auto out = BroadcastShapes(call, *lhs_shape, *rhs_shape)) {
      return MakeTensor(std::move(*out), dtype, vdevice);
    }
  }
  return MakeTensorNdim(dtype, ndim, vdevice);
}

StructInfo InferArith(const CallNode& call) { return InferBroadcast(call, false); }
StructInfo InferCompare(const CallNode& call) { return InferBroadcast(call, true); }

// ---- Others ----

StructInfo InferClip(const CallNode& call) {
  CheckArgCount(call, 3);
  return ArgSInfo(call, 0);
}

StructInfo InferEwiseFMA(const CallNode& call) {
  CheckArgCount(call, 3);
  const TensorSInfoNode* t[3] = {&TensorArg(call, 0), &TensorArg(call, 1), &TensorArg(call, 2)};
  int ndim = -1;
  for (const TensorSInfoNode* x : t) {
    if (x->ndim() == -1) continue;
    if (ndim == -1) {
      ndim = x->ndim();
    } else if (x->ndim() != ndim) {
      Fail(call, "the three operands must have the same number of dimensions");
    }
  }
  DataType dtype = t[0]->dtype();
  if (t[0]->dtype().is_void() || t[1]->dtype().is_void() || t[2]->dtype().is_void()) {
    dtype = DataType::Void();
  } else if (t[0]->dtype() != t[1]->dtype() || t[1]->dtype() != t[2]->dtype()) {
    Fail(call, "dtypes " + t[0]->dtype().ToString() + ", " + t[1]->dtype().ToString() + " and " +
                   t[2]->dtype().ToString() + " do not match");
  }
  std::string vdevice;
  for (const TensorSInfoNode* x : t) {
    if (x->vdevice().empty()) continue;
    if (vdevice.empty()) {
      vdevice = x->vdevice();
    } else if (x->vdevice() != vdevice) {
      vdevice.clear();
      break;
    }
  }
  if (t[0]->shape() && t[1]->shape() && t[2]->shape()) {
    std::vector<PrimExpr> shape;
    for (int i = 0; i < ndim; ++i) {
      const PrimExpr& d = (*t[0]->shape())[i];
      if (!ProvablyEq(d, (*t[1]->shape())[i]) || !ProvablyEq(d, (*t[2]->shape())[i])) {
        Fail(call, "the three operands must have the same shape");
      }
      shape.push_back(d);
    }
    return MakeTensor(std::move(shape), dtype, vdevice);
  }
  return MakeTensorNdim(dtype, ndim, vdevice);
}

StructInfo InferWhere(const CallNode& call) {
  CheckArgCount(call, 3);
  const TensorSInfoNode& cond = TensorArg(call, 0);
  const TensorSInfoNode& x1 = TensorArg(call, 1);
  const TensorSInfoNode& x2 = TensorArg(call, 2);
  std::string vdevice;
  for (const TensorSInfoNode* x : {&cond, &x1, &x2}) {
    if (x->vdevice().empty()) continue;
    if (vdevice.empty()) {
      vdevice = x->vdevice();
    } else if (x->vdevice() != vdevice) {
      vdevice.clear();
      break;
    }
  }
  if (!cond.dtype().is_bool()) {
    Fail(call, "condition must have dtype bool, got " + cond.dtype().ToString());
  }
  DataType dtype = ArithDType(call, x1.dtype(), x2.dtype());
  int ndim = (cond.ndim() == -1 || x1.ndim() == -1 || x2.ndim() == -1)
                 ? -1
                 : std::max({cond.ndim(), x1.ndim(), x2.ndim()});
  if (cond.shape() && x1.shape() && x2.shape()) {
    auto values = BroadcastShapes(call, *x1.shape(), *x2.shape());
    if (values) values = BroadcastShapes(call, *cond.shape(), *values);
    if (values) return MakeTensor(std::move(*values), dtype, vdevice);
  }
  return MakeTensorNdim(dtype, ndim, vdevice);
}

StructInfo InferAstype(const CallNode& call) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& x = TensorArg(call, 0);
  return WithDType(x, CallAttrs(call).DType("dtype"));
}

void Unary(const std::string& name, bool require_float, const std::string& summary,
           const std::string& arg = "x") {
  RegisterOp({.name = "relax." + name,
              .params = {Arg(arg)},
              .infer = UnaryRule(require_float),
              .summary = summary});
}

void Binary(const std::string& name, InferStructInfoFn infer, const std::string& summary) {
  RegisterOp({.name = "relax." + name,
              .params = {Arg("x1"), Arg("x2")},
              .infer = std::move(infer),
              .summary = summary});
}

}  // namespace

void RegisterElementwiseOps() {
  // Unary arithmetic (true: the input must be a float tensor).
  Unary("abs", false, "elementwise absolute value");
  Unary("acos", true, "elementwise arc cosine");
  Unary("acosh", true, "elementwise inverse hyperbolic cosine");
  Unary("asin", true, "elementwise arc sine");
  Unary("asinh", true, "elementwise inverse hyperbolic sine");
  Unary("atan", true, "elementwise arc tangent");
  Unary("atanh", true, "elementwise inverse hyperbolic tangent");
  Unary("bitwise_not", false, "elementwise bitwise not");
  Unary("ceil", false, "elementwise ceiling");
  Unary("cos", true, "elementwise cosine");
  Unary("cosh", true, "elementwise hyperbolic cosine");
  Unary("exp", true, "elementwise exponential");
  Unary("floor", false, "elementwise floor");
  Unary("log", true, "elementwise natural logarithm");
  Unary("logical_not", false, "elementwise logical not");
  Unary("negative", false, "elementwise negation");
  Unary("round", false, "elementwise rounding to the nearest integer");
  Unary("rsqrt", true, "elementwise reciprocal square root");
  Unary("sigmoid", true, "elementwise logistic sigmoid");
  Unary("sign", false, "elementwise sign");
  Unary("sin", true, "elementwise sine");
  Unary("sinh", true, "elementwise hyperbolic sine");
  Unary("square", false, "elementwise square");
  Unary("sqrt", true, "elementwise square root");
  Unary("tan", true, "elementwise tangent");
  Unary("tanh", true, "elementwise hyperbolic tangent");
  Unary("trunc", false, "elementwise truncation toward zero");
  Unary("erf", true, "elementwise error function");
  Unary("nn.relu", false, "rectified linear unit", "data");
  Unary("nn.gelu", true, "Gaussian error linear unit (erf form)", "data");
  Unary("nn.gelu_tanh", true, "Gaussian error linear unit (tanh approximation)", "data");
  Unary("nn.selu", true, "scaled exponential linear unit", "data");
  Unary("nn.silu", true, "sigmoid linear unit, x * sigmoid(x)", "data");
  for (const char* name : {"isfinite", "isinf", "isnan"}) {
    RegisterOp({.name = std::string("relax.") + name,
                .params = {Arg("x")},
                .infer = InferUnaryCheck,
                .summary = std::string("elementwise ") + name + " test (bool result)"});
  }

  // Binary arithmetic with broadcasting.
  Binary("add", InferArith, "elementwise addition with broadcasting");
  Binary("subtract", InferArith, "elementwise subtraction with broadcasting");
  Binary("multiply", InferArith, "elementwise multiplication with broadcasting");
  Binary("divide", InferArith, "elementwise true division with broadcasting");
  Binary("floor_divide", InferArith, "elementwise floor division with broadcasting");
  Binary("mod", InferArith, "elementwise truncated remainder with broadcasting");
  Binary("floor_mod", InferArith, "elementwise floored remainder with broadcasting");
  Binary("power", InferArith, "elementwise power with broadcasting");
  Binary("log_add_exp", InferArith, "elementwise log(exp(x1) + exp(x2))");
  Binary("atan2", InferArith, "elementwise arc tangent of x1 / x2");
  Binary("maximum", InferArith, "elementwise maximum with broadcasting");
  Binary("minimum", InferArith, "elementwise minimum with broadcasting");
  Binary("logical_and", InferArith, "elementwise logical and");
  Binary("logical_or", InferArith, "elementwise logical or");
  Binary("logical_xor", InferArith, "elementwise logical xor");
  Binary("bitwise_and", InferArith, "elementwise bitwise and");
  Binary("bitwise_or", InferArith, "elementwise bitwise or");
  Binary("bitwise_xor", InferArith, "elementwise bitwise xor");
  Binary("left_shift", InferArith, "elementwise left shift");
  Binary("right_shift", InferArith, "elementwise right shift");
  // Comparisons: bool result, no dtype check (as TVM).
  Binary("equal", InferCompare, "elementwise x1 == x2");
  Binary("not_equal", InferCompare, "elementwise x1 != x2");
  Binary("less", InferCompare, "elementwise x1 < x2");
  Binary("less_equal", InferCompare, "elementwise x1 <= x2");
  Binary("greater", InferCompare, "elementwise x1 > x2");
  Binary("greater_equal", InferCompare, "elementwise x1 >= x2");

  RegisterOp({.name = "relax.clip",
              .params = {Arg("x"), Arg("min"), Arg("max")},
              .infer = InferClip,
              .summary = "clamp every element into [min, max]"});
  RegisterOp({.name = "relax.ewise_fma",
              .params = {Arg("x1"), Arg("x2"), Arg("x3")},
              .infer = InferEwiseFMA,
              .summary = "elementwise x1 * x2 + x3 on equally shaped tensors"});
  RegisterOp({.name = "relax.where",
              .params = {Arg("condition"), Arg("x1"), Arg("x2")},
              .infer = InferWhere,
              .summary = "select x1 where condition holds, else x2 (broadcasting)"});
  RegisterOp({.name = "relax.astype",
              .params = {Arg("x"), RequiredAttr("dtype")},
              .infer = InferAstype,
              .summary = "cast a tensor to another dtype"});
  RegisterOp({.name = "relax.wrap_param",
              .params = {Arg("data"), Attr("dtype", "float32")},
              .infer = InferAstype,
              .summary = "cast a model parameter to the dtype the model computes in"});
}

}  // namespace pipesplit::ir
