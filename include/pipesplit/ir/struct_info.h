// Struct info: Relax's static description of a value (TVM's StructInfo; "types" in the
// current TVMScript syntax).
#ifndef PIPESPLIT_IR_STRUCT_INFO_H_
#define PIPESPLIT_IR_STRUCT_INFO_H_

#include <optional>
#include <string>
#include <vector>

#include "pipesplit/ir/node.h"
#include "pipesplit/ir/prim_expr.h"

namespace pipesplit::ir {

class VarNode;  // expr.h includes this header

class StructInfoNode : public Node {
 public:
  static bool ClassOf(NodeKind k) {
    return k >= NodeKind::kObjectSInfo && k <= NodeKind::kFuncSInfo;
  }

 protected:
  StructInfoNode(NodeKind kind, Span span) : Node(kind, span) {}
};
using StructInfo = Ptr<StructInfoNode>;

// Any value (R.Object; R.Any in the current syntax).
class ObjectSInfoNode : public StructInfoNode {
 public:
  PIPESPLIT_NODE_KIND(kObjectSInfo)
  explicit ObjectSInfoNode(Span span = {}) : StructInfoNode(NodeKind::kObjectSInfo, span) {}
};

// A scalar of `dtype`, optionally with a known symbolic value (R.Prim("int64"),
// R.Prim(value=n)).
class PrimSInfoNode : public StructInfoNode {
 public:
  PIPESPLIT_NODE_KIND(kPrimSInfo)
  PrimSInfoNode(DataType dtype, PrimExpr value = nullptr, Span span = {})
      : StructInfoNode(NodeKind::kPrimSInfo, span), dtype_(dtype), value_(std::move(value)) {}
  DataType dtype() const { return dtype_; }
  const PrimExpr& value() const { return value_; }  // may be null

 private:
  DataType dtype_;
  PrimExpr value_;
};

// A shape value: known values (R.Shape([1, n])) or only its rank (R.Shape(ndim=2)), or
// nothing (ndim == -1).
class ShapeSInfoNode : public StructInfoNode {
 public:
  PIPESPLIT_NODE_KIND(kShapeSInfo)
  explicit ShapeSInfoNode(std::vector<PrimExpr> values, Span span = {})
      : StructInfoNode(NodeKind::kShapeSInfo, span),
        values_(std::move(values)),
        ndim_(static_cast<int>(values_->size())) {}
  explicit ShapeSInfoNode(int ndim, Span span = {})
      : StructInfoNode(NodeKind::kShapeSInfo, span), ndim_(ndim) {}
  const std::optional<std::vector<PrimExpr>>& values() const { return values_; }
  int ndim() const { return ndim_; }

 private:
  std::optional<std::vector<PrimExpr>> values_;
  int ndim_;
};

// A tensor: dtype (void = unknown), and either a known shape, a Relax var holding the shape
// (R.Tensor(s, "float32") with `s: R.Shape(ndim=2)`; the rank is the var's), or only its rank
// (-1: unknown), optionally placed on a virtual device ("llvm:0:global" as printed).
class TensorSInfoNode : public StructInfoNode {
 public:
  PIPESPLIT_NODE_KIND(kTensorSInfo)
  TensorSInfoNode(std::vector<PrimExpr> shape, DataType dtype, std::string vdevice = {},
                  Span span = {})
      : StructInfoNode(NodeKind::kTensorSInfo, span),
        shape_(std::move(shape)),
        dtype_(dtype),
        ndim_(static_cast<int>(shape_->size())),
        vdevice_(std::move(vdevice)) {
    for (const PrimExpr& d : *shape_) symbolic_shape_ |= !d || d->kind() != NodeKind::kIntImm;
  }
  TensorSInfoNode(DataType dtype, int ndim, std::string vdevice = {}, Span span = {})
      : StructInfoNode(NodeKind::kTensorSInfo, span),
        dtype_(dtype),
        ndim_(ndim),
        vdevice_(std::move(vdevice)) {}
  // The shape held by `shape_var`, a Var whose struct info is a ShapeSInfo (checked); the rank
  // is that ShapeSInfo's ndim. Defined in struct_info.cc (needs VarNode).
  TensorSInfoNode(Ptr<VarNode> shape_var, DataType dtype, std::string vdevice = {}, Span span = {});
  const std::optional<std::vector<PrimExpr>>& shape() const { return shape_; }
  // The var holding the shape, or null; exclusive with shape().
  const Ptr<VarNode>& shape_var() const { return shape_var_; }
  DataType dtype() const { return dtype_; }
  int ndim() const { return ndim_; }
  const std::string& vdevice() const { return vdevice_; }  // empty: none
  // Whether the shape mentions a symbolic var or a shape var (false for constant dims and for
  // an unknown shape); set at construction, so hot passes need not visit the dims.
  bool has_symbolic_shape() const { return symbolic_shape_; }

 private:
  std::optional<std::vector<PrimExpr>> shape_;
  Ptr<VarNode> shape_var_;
  DataType dtype_;
  int ndim_;
  bool symbolic_shape_ = false;
  std::string vdevice_;
};

class TupleSInfoNode : public StructInfoNode {
 public:
  PIPESPLIT_NODE_KIND(kTupleSInfo)
  explicit TupleSInfoNode(std::vector<StructInfo> fields, Span span = {})
      : StructInfoNode(NodeKind::kTupleSInfo, span), fields_(std::move(fields)) {}
  const std::vector<StructInfo>& fields() const { return fields_; }

 private:
  std::vector<StructInfo> fields_;
};

// A callable: R.Callable((params...), ret, purity). Params are absent for an opaque callable.
class FuncSInfoNode : public StructInfoNode {
 public:
  PIPESPLIT_NODE_KIND(kFuncSInfo)
  FuncSInfoNode(std::optional<std::vector<StructInfo>> params, StructInfo ret, bool is_pure,
                Span span = {})
      : StructInfoNode(NodeKind::kFuncSInfo, span),
        params_(std::move(params)),
        ret_(std::move(ret)),
        is_pure_(is_pure) {}
  const std::optional<std::vector<StructInfo>>& params() const { return params_; }
  const StructInfo& ret() const { return ret_; }
  bool is_pure() const { return is_pure_; }

 private:
  std::optional<std::vector<StructInfo>> params_;
  StructInfo ret_;
  bool is_pure_;
};

// ---- Helpers ----
StructInfo ObjectSInfo();
StructInfo TensorSInfo(std::vector<PrimExpr> shape, DataType dtype);
StructInfo TupleSInfo(std::vector<StructInfo> fields);
StructInfo VoidSInfo();  // R.Tuple(): the struct info of a call with no result

// Substitutes symbolic vars everywhere in `sinfo`. Returns the same node when nothing changed.
StructInfo Substitute(const StructInfo& sinfo, const TirVarMap& map);

// Calls `fn` on every TirVar occurring in `sinfo` (pre-order, duplicates included).
void VisitTirVars(const StructInfo& sinfo, const std::function<void(const TirVar&)>& fn);

// Is every value described by `derived` also described by `base`? (TVM's IsBaseOf, with
// symbolic dims compared by ProvablyEqual.) Used to check annotations against inferred info.
bool IsBaseOf(const StructInfo& base, const StructInfo& derived);

// How StructInfoEqual compares two symbolic dims or prim values.
enum class DimEquality : uint8_t {
  kDeep,      // the same expression tree (ExprDeepEqual): TVM's StructuralEqual on free vars
  kProvable,  // provably equal (ProvablyEqual), e.g. `n + 1` and `1 + n`
};
// Whether a and b are the same struct info: kinds, dtypes, ranks, vdevices, purity and fields
// alike, symbolic vars by identity, dims compared as `dims` says. Null equals only null.
bool StructInfoEqual(const StructInfo& a, const StructInfo& b,
                     DimEquality dims = DimEquality::kDeep);

// The struct info with every symbolic expression that mentions a var not accepted by
// `is_defined` erased (dims become unknown, keeping the rank), as TVM's EraseToWellDefined.
// Shape vars (TensorSInfoNode::shape_var) not accepted by `is_relax_defined` are erased too
// (the tensor keeps the rank); a null `is_relax_defined` accepts none of them.
StructInfo EraseToWellDefined(const StructInfo& sinfo,
                              const std::function<bool(const TirVarNode&)>& is_defined,
                              const std::function<bool(const VarNode&)>& is_relax_defined = {});

// Replaces shape vars (TensorSInfoNode::shape_var) by `map(var)` (null: keep) everywhere in
// `sinfo`. Returns the same node when nothing changed.
StructInfo SubstituteShapeVars(const StructInfo& sinfo,
                               const std::function<Ptr<VarNode>(const VarNode&)>& map);

// Calls `fn` on every shape var (TensorSInfoNode::shape_var) occurring in `sinfo`.
void VisitShapeVars(const StructInfo& sinfo, const std::function<void(const VarNode&)>& fn);

}  // namespace pipesplit::ir

#endif  // PIPESPLIT_IR_STRUCT_INFO_H_
