// Helpers shared by the op families: signature shorthands, error reporting, argument and
// attribute access, struct info construction, axes and broadcasting.
#include <algorithm>

#include "pipesplit/support/check.h"
#include "src/ir/op/op_families.h"

namespace pipesplit::ir {

// ---- Signature shorthands ----

OpParam Arg(std::string name) { return {std::move(name), OpParam::Kind::kArg, std::nullopt}; }
OpParam OptionalArg(std::string name, AttrValue default_value) {
  return {std::move(name), OpParam::Kind::kArg, std::move(default_value)};
}
OpParam Variadic(std::string name) {
  return {std::move(name), OpParam::Kind::kVariadic, std::nullopt};
}
OpParam Attr(std::string name, AttrValue default_value) {
  return {std::move(name), OpParam::Kind::kAttr, std::move(default_value)};
}
OpParam OptionalDType(std::string name) {
  OpParam p{std::move(name), OpParam::Kind::kAttr, AttrValue("void")};
  p.optional_dtype = true;
  return p;
}
OpParam RequiredAttr(std::string name) {
  return {std::move(name), OpParam::Kind::kAttr, std::nullopt};
}
OpParam SInfoArgs(std::string name) {
  return {std::move(name), OpParam::Kind::kSInfoArgs, AttrValue()};
}
OpParam AtIndex(OpParam param, int arg_index) {
  param.arg_index = arg_index;
  return param;
}

AttrValue IntList(const std::vector<int64_t>& values) {
  AttrList list;
  for (int64_t v : values) list.emplace_back(v);
  return AttrValue(std::move(list));
}
AttrValue FloatList(const std::vector<double>& values) {
  AttrList list;
  for (double v : values) list.emplace_back(v);
  return AttrValue(std::move(list));
}

CompleteAttrsFn ListifyInts(const std::vector<std::string>& names) {
  return [names](AttrMap attrs, const std::vector<Expr>&) {
    for (auto& [key, value] : attrs) {
      if (std::find(names.begin(), names.end(), key) == names.end()) continue;
      if (auto v = value.ToInt()) value = IntList({*v});
    }
    return attrs;
  };
}

CompleteAttrsFn FloatifyInts(const std::vector<std::string>& names) {
  return [names](AttrMap attrs, const std::vector<Expr>&) {
    for (auto& [key, value] : attrs) {
      if (std::find(names.begin(), names.end(), key) == names.end()) continue;
      if (const int64_t* v = value.as_int()) value = static_cast<double>(*v);
    }
    return attrs;
  };
}

CompleteAttrsFn Then(CompleteAttrsFn first, CompleteAttrsFn second) {
  return [first, second](AttrMap attrs, const std::vector<Expr>& args) {
    return second(first(std::move(attrs), args), args);
  };
}

Expr DefaultStr(const std::string& value) { return Make<StringImmNode>(value); }
Expr DefaultInt(int64_t value) { return Make<PrimValueNode>(IntImm(value)); }
Expr DefaultVoidTuple() { return Make<TupleNode>(std::vector<Expr>{}, VoidSInfo()); }

// ---- Errors ----

void InferFail(std::string message) { throw InferError{std::move(message)}; }

std::string OpDisplayName(const CallNode& call) {
  if (const OpNode* op = call.op_node()) return op->script_name();
  return "call";
}

void Fail(const CallNode& call, const std::string& message) {
  InferFail(OpDisplayName(call) + ": " + message);
}

std::string SInfoKindName(const StructInfo& sinfo) {
  switch (sinfo->kind()) {
    case NodeKind::kTensorSInfo:
      return "R.Tensor";
    case NodeKind::kShapeSInfo:
      return "R.Shape";
    case NodeKind::kPrimSInfo:
      return "R.Prim";
    case NodeKind::kTupleSInfo:
      return "R.Tuple";
    case NodeKind::kFuncSInfo:
      return "R.Callable";
    case NodeKind::kObjectSInfo:
    PIPESPLIT_KINDS_OUTSIDE_STRUCT_INFO:
      return "R.Object";
  }
  PS_UNREACHABLE();
}

std::string ShapeString(const std::vector<PrimExpr>& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += ToString(shape[i]);
  }
  if (shape.size() == 1) out += ",";
  return out + ")";
}

// ---- Arguments ----

void CheckArgCount(const CallNode& call, size_t expected) {
  if (call.args().size() != expected) {
    Fail(call, "expects " + std::to_string(expected) + " argument" + (expected == 1 ? "" : "s") +
                   ", got " + std::to_string(call.args().size()));
  }
}

void CheckArgCountBetween(const CallNode& call, size_t min, size_t max) {
  size_t n = call.args().size();
  if (n < min || n > max) {
    Fail(call, "expects " + std::to_string(min) + " to " + std::to_string(max) +
                   " arguments, got " + std::to_string(n));
  }
}

std::string ArgName(const CallNode& call, size_t i) {
  const OpNode* op = call.op_node();
  if (op != nullptr && op->info() != nullptr) {
    // Relax arguments in Call::args order: indexed ones at their slot, the others in order.
    std::vector<const OpParam*> slots(call.args().size(), nullptr);
    std::vector<const OpParam*> rest;
    for (const OpParam& p : op->info()->params) {
      if (p.kind != OpParam::Kind::kArg && p.kind != OpParam::Kind::kVariadic) continue;
      if (p.arg_index >= 0 && static_cast<size_t>(p.arg_index) < slots.size()) {
        slots[p.arg_index] = &p;
      } else {
        rest.push_back(&p);
      }
    }
    size_t next = 0;
    for (size_t slot = 0; slot < slots.size() && next < rest.size(); ++slot) {
      if (slots[slot] != nullptr) continue;
      slots[slot] = rest[next];
      if (rest[next]->kind != OpParam::Kind::kVariadic) ++next;
    }
    if (i < slots.size() && slots[i] != nullptr) return slots[i]->name;
  }
  return "argument " + std::to_string(i);
}

const StructInfo& ArgSInfo(const CallNode& call, size_t i) {
  if (i >= call.args().size()) {
    Fail(call, "expects at least " + std::to_string(i + 1) + " arguments, got " +
                   std::to_string(call.args().size()));
  }
  const StructInfo& sinfo = call.args()[i]->struct_info();
  PS_CHECK(sinfo != nullptr) << "inferring a call whose argument " << i << " is not normalized";
  return sinfo;
}

const TensorSInfoNode& TensorArg(const CallNode& call, size_t i) {
  const StructInfo& sinfo = ArgSInfo(call, i);
  const auto* t = As<TensorSInfoNode>(sinfo);
  if (t == nullptr) {
    Fail(call, ArgName(call, i) + " must be a tensor, got " + SInfoKindName(sinfo));
  }
  return *t;
}

const ShapeSInfoNode& ShapeArg(const CallNode& call, size_t i) {
  const StructInfo& sinfo = ArgSInfo(call, i);
  const auto* s = As<ShapeSInfoNode>(sinfo);
  if (s == nullptr) {
    Fail(call, ArgName(call, i) + " must be a shape, got " + SInfoKindName(sinfo));
  }
  return *s;
}

std::vector<const TensorSInfoNode*> TensorTupleArg(const CallNode& call, size_t i) {
  const StructInfo& sinfo = ArgSInfo(call, i);
  const auto* tuple = As<TupleSInfoNode>(sinfo);
  if (tuple == nullptr) {
    Fail(call, ArgName(call, i) + " must be a tuple of tensors, got " + SInfoKindName(sinfo));
  }
  std::vector<const TensorSInfoNode*> out;
  for (const StructInfo& field : tuple->fields()) {
    const auto* t = As<TensorSInfoNode>(field);
    if (t == nullptr) {
      Fail(call, ArgName(call, i) + " must be a tuple of tensors, got a field of " +
                     SInfoKindName(field));
    }
    out.push_back(t);
  }
  return out;
}

PrimExpr PrimArgValue(const CallNode& call, size_t i) {
  const auto* prim = As<PrimSInfoNode>(ArgSInfo(call, i));
  return prim != nullptr ? prim->value() : nullptr;
}

std::optional<std::vector<PrimExpr>> PrimTupleArgValues(const CallNode& call, size_t i) {
  const StructInfo& sinfo = ArgSInfo(call, i);
  if (sinfo->kind() == NodeKind::kObjectSInfo) return std::nullopt;
  const auto* tuple = As<TupleSInfoNode>(sinfo);
  if (tuple == nullptr) {
    Fail(call, ArgName(call, i) + " must be a tuple of R.Prim values, got " + SInfoKindName(sinfo));
  }
  std::vector<PrimExpr> out;
  bool known = true;
  for (const StructInfo& field : tuple->fields()) {
    if (field->kind() == NodeKind::kObjectSInfo) {
      known = false;
      continue;
    }
    const auto* prim = As<PrimSInfoNode>(field);
    if (prim == nullptr) {
      Fail(call, ArgName(call, i) + " must be a tuple of R.Prim values, got a field of " +
                     SInfoKindName(field));
    }
    if (!prim->value()) known = false;
    out.push_back(prim->value());
  }
  if (!known) return std::nullopt;
  return out;
}

StructInfo DeclaredResult(const CallNode& call) {
  const auto& s = call.sinfo_args();
  if (s.empty()) return ObjectSInfo();
  if (s.size() == 1) return s[0];
  return TupleSInfo(s);
}

// ---- Attributes ----

CallAttrs::CallAttrs(const CallNode& call) : call_(call) {
  const OpNode* op = call.op_node();
  attrs_ = (op != nullptr && op->info() != nullptr)
               ? CompleteAttrs(*op->info(), call.attrs(), call.args())
               : call.attrs();
}

const AttrValue& CallAttrs::Get(std::string_view name) const {
  const AttrValue* v = FindAttr(attrs_, name);
  if (v == nullptr) Fail(call_, "missing attribute " + std::string(name));
  return *v;
}

void CallAttrs::BadType(std::string_view name, const char* expected) const {
  Fail(call_, "attribute " + std::string(name) + " must be " + expected);
}

int64_t CallAttrs::Int(std::string_view name) const {
  auto v = Get(name).ToInt();
  if (!v) BadType(name, "an integer");
  return *v;
}

std::optional<int64_t> CallAttrs::OptInt(std::string_view name) const {
  if (IsNone(name)) return std::nullopt;
  return Int(name);
}

bool CallAttrs::Bool(std::string_view name) const {
  const AttrValue& v = Get(name);
  if (const bool* b = v.as_bool()) return *b;
  if (auto i = v.ToInt(); i && (*i == 0 || *i == 1)) return *i == 1;
  BadType(name, "a boolean");
}

std::string CallAttrs::Str(std::string_view name) const {
  const std::string* s = Get(name).as_string();
  if (s == nullptr) BadType(name, "a string");
  return *s;
}

DataType CallAttrs::DType(std::string_view name) const {
  const AttrValue& v = Get(name);
  if (v.is_none()) return DataType::Void();
  const std::string* s = v.as_string();
  if (s == nullptr) BadType(name, "a dtype string");
  auto dtype = DataType::Parse(*s);
  if (!dtype) Fail(call_, "attribute " + std::string(name) + " is not a dtype: \"" + *s + "\"");
  return *dtype;
}

std::vector<int64_t> CallAttrs::IntList(std::string_view name) const {
  const AttrValue& v = Get(name);
  if (auto i = v.ToInt()) return {*i};
  const AttrList* list = v.as_list();
  if (list == nullptr) BadType(name, "a list of integers");
  std::vector<int64_t> out;
  for (const AttrValue& item : *list) {
    auto i = item.ToInt();
    if (!i) BadType(name, "a list of integers");
    out.push_back(*i);
  }
  return out;
}

std::optional<std::vector<int64_t>> CallAttrs::OptIntList(std::string_view name) const {
  if (IsNone(name)) return std::nullopt;
  return IntList(name);
}

// ---- Struct info construction ----

StructInfo MakeTensor(std::vector<PrimExpr> shape, DataType dtype, const std::string& vdevice) {
  // Dims are int64 (TVM's ShapeExpr): one computed from a value of another integer type (an
  // R.prim_value of an int32 var) is cast.
  for (PrimExpr& dim : shape) {
    if (dim->dtype() != DataType::Int(64) && dim->dtype().is_integer()) {
      dim = CastTo(dim, DataType::Int(64));
    }
  }
  return Make<TensorSInfoNode>(std::move(shape), dtype, vdevice);
}

StructInfo MakeTensorNdim(DataType dtype, int ndim, const std::string& vdevice) {
  return Make<TensorSInfoNode>(dtype, ndim, vdevice);
}

StructInfo WithDType(const TensorSInfoNode& t, DataType dtype) {
  if (t.shape_var()) return Make<TensorSInfoNode>(t.shape_var(), dtype, t.vdevice());
  if (t.shape()) return MakeTensor(*t.shape(), dtype, t.vdevice());
  return MakeTensorNdim(dtype, t.ndim(), t.vdevice());
}

StructInfo TensorLikeShape(const ShapeSInfoNode& shape, DataType dtype,
                           const std::string& vdevice) {
  if (shape.values()) return MakeTensor(*shape.values(), dtype, vdevice);
  return MakeTensorNdim(dtype, shape.ndim(), vdevice);
}

StructInfo TensorOfShapeArg(const CallNode& call, size_t i, DataType dtype,
                            const std::string& vdevice) {
  const ShapeSInfoNode& shape = ShapeArg(call, i);
  if (!shape.values()) {
    if (Var var = Cast<VarNode>(call.args()[i])) {
      return Make<TensorSInfoNode>(std::move(var), dtype, vdevice);
    }
  }
  return TensorLikeShape(shape, dtype, vdevice);
}

std::string JoinVDevice(const CallNode& call, const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty() || a == b) return a;
  Fail(call, "operands are on different virtual devices \"" + a + "\" and \"" + b + "\"");
}

// ---- Shapes and axes ----

void CheckIntRange(const CallNode& call, const char* name, const std::vector<int64_t>& values,
                   int64_t min) {
  constexpr int64_t kLimit = int64_t{1} << 31;
  for (int64_t v : values) {
    if (v < min || v >= kLimit) {
      Fail(call, "attribute " + std::string(name) + " must be between " + std::to_string(min) +
                     " and " + std::to_string(kLimit - 1) + ", got " + std::to_string(v));
    }
  }
}

int NormalizeAxis(const CallNode& call, int ndim, int64_t axis) {
  if (axis < -ndim || axis >= ndim) {
    Fail(call, "axis " + std::to_string(axis) + " is out of range for a tensor of " +
                   std::to_string(ndim) + " dimension" + (ndim == 1 ? "" : "s"));
  }
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

std::vector<int> NormalizeAxes(const CallNode& call, int ndim, const std::vector<int64_t>& axes) {
  std::vector<int> out;
  for (int64_t axis : axes) {
    int a = NormalizeAxis(call, ndim, axis);
    if (std::find(out.begin(), out.end(), a) != out.end()) {
      Fail(call, "axis " + std::to_string(a) + " is given more than once");
    }
    out.push_back(a);
  }
  return out;
}

std::optional<std::vector<PrimExpr>> BroadcastShapes(const CallNode& call,
                                                     const std::vector<PrimExpr>& a,
                                                     const std::vector<PrimExpr>& b) {
  size_t na = a.size(), nb = b.size(), n = std::max(na, nb);
  std::vector<PrimExpr> out(n);
  for (size_t i = 1; i <= n; ++i) {
    if (i > na) {
      out[n - i] = b[nb - i];
      continue;
    }
    if (i > nb) {
      out[n - i] = a[na - i];
      continue;
    }
    const PrimExpr& da = a[na - i];
    const PrimExpr& db = b[nb - i];
    auto ca = AsConstInt(da), cb = AsConstInt(db);
    if (ca == 1) {
      out[n - i] = db;
    } else if (cb == 1 || ProvablyEq(da, db)) {
      out[n - i] = da;
    } else if (ca && cb) {
      Fail(call, "cannot broadcast dimension " + std::to_string(na - i) + " (" +
                     std::to_string(*ca) + ") of the first operand with dimension " +
                     std::to_string(nb - i) + " (" + std::to_string(*cb) + ") of the second");
    } else {
      return std::nullopt;
    }
  }
  return out;
}

}  // namespace pipesplit::ir
