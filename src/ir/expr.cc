#include "pipesplit/ir/expr.h"

#include "pipesplit/ir/op.h"
#include "pipesplit/support/check.h"

namespace pipesplit::ir {

void SetStructInfoOnce(const ExprNode& node, StructInfo sinfo) {
  PS_CHECK(node.struct_info_ == nullptr) << "struct info set twice";
  PS_CHECK(sinfo != nullptr);
  node.struct_info_ = std::move(sinfo);
}

ConstantNode::ConstantNode(Scalar value, DataType dtype, Span span)
    : ExprNode(NodeKind::kConstant, TensorSInfo({}, dtype), span), scalar_(value), dtype_(dtype) {}

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
