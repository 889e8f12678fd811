// Relax expressions, bindings, blocks and functions.
//
// Every expression carries its struct info. Nodes built by the parser and by BlockBuilder
// have it from birth; a node built by hand without it gets it from BlockBuilder::Normalize
// (which fills it exactly once, before the node is shared, as TVM's normalizer does).
#ifndef PIPESPLIT_IR_EXPR_H_
#define PIPESPLIT_IR_EXPR_H_

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "pipesplit/ir/attrs.h"
#include "pipesplit/ir/node.h"
#include "pipesplit/ir/prim_expr.h"
#include "pipesplit/ir/struct_info.h"
#include "pipesplit/ir/tir.h"

namespace pipesplit::ir {

struct OpInfo;  // op.h

class ExprNode : public Node {
 public:
  static bool ClassOf(NodeKind k) { return k >= NodeKind::kVar && k <= NodeKind::kPrimFunc; }
  // Null only for a hand-built node that has not been normalized yet.
  const StructInfo& struct_info() const { return struct_info_; }

 protected:
  ExprNode(NodeKind kind, StructInfo sinfo, Span span)
      : Node(kind, span), struct_info_(std::move(sinfo)) {}

 private:
  friend void SetStructInfoOnce(const ExprNode& node, StructInfo sinfo);
  mutable StructInfo struct_info_;  // written at most once, by SetStructInfoOnce
};
using Expr = Ptr<ExprNode>;

// Fills the struct info of a node that has none yet (BlockBuilder::Normalize uses it on nodes
// it has not shared yet). Checks that none was set before.
void SetStructInfoOnce(const ExprNode& node, StructInfo sinfo);

// A variable (R.Var), or a DataflowVar when kind() == kDataflowVar. Compared by identity.
class VarNode : public ExprNode {
 public:
  static bool ClassOf(NodeKind k) { return k == NodeKind::kVar || k == NodeKind::kDataflowVar; }
  VarNode(std::string name_hint, StructInfo sinfo, bool is_dataflow = false, Span span = {})
      : ExprNode(is_dataflow ? NodeKind::kDataflowVar : NodeKind::kVar, std::move(sinfo), span),
        name_hint_(std::move(name_hint)) {}
  const std::string& name_hint() const { return name_hint_; }
  bool is_dataflow() const { return kind() == NodeKind::kDataflowVar; }

 private:
  std::string name_hint_;
};
using Var = Ptr<VarNode>;

class DataflowVarNode {  // tag for As<DataflowVarNode>
 public:
  static bool ClassOf(NodeKind k) { return k == NodeKind::kDataflowVar; }
};

// A module-level function name (cls.f). One GlobalVar per module member; references share it.
class GlobalVarNode : public ExprNode {
 public:
  PIPESPLIT_NODE_KIND(kGlobalVar)
  GlobalVarNode(std::string name_hint, StructInfo sinfo, Span span = {})
      : ExprNode(NodeKind::kGlobalVar, std::move(sinfo), span), name_hint_(std::move(name_hint)) {}
  const std::string& name_hint() const { return name_hint_; }

 private:
  std::string name_hint_;
};
using GlobalVar = Ptr<GlobalVarNode>;

// A constant: a scalar literal (R.const(1.0, "float32")) or a reference into the module's
// omitted metadata (metadata["relax.expr.Constant"][i]).
// `value` rounded to the precision of a constant of `dtype` (float32, float16, bfloat16; nearest
// even, overflow to infinity), as TVM stores it in the constant's array. Other dtypes: unchanged.
double RoundToDType(double value, DataType dtype);

class ConstantNode : public ExprNode {
 public:
  PIPESPLIT_NODE_KIND(kConstant)
  using Scalar = std::variant<int64_t, double, bool>;
  // Scalar literal of `dtype`; struct info R.Tensor((), dtype).
  ConstantNode(Scalar value, DataType dtype, Span span = {});
  // Tensor literal of rank >= 1 (`R.const([[1, 2], [3, 4]], "int32")`): `elements` in row-major
  // order, as many as `shape` holds; struct info R.Tensor(shape, dtype).
  ConstantNode(std::vector<Scalar> elements, std::vector<int64_t> shape, DataType dtype,
               Span span = {});
  // Metadata reference; struct info as known (R.Tensor of unknown shape by default).
  ConstantNode(int64_t metadata_index, StructInfo sinfo, Span span = {})
      : ExprNode(NodeKind::kConstant, std::move(sinfo), span), metadata_index_(metadata_index) {}

  bool is_metadata() const { return metadata_index_ >= 0; }
  // A literal of rank >= 1: elements() and shape() hold it, scalar() is its first element.
  bool is_tensor() const { return !shape_.empty(); }
  int64_t metadata_index() const { return metadata_index_; }
  const Scalar& scalar() const { return scalar_; }
  const std::vector<Scalar>& elements() const { return elements_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  DataType dtype() const { return dtype_; }

 private:
  int64_t metadata_index_ = -1;
  Scalar scalar_ = int64_t{0};
  std::vector<Scalar> elements_;
  std::vector<int64_t> shape_;
  DataType dtype_;
};

class TupleNode : public ExprNode {
 public:
  PIPESPLIT_NODE_KIND(kTuple)
  explicit TupleNode(std::vector<Expr> fields, StructInfo sinfo = nullptr, Span span = {})
      : ExprNode(NodeKind::kTuple, std::move(sinfo), span), fields_(std::move(fields)) {}
  const std::vector<Expr>& fields() const { return fields_; }

 private:
  std::vector<Expr> fields_;
};

class TupleGetItemNode : public ExprNode {
 public:
  PIPESPLIT_NODE_KIND(kTupleGetItem)
  TupleGetItemNode(Expr tuple, int index, StructInfo sinfo = nullptr, Span span = {})
      : ExprNode(NodeKind::kTupleGetItem, std::move(sinfo), span),
        tuple_(std::move(tuple)),
        index_(index) {}
  const Expr& tuple() const { return tuple_; }
  int index() const { return index_; }

 private:
  Expr tuple_;
  int index_;
};

// R.shape([1, n]); struct info R.Shape([1, n]).
class ShapeExprNode : public ExprNode {
 public:
  PIPESPLIT_NODE_KIND(kShapeExpr)
  explicit ShapeExprNode(std::vector<PrimExpr> values, Span span = {});
  const std::vector<PrimExpr>& values() const { return values_; }

 private:
  std::vector<PrimExpr> values_;
};

// R.prim_value(e); struct info R.Prim(value=e).
class PrimValueNode : public ExprNode {
 public:
  PIPESPLIT_NODE_KIND(kPrimValue)
  explicit PrimValueNode(PrimExpr value, Span span = {});
  const PrimExpr& value() const { return value_; }

 private:
  PrimExpr value_;
};

// R.str("..."); struct info R.Object.
class StringImmNode : public ExprNode {
 public:
  PIPESPLIT_NODE_KIND(kStringImm)
  explicit StringImmNode(std::string value, Span span = {});
  const std::string& value() const { return value_; }

 private:
  std::string value_;
};

// R.dtype("float32"); struct info R.Object.
class DataTypeImmNode : public ExprNode {
 public:
  PIPESPLIT_NODE_KIND(kDataTypeImm)
  explicit DataTypeImmNode(DataType value, Span span = {});
  DataType value() const { return value_; }

 private:
  DataType value_;
};

// A Relax operator ("relax.add"). `info` is its registry entry, or null for an op the
// registry does not know (kept as an opaque call). Obtain ops with GetOp (op.h), which
// interns them: one node per name.
class OpNode : public ExprNode {
 public:
  PIPESPLIT_NODE_KIND(kOp)
  OpNode(std::string name, const OpInfo* info, std::string script_name);
  const std::string& name() const { return name_; }  // "relax.nn.conv2d"
  const OpInfo* info() const { return info_; }
  // How the script spells the op: "R.nn.conv2d" (an op outside relax.* keeps its name).
  const std::string& script_name() const { return script_name_; }

 private:
  std::string name_;
  const OpInfo* info_;
  std::string script_name_;
};
using Op = Ptr<OpNode>;

// A packed function called by name (R.ExternFunc("sym")).
class ExternFuncNode : public ExprNode {
 public:
  PIPESPLIT_NODE_KIND(kExternFunc)
  explicit ExternFuncNode(std::string global_symbol, StructInfo sinfo = nullptr, Span span = {});
  const std::string& global_symbol() const { return global_symbol_; }

 private:
  std::string global_symbol_;
};
using ExternFunc = Ptr<ExternFuncNode>;

// A call of an op, a GlobalVar, a Var holding a function, or an ExternFunc.
class CallNode : public ExprNode {
 public:
  PIPESPLIT_NODE_KIND(kCall)
  CallNode(Expr op, std::vector<Expr> args, AttrMap attrs = {},
           std::vector<StructInfo> sinfo_args = {}, StructInfo sinfo = nullptr, Span span = {})
      : ExprNode(NodeKind::kCall, std::move(sinfo), span),
        op_(std::move(op)),
        args_(std::move(args)),
        attrs_(std::move(attrs)),
        sinfo_args_(std::move(sinfo_args)) {}
  const Expr& op() const { return op_; }
  const std::vector<Expr>& args() const { return args_; }
  const AttrMap& attrs() const { return attrs_; }
  const std::vector<StructInfo>& sinfo_args() const { return sinfo_args_; }
  // The op node when op() is one, else nullptr.
  const OpNode* op_node() const { return As<OpNode>(op_); }
  bool IsOp(std::string_view name) const;

 private:
  Expr op_;
  std::vector<Expr> args_;
  AttrMap attrs_;
  std::vector<StructInfo> sinfo_args_;
};
using Call = Ptr<CallNode>;

class BindingBlockNode;
using BindingBlock = Ptr<BindingBlockNode>;

// Blocks of bindings followed by a result expression.
class SeqExprNode : public ExprNode {
 public:
  PIPESPLIT_NODE_KIND(kSeqExpr)
  SeqExprNode(std::vector<BindingBlock> blocks, Expr body, StructInfo sinfo = nullptr,
              Span span = {})
      : ExprNode(NodeKind::kSeqExpr, std::move(sinfo), span),
        blocks_(std::move(blocks)),
        body_(std::move(body)) {}
  const std::vector<BindingBlock>& blocks() const { return blocks_; }
  const Expr& body() const { return body_; }

 private:
  std::vector<BindingBlock> blocks_;
  Expr body_;
};
using SeqExpr = Ptr<SeqExprNode>;

// if cond: true_branch else: false_branch. Branches are SeqExprs.
class IfNode : public ExprNode {
 public:
  PIPESPLIT_NODE_KIND(kIf)
  IfNode(Expr cond, Expr true_branch, Expr false_branch, StructInfo sinfo = nullptr, Span span = {})
      : ExprNode(NodeKind::kIf, std::move(sinfo), span),
        cond_(std::move(cond)),
        true_branch_(std::move(true_branch)),
        false_branch_(std::move(false_branch)) {}
  const Expr& cond() const { return cond_; }
  const Expr& true_branch() const { return true_branch_; }
  const Expr& false_branch() const { return false_branch_; }

 private:
  Expr cond_;
  Expr true_branch_;
  Expr false_branch_;
};

// A Relax function. Attributes include "global_symbol" for public module members (a
// top-level function without it prints as private=True).
class FunctionNode : public ExprNode {
 public:
  PIPESPLIT_NODE_KIND(kFunction)
  FunctionNode(std::vector<Var> params, Expr body, StructInfo ret_struct_info, bool is_pure,
               AttrMap attrs = {}, Span span = {});
  const std::vector<Var>& params() const { return params_; }
  const Expr& body() const { return body_; }  // a SeqExpr
  const StructInfo& ret_struct_info() const { return ret_struct_info_; }
  bool is_pure() const { return is_pure_; }
  const AttrMap& attrs() const { return attrs_; }
  const AttrValue* GetAttr(std::string_view key) const { return FindAttr(attrs_, key); }

 private:
  std::vector<Var> params_;
  Expr body_;
  StructInfo ret_struct_info_;
  bool is_pure_;
  AttrMap attrs_;
};
using Function = Ptr<FunctionNode>;

// A TIR function (@T.prim_func). `name` is its module-level name, callable from R.call_tir
// through its GlobalVar. Params are vars (handles or scalars); `buffer_map` binds handle params
// to the buffers they carry (T.Buffer annotations and T.match_buffer), in param order.
class PrimFuncNode : public ExprNode {
 public:
  PIPESPLIT_NODE_KIND(kPrimFunc)
  struct Fields {
    std::string name;
    std::vector<TirVar> params;
    std::vector<std::pair<TirVar, Buffer>> buffer_map;
    Stmt body;
    AttrMap attrs;  // T.func_attr
    bool is_private = false;
    // `@T.prim_func(s_tir=True)` (TVM since 2026: a schedulable function). How the function
    // was spelled, like the T.sblock spelling of its blocks: not part of structural equality.
    bool s_tir = false;
  };
  explicit PrimFuncNode(Fields fields, Span span = {});
  const std::string& name() const { return f_.name; }
  const std::vector<TirVar>& params() const { return f_.params; }
  const std::vector<std::pair<TirVar, Buffer>>& buffer_map() const { return f_.buffer_map; }
  // The buffer bound to `param`, or null.
  const Buffer* BufferOf(const TirVarNode* param) const;
  const Stmt& body() const { return f_.body; }
  const AttrMap& attrs() const { return f_.attrs; }
  bool is_private() const { return f_.is_private; }
  bool s_tir() const { return f_.s_tir; }

 private:
  Fields f_;
};
using PrimFunc = Ptr<PrimFuncNode>;

// ---- Bindings and blocks ----

class BindingNode : public Node {
 public:
  static bool ClassOf(NodeKind k) {
    return k == NodeKind::kVarBinding || k == NodeKind::kMatchCast;
  }
  const Var& var() const { return var_; }
  const Expr& value() const { return value_; }

 protected:
  BindingNode(NodeKind kind, Var var, Expr value, Span span)
      : Node(kind, span), var_(std::move(var)), value_(std::move(value)) {}

 private:
  Var var_;
  Expr value_;
};
using Binding = Ptr<BindingNode>;

// var = value
class VarBindingNode : public BindingNode {
 public:
  PIPESPLIT_NODE_KIND(kVarBinding)
  VarBindingNode(Var var, Expr value, Span span = {})
      : BindingNode(NodeKind::kVarBinding, std::move(var), std::move(value), span) {}
};
using VarBinding = Ptr<VarBindingNode>;

// var = R.match_cast(value, struct_info): checks the value at run time and binds the
// symbolic vars that first appear in struct_info.
class MatchCastNode : public BindingNode {
 public:
  PIPESPLIT_NODE_KIND(kMatchCast)
  MatchCastNode(Var var, Expr value, StructInfo struct_info, Span span = {})
      : BindingNode(NodeKind::kMatchCast, std::move(var), std::move(value), span),
        struct_info_(std::move(struct_info)) {}
  const StructInfo& struct_info() const { return struct_info_; }

 private:
  StructInfo struct_info_;
};
using MatchCast = Ptr<MatchCastNode>;

// A sequence of bindings; a dataflow block (with R.dataflow()) when is_dataflow.
class BindingBlockNode : public Node {
 public:
  PIPESPLIT_NODE_KIND(kBindingBlock)
  BindingBlockNode(std::vector<Binding> bindings, bool is_dataflow, Span span = {})
      : Node(NodeKind::kBindingBlock, span),
        bindings_(std::move(bindings)),
        is_dataflow_(is_dataflow) {}
  const std::vector<Binding>& bindings() const { return bindings_; }
  bool is_dataflow() const { return is_dataflow_; }

 private:
  std::vector<Binding> bindings_;
  bool is_dataflow_;
};

// ---- Construction helpers ----
inline Var MakeVar(std::string name, StructInfo sinfo, bool is_dataflow = false, Span span = {}) {
  return Make<VarNode>(std::move(name), std::move(sinfo), is_dataflow, span);
}

// True for the leaf expressions of Relax's normal form: vars, global vars, constants, shape and
// prim values, string and dtype immediates, ops and extern funcs (not tuples).
bool IsLeafExpr(const Expr& e);
// Their case labels, for switches that treat every leaf alike (a new leaf kind goes here).
#define PIPESPLIT_LEAF_EXPR_KINDS               \
  case ::pipesplit::ir::NodeKind::kVar:         \
  case ::pipesplit::ir::NodeKind::kDataflowVar: \
  case ::pipesplit::ir::NodeKind::kGlobalVar:   \
  case ::pipesplit::ir::NodeKind::kConstant:    \
  case ::pipesplit::ir::NodeKind::kShapeExpr:   \
  case ::pipesplit::ir::NodeKind::kPrimValue:   \
  case ::pipesplit::ir::NodeKind::kStringImm:   \
  case ::pipesplit::ir::NodeKind::kDataTypeImm: \
  case ::pipesplit::ir::NodeKind::kOp:          \
  case ::pipesplit::ir::NodeKind::kExternFunc

// The struct info of a Function: R.Callable((param infos), ret, purity).
StructInfo FunctionSInfo(const std::vector<Var>& params, const StructInfo& ret, bool is_pure);

}  // namespace pipesplit::ir

#endif  // PIPESPLIT_IR_EXPR_H_
