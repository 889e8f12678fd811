// Registration entry points of the op families (called once, when the table is built) and
// helpers shared by their signatures and inference rules.
#ifndef PIPESPLIT_SRC_IR_OP_OP_FAMILIES_H_
#define PIPESPLIT_SRC_IR_OP_OP_FAMILIES_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipesplit/ir/arith.h"  // the symbolic helpers (Add, Mul, ConstDifference, ...)
#include "pipesplit/ir/op.h"
#include "pipesplit/ir/prim_text.h"  // ToString in messages

namespace pipesplit::ir {

// call_tir, call_tir_inplace, call_tir_with_grad, call_dps_packed, call_pure_packed,
// call_builtin_with_ctx, print, assert_op, builtin.stop_lift_params, closures, shape ops, ...
void RegisterBuiltinOps();
// Tensor operators; RegisterTensorOps calls every family below.
void RegisterTensorOps();
void RegisterElementwiseOps();    // unary, binary, comparison, clip, ewise_fma, where, astype
void RegisterManipulationOps();   // reshape, permute_dims, expand_dims, squeeze, concat, ...
void RegisterIndexingOps();       // take, strided_slice, gather/scatter, one_hot, ...
void RegisterReductionOps();      // sum, mean, ..., argmax, cumsum, sort, topk
void RegisterCreationOps();       // zeros, ones, full, *_like, arange, eye, tril, triu
void RegisterLinearAlgebraOps();  // matmul, einsum, outer
void RegisterNNOps();             // activations, softmax, norms, losses, attention, pad
void RegisterConvPoolOps();       // nn.conv*, nn.*pool*
void RegisterMemoryOps();         // builtin.alloc_tensor, memory.*, vm.*
void RegisterMiscOps();           // image, vision, ccl, dist, grad, quantization, sampling

// Results are never built with more fields or dims than this (a guard against absurd attribute
// values such as a split into a billion sections).
constexpr int64_t kMaxTupleFields = 1 << 16;

// ---- Signature shorthands ----
OpParam Arg(std::string name);
// An optional Relax argument: default None (omitted when not written) or a Relax expression.
OpParam OptionalArg(std::string name, AttrValue default_value = AttrValue());
OpParam Variadic(std::string name);
OpParam Attr(std::string name, AttrValue default_value);
OpParam RequiredAttr(std::string name);
// A dtype attribute defaulting to void that TVM keeps Optional (see OpParam::optional_dtype).
OpParam OptionalDType(std::string name);
OpParam SInfoArgs(std::string name = "sinfo_args");
// Sets OpParam::arg_index.
OpParam AtIndex(OpParam param, int arg_index);
// Attribute value helpers for defaults.
AttrValue IntList(const std::vector<int64_t>& values);
AttrValue FloatList(const std::vector<double>& values);
// A complete_attrs hook for attributes where a Python int stands for a list of one, as TVM's
// constructors treat them (axis=1 is stored as [1]).
using CompleteAttrsFn = std::function<AttrMap(AttrMap, const std::vector<Expr>&)>;
CompleteAttrsFn ListifyInts(const std::vector<std::string>& names);
// A complete_attrs hook for required attributes TVM declares as floats (no default to take the
// type from): an int is stored as a float (spatial_scale=1 is 1.0).
CompleteAttrsFn FloatifyInts(const std::vector<std::string>& names);
// The hook that runs `first`, then `second`.
CompleteAttrsFn Then(CompleteAttrsFn first, CompleteAttrsFn second);
// Relax expressions used as defaults of optional arguments.
Expr DefaultStr(const std::string& value);  // R.str(value)
Expr DefaultInt(int64_t value);             // R.prim_value(value) (int64)
Expr DefaultVoidTuple();                    // R.tuple()

// ---- Errors ----
// Throws InferError(message).
[[noreturn]] void InferFail(std::string message);
// Short name of the op for messages ("R.add").
std::string OpDisplayName(const CallNode& call);
// Throws InferError("<op>: <message>").
[[noreturn]] void Fail(const CallNode& call, const std::string& message);
// "R.Tensor", "R.Shape", "R.Prim", "R.Tuple", "R.Object", "R.Callable".
std::string SInfoKindName(const StructInfo& sinfo);
// "(2, n)" for a shape; "(2,)" for one dim; "()" for none.
std::string ShapeString(const std::vector<PrimExpr>& shape);

// ---- Arguments ----
// Checks the number of Relax arguments.
void CheckArgCount(const CallNode& call, size_t expected);
void CheckArgCountBetween(const CallNode& call, size_t min, size_t max);
// Name of Relax argument i in the op's signature ("x"), or "argument i".
std::string ArgName(const CallNode& call, size_t i);
// The struct info of argument i, which must exist.
const StructInfo& ArgSInfo(const CallNode& call, size_t i);
// Argument i as a tensor; fails naming the op and the argument otherwise.
const TensorSInfoNode& TensorArg(const CallNode& call, size_t i);
// Argument i as a shape.
const ShapeSInfoNode& ShapeArg(const CallNode& call, size_t i);
// Argument i as a tuple of tensors.
std::vector<const TensorSInfoNode*> TensorTupleArg(const CallNode& call, size_t i);
// The known value of a PrimValue-like argument (R.Prim with a value), or nullptr.
PrimExpr PrimArgValue(const CallNode& call, size_t i);
// The known values of an argument that is a tuple of R.Prim values; nullopt when the tuple's
// values are not all known (R.Object, or an R.Prim without value); fails on anything else.
std::optional<std::vector<PrimExpr>> PrimTupleArgValues(const CallNode& call, size_t i);

// The result struct info declared by sinfo_args: R.Object when none, the single one, or a
// tuple of several.
StructInfo DeclaredResult(const CallNode& call);

// ---- Attributes (written values, else the op's completed defaults) ----
class CallAttrs {
 public:
  explicit CallAttrs(const CallNode& call);
  // The value; fails when the attribute is absent and has no default.
  const AttrValue& Get(std::string_view name) const;
  bool IsNone(std::string_view name) const { return Get(name).is_none(); }
  int64_t Int(std::string_view name) const;
  std::optional<int64_t> OptInt(std::string_view name) const;  // None -> nullopt
  bool Bool(std::string_view name) const;
  std::string Str(std::string_view name) const;
  // A dtype string; "", "void" and None are Void.
  DataType DType(std::string_view name) const;
  // A list of integers (an integer alone counts as a list of one).
  std::vector<int64_t> IntList(std::string_view name) const;
  std::optional<std::vector<int64_t>> OptIntList(std::string_view name) const;

 private:
  [[noreturn]] void BadType(std::string_view name, const char* expected) const;
  const CallNode& call_;
  AttrMap attrs_;
};

// ---- Struct info construction ----
StructInfo MakeTensor(std::vector<PrimExpr> shape, DataType dtype, const std::string& vdevice);
StructInfo MakeTensorNdim(DataType dtype, int ndim, const std::string& vdevice);
// The same tensor info with another dtype.
StructInfo WithDType(const TensorSInfoNode& t, DataType dtype);
// A tensor shaped as `shape` describes (values or only a rank).
StructInfo TensorLikeShape(const ShapeSInfoNode& shape, DataType dtype, const std::string& vdevice);
// A tensor shaped by argument `i` of `call` (a shape): its values when known; otherwise, when
// the argument is a Relax var, that var holds the shape (R.Tensor(s, dtype)), as TVM's
// reshape / broadcast_to / full / ones / zeros inference; otherwise only the rank.
StructInfo TensorOfShapeArg(const CallNode& call, size_t i, DataType dtype,
                            const std::string& vdevice);
// The virtual device two operands share: one side's when the other has none; fails when both
// have different ones.
std::string JoinVDevice(const CallNode& call, const std::string& a, const std::string& b);

// ---- Shapes and axes ----
// Fails unless every value lies in [min, 2^31) (TVM keeps these attributes as int32).
void CheckIntRange(const CallNode& call, const char* name, const std::vector<int64_t>& values,
                   int64_t min);
// Normalizes an axis into [0, ndim); fails when out of range.
int NormalizeAxis(const CallNode& call, int ndim, int64_t axis);
// Normalizes axes; fails when out of range or repeated.
std::vector<int> NormalizeAxes(const CallNode& call, int ndim, const std::vector<int64_t>& axes);
// Numpy-style broadcast of two shapes: the result when provable, nullopt when it depends on
// unknown symbolic dims, and a failure when two constant dims conflict.
std::optional<std::vector<PrimExpr>> BroadcastShapes(const CallNode& call,
                                                     const std::vector<PrimExpr>& a,
                                                     const std::vector<PrimExpr>& b);

// ---- Layouts (layout.cc) ----
// A tensor layout string: upper-case letters are primal axes; a number followed by a
// lower-case letter is a sub-axis of that many elements split off the primal axis of that
// letter ("NCHW4c": C = C_outer * 4).
class TensorLayout {
 public:
  // Parses `name`; fails (naming `what`: "data", "kernel", ...) unless its primal axes are a
  // permutation of `primal` ("NCHW").
  static TensorLayout Parse(const CallNode& call, const std::string& name,
                            const std::string& primal, const char* what);
  int ndim() const { return static_cast<int>(axes_.size()); }
  const std::string& name() const { return name_; }
  // Dims in the order of the primal layout from a shape in this layout (outer * factor).
  std::vector<PrimExpr> ToPrimal(const std::vector<PrimExpr>& shape) const;
  // A shape in this layout from dims in primal order (outer = ceil(dim / factor)).
  std::vector<PrimExpr> FromPrimal(const std::vector<PrimExpr>& dims) const;
  // The tensor's shape after checking its rank against the layout.
  std::optional<std::vector<PrimExpr>> ShapeOf(const CallNode& call, const TensorSInfoNode& t,
                                               const char* what) const;

 private:
  int64_t FactorOf(char primal_axis) const;
  std::string name_;
  std::string primal_;
  std::vector<std::pair<char, int64_t>> axes_;  // (letter, split factor; 0 for primal axes)
};

}  // namespace pipesplit::ir

#endif  // PIPESPLIT_SRC_IR_OP_OP_FAMILIES_H_
