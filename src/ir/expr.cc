#include "pipesplit/ir/expr.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "pipesplit/ir/op.h"
#include "pipesplit/support/check.h"

namespace pipesplit::ir {
namespace {

StructInfo LiteralSInfo(const std::vector<int64_t>& shape, DataType dtype) {
  std::vector<PrimExpr> dims;
  dims.reserve(shape.size());
  for (int64_t d : shape) dims.push_back(IntImm(d, DataType::Int(64)));
  return TensorSInfo(std::move(dims), dtype);
}

ConstantNode::Scalar Rounded(ConstantNode::Scalar value, DataType dtype) {
  if (const double* d = std::get_if<double>(&value)) return RoundToDType(*d, dtype);
  return value;
}

std::vector<ConstantNode::Scalar> Rounded(std::vector<ConstantNode::Scalar> values,
                                          DataType dtype) {
  for (ConstantNode::Scalar& v : values) v = Rounded(v, dtype);
  return values;
}

}  // namespace

double RoundToDType(double value, DataType dtype) {
  if (!dtype.is_float() || !std::isfinite(value) || value == 0) return value;
  if (dtype == DataType::Float(32)) {
    return static_cast<double>(static_cast<float>(value));
  }
  // Significant bits, smallest exponent of a subnormal step, largest finite value.
  int bits = 0;
  int min_step_exp = 0;
  double max_finite = 0;
  if (dtype == DataType::Float(16)) {
    bits = 11, min_step_exp = -24, max_finite = 65504.0;
  } else if (dtype == DataType::BFloat16()) {
    bits = 8, min_step_exp = -133, max_finite = 3.3895313892515355e38;
  } else {
    return value;
  }
  int exp = 0;
  std::frexp(value, &exp);  // value = m * 2^exp, 0.5 <= |m| < 1
  const double step = std::ldexp(1.0, std::max(exp - bits, min_step_exp));
  const double rounded = std::nearbyint(value / step) * step;
  if (std::fabs(rounded) > max_finite) {
    return std::copysign(std::numeric_limits<double>::infinity(), value);
  }
  return rounded;
}

void SetStructInfoOnce(const ExprNode& node, StructInfo sinfo) {
  PS_CHECK(node.struct_info_ == nullptr) << "struct info set twice";
  PS_CHECK(sinfo != nullptr);
  node.struct_info_ = std::move(sinfo);
}

ConstantNode::ConstantNode(Scalar value, DataType dtype, Span span)
    : ExprNode(NodeKind::kConstant, TensorSInfo({}, dtype), span),
      scalar_(Rounded(value, dtype)),
      dtype_(dtype) {}

ConstantNode::ConstantNode(std::vector<Scalar> elements, std::vector<int64_t> shape, DataType dtype,
                           Span span)
    : ExprNode(NodeKind::kConstant, LiteralSInfo(shape, dtype), span),
      elements_(Rounded(std::move(elements), dtype)),
      shape_(std::move(shape)),
      dtype_(dtype) {
  int64_t numel = 1;
  for (int64_t d : shape_) numel *= d;
  PS_CHECK(!shape_.empty() && numel == static_cast<int64_t>(elements_.size()))
      << elements_.size() << " elements for a tensor literal of rank " << shape_.size();
  if (!elements_.empty()) scalar_ = elements_.front();
}

ShapeExprNode::ShapeExprNode(std::vector<PrimExpr> values, Span span)
    : ExprNode(NodeKind::kShapeExpr, Make<ShapeSInfoNode>(values), span),
      values_(std::move(values)) {}

PrimValueNode::PrimValueNode(PrimExpr value, Span span)
    : ExprNode(NodeKind::kPrimValue, Make<PrimSInfoNode>(value->dtype(), value), span),
      value_(std::move(value)) {}

StringImmNode::StringImmNode(std::string value, Span span)
    : ExprNode(NodeKind::kStringImm, ObjectSInfo(), span), value_(std::move(value)) {}

DataTypeImmNode::DataTypeImmNode(DataType value, Span span)
    : ExprNode(NodeKind::kDataTypeImm, ObjectSInfo(), span), value_(value) {}

OpNode::OpNode(std::string name, const OpInfo* info, std::string script_name)
    : ExprNode(NodeKind::kOp, ObjectSInfo(), Span{}),
      name_(std::move(name)),
      info_(info),
      script_name_(std::move(script_name)) {}

ExternFuncNode::ExternFuncNode(std::string global_symbol, StructInfo sinfo, Span span)
    : ExprNode(NodeKind::kExternFunc,
               sinfo ? std::move(sinfo) : Make<FuncSInfoNode>(std::nullopt, ObjectSInfo(), false),
               span),
      global_symbol_(std::move(global_symbol)) {}

bool CallNode::IsOp(std::string_view name) const {
  const OpNode* op = op_node();
  return op != nullptr && op->name() == name;
}

StructInfo FunctionSInfo(const std::vector<Var>& params, const StructInfo& ret, bool is_pure) {
  std::vector<StructInfo> param_sinfo;
  param_sinfo.reserve(params.size());
  for (const Var& p : params) param_sinfo.push_back(p->struct_info());
  return Make<FuncSInfoNode>(std::move(param_sinfo), ret, is_pure);
}

FunctionNode::FunctionNode(std::vector<Var> params, Expr body, StructInfo ret_struct_info,
                           bool is_pure, AttrMap attrs, Span span)
    : ExprNode(NodeKind::kFunction, FunctionSInfo(params, ret_struct_info, is_pure), span),
      params_(std::move(params)),
      body_(std::move(body)),
      ret_struct_info_(std::move(ret_struct_info)),
      is_pure_(is_pure),
      attrs_(std::move(attrs)) {}

PrimFuncNode::PrimFuncNode(Fields fields, Span span)
    : ExprNode(NodeKind::kPrimFunc, Make<FuncSInfoNode>(std::nullopt, ObjectSInfo(), false), span),
      f_(std::move(fields)) {}

const Buffer* PrimFuncNode::BufferOf(const TirVarNode* param) const {
  for (const auto& [var, buffer] : f_.buffer_map) {
    if (var.get() == param) return &buffer;
  }
  return nullptr;
}

bool IsLeafExpr(const Expr& e) {
  switch (e->kind()) {
  PIPESPLIT_LEAF_EXPR_KINDS:
    return true;
    case NodeKind::kTuple:
    case NodeKind::kTupleGetItem:
    case NodeKind::kCall:
    case NodeKind::kIf:
    case NodeKind::kSeqExpr:
    case NodeKind::kFunction:
    case NodeKind::kPrimFunc:
    PIPESPLIT_KINDS_OUTSIDE_EXPR:
      return false;
  }
  PS_UNREACHABLE();
}

}  // namespace pipesplit::ir
