// Scalar expressions (TIR PrimExpr), as they appear in Relax shapes and prim values and in TIR
// kernels: immediates, symbolic vars, arithmetic, comparisons, logic, casts, selects, named
// intrinsic calls such as T.if_then_else, and loads from buffers (with the Buffer they read):
// the nodes, their construction and traversals. TIR statements are in pipesplit/ir/tir.h.
// Folding and simplification live in pipesplit/ir/arith.h, the text form in
// pipesplit/ir/prim_text.h.
#ifndef PIPESPLIT_IR_PRIM_EXPR_H_
#define PIPESPLIT_IR_PRIM_EXPR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pipesplit/ir/node.h"
#include "pipesplit/support/check.h"
#include "pipesplit/support/dtype.h"

namespace pipesplit::ir {

class PrimExprNode : public Node {
 public:
  static bool ClassOf(NodeKind k) { return k >= NodeKind::kIntImm && k <= NodeKind::kLet; }
  DataType dtype() const { return dtype_; }

 protected:
  PrimExprNode(NodeKind kind, DataType dtype, Span span) : Node(kind, span), dtype_(dtype) {}

 private:
  DataType dtype_;
};
using PrimExpr = Ptr<PrimExprNode>;

// An integer or boolean immediate (bool: dtype bool, value 0 or 1).
class IntImmNode : public PrimExprNode {
 public:
  PIPESPLIT_NODE_KIND(kIntImm)
  IntImmNode(DataType dtype, int64_t value, Span span = {})
      : PrimExprNode(NodeKind::kIntImm, dtype, span), value_(value) {}
  int64_t value() const { return value_; }

 private:
  int64_t value_;
};

class FloatImmNode : public PrimExprNode {
 public:
  PIPESPLIT_NODE_KIND(kFloatImm)
  FloatImmNode(DataType dtype, double value, Span span = {})
      : PrimExprNode(NodeKind::kFloatImm, dtype, span), value_(value) {}
  double value() const { return value_; }

 private:
  double value_;
};

// A symbolic variable (tir.Var, or tir.SizeVar when is_size_var). Compared by identity.
class TirVarNode : public PrimExprNode {
 public:
  PIPESPLIT_NODE_KIND(kTirVar)
  TirVarNode(std::string name, DataType dtype, bool is_size_var = false, Span span = {})
      : PrimExprNode(NodeKind::kTirVar, dtype, span),
        name_(std::move(name)),
        is_size_var_(is_size_var) {}
  const std::string& name() const { return name_; }
  bool is_size_var() const { return is_size_var_; }

 private:
  std::string name_;
  bool is_size_var_;
};
using TirVar = Ptr<TirVarNode>;

enum class BinaryOp : uint8_t {
  kAdd,
  kSub,
  kMul,
  kDiv,       // tir.Div: truncating for integers, true division for floats
  kMod,       // tir.Mod: truncating remainder (T.truncmod)
  kFloorDiv,  // `//`
  kFloorMod,  // `%`
  kMin,
  kMax,
  kEQ,
  kNE,
  kLT,
  kLE,
  kGT,
  kGE,
  kAnd,
  kOr,
};

// Name used in diagnostics and in T.<Name>(a, b) spelling ("Add", "FloorDiv", ...).
const char* BinaryOpName(BinaryOp op);
// The operator whose BinaryOpName is `name` (TVM's node constructors T.Add, T.FloorDiv, ...).
std::optional<BinaryOp> BinaryOpFromName(std::string_view name);
bool IsComparison(BinaryOp op);

class BinaryNode : public PrimExprNode {
 public:
  PIPESPLIT_NODE_KIND(kBinary)
  BinaryNode(BinaryOp op, PrimExpr a, PrimExpr b, DataType dtype, Span span = {})
      : PrimExprNode(NodeKind::kBinary, dtype, span), op_(op), a_(std::move(a)), b_(std::move(b)) {}
  BinaryOp op() const { return op_; }
  const PrimExpr& a() const { return a_; }
  const PrimExpr& b() const { return b_; }

 private:
  BinaryOp op_;
  PrimExpr a_;
  PrimExpr b_;
};

class NotNode : public PrimExprNode {
 public:
  PIPESPLIT_NODE_KIND(kNot)
  explicit NotNode(PrimExpr a, Span span = {})
      : PrimExprNode(NodeKind::kNot, DataType::Bool(), span), a_(std::move(a)) {}
  const PrimExpr& a() const { return a_; }

 private:
  PrimExpr a_;
};

class CastNode : public PrimExprNode {
 public:
  PIPESPLIT_NODE_KIND(kCast)
  CastNode(DataType dtype, PrimExpr value, Span span = {})
      : PrimExprNode(NodeKind::kCast, dtype, span), value_(std::move(value)) {}
  const PrimExpr& value() const { return value_; }

 private:
  PrimExpr value_;
};

class SelectNode : public PrimExprNode {
 public:
  PIPESPLIT_NODE_KIND(kSelect)
  SelectNode(PrimExpr cond, PrimExpr true_value, PrimExpr false_value, Span span = {})
      : PrimExprNode(NodeKind::kSelect, true_value->dtype(), span),
        cond_(std::move(cond)),
        true_value_(std::move(true_value)),
        false_value_(std::move(false_value)) {}
  const PrimExpr& cond() const { return cond_; }
  const PrimExpr& true_value() const { return true_value_; }
  const PrimExpr& false_value() const { return false_value_; }

 private:
  PrimExpr cond_;
  PrimExpr true_value_;
  PrimExpr false_value_;
};

// A call of a named TIR intrinsic, printed T.<name>(args...): "if_then_else", "truncdiv",
// "shift_left", ... The name is stored without the "T." prefix.
class PrimCallNode : public PrimExprNode {
 public:
  PIPESPLIT_NODE_KIND(kPrimCall)
  PrimCallNode(std::string name, std::vector<PrimExpr> args, DataType dtype, Span span = {})
      : PrimExprNode(NodeKind::kPrimCall, dtype, span),
        name_(std::move(name)),
        args_(std::move(args)) {}
  const std::string& name() const { return name_; }
  const std::vector<PrimExpr>& args() const { return args_; }

 private:
  std::string name_;
  std::vector<PrimExpr> args_;
};

// A string immediate inside TIR (tir.StringImm, dtype handle): the arguments of intrinsics
// such as T.tvm_storage_sync("shared") and the messages of an assert.
class TirStringImmNode : public PrimExprNode {
 public:
  PIPESPLIT_NODE_KIND(kTirStringImm)
  explicit TirStringImmNode(std::string value, Span span = {})
      : PrimExprNode(NodeKind::kTirStringImm, DataType::Handle(), span), value_(std::move(value)) {}
  const std::string& value() const { return value_; }

 private:
  std::string value_;
};

// `body` with `var` bound to `value` (tir.Let, printed T.Let(body, where={var: value})). Its
// dtype is the body's.
class LetNode : public PrimExprNode {
 public:
  PIPESPLIT_NODE_KIND(kLet)
  LetNode(TirVar var, PrimExpr value, PrimExpr body, Span span = {})
      : PrimExprNode(NodeKind::kLet, body->dtype(), span),
        var_(std::move(var)),
        value_(std::move(value)),
        body_(std::move(body)) {}
  const TirVar& var() const { return var_; }
  const PrimExpr& value() const { return value_; }
  const PrimExpr& body() const { return body_; }

 private:
  TirVar var_;
  PrimExpr value_;
  PrimExpr body_;
};

// How a buffer lies in its memory, beyond its shape (TVM's strides, elem_offset,
// offset_factor and data_alignment). The defaults are a compact buffer at offset 0.
struct BufferLayout {
  std::vector<PrimExpr> strides;  // empty: compact, row-major
  PrimExpr elem_offset;           // null: 0; often a var the buffer introduces (A.elem_offset)
  int64_t offset_factor = 1;      // elem_offset is a multiple of it
  int64_t data_alignment = 64;    // bytes (TVM's kAllocAlignment unless `align=` says)
  // A scalar buffer (shape (1,)): TVM's `x: T.int32` local scalar, read and written as `x`.
  bool scalar = false;
};

// A multi-dimensional buffer (tir.Buffer): a name, the handle var of its data, an element
// dtype, a shape, a storage scope ("global" unless declared otherwise) and its layout.
class BufferNode : public Node {
 public:
  PIPESPLIT_NODE_KIND(kBuffer)
  BufferNode(std::string name, TirVar data, DataType dtype, std::vector<PrimExpr> shape,
             std::string scope = "global", Span span = {}, BufferLayout layout = {})
      : Node(NodeKind::kBuffer, span),
        name_(std::move(name)),
        data_(std::move(data)),
        dtype_(dtype),
        shape_(std::move(shape)),
        scope_(std::move(scope)),
        layout_(std::move(layout)) {}
  const std::string& name() const { return name_; }
  const TirVar& data() const { return data_; }
  DataType dtype() const { return dtype_; }
  const std::vector<PrimExpr>& shape() const { return shape_; }
  const std::string& scope() const { return scope_; }
  const BufferLayout& layout() const { return layout_; }
  const std::vector<PrimExpr>& strides() const { return layout_.strides; }
  const PrimExpr& elem_offset() const { return layout_.elem_offset; }
  // Whether the layout is the default one (compact, offset 0, default alignment).
  bool has_default_layout() const {
    return layout_.strides.empty() && layout_.elem_offset == nullptr &&
           layout_.offset_factor == 1 && layout_.data_alignment == 64 && !layout_.scalar;
  }

 private:
  std::string name_;
  TirVar data_;
  DataType dtype_;
  std::vector<PrimExpr> shape_;
  std::string scope_;
  BufferLayout layout_;
};
using Buffer = Ptr<BufferNode>;

// buffer[indices] (tir.BufferLoad); its dtype is the buffer's element dtype.
class BufferLoadNode : public PrimExprNode {
 public:
  PIPESPLIT_NODE_KIND(kBufferLoad)
  BufferLoadNode(Buffer buffer, std::vector<PrimExpr> indices, Span span = {})
      : PrimExprNode(NodeKind::kBufferLoad, buffer->dtype(), span),
        buffer_(std::move(buffer)),
        indices_(std::move(indices)) {}
  const Buffer& buffer() const { return buffer_; }
  const std::vector<PrimExpr>& indices() const { return indices_; }

 private:
  Buffer buffer_;
  std::vector<PrimExpr> indices_;
};

// ---- Construction helpers (no folding; see Simplify in arith.h for that). ----
PrimExpr IntImm(int64_t value, DataType dtype = DataType::Int(64));
PrimExpr FloatImm(double value, DataType dtype = DataType::Float(32));
PrimExpr BoolImm(bool value);
TirVar MakeTirVar(std::string name, DataType dtype = DataType::Int(64));
// Builds a binary node; the result dtype is bool for comparisons and logic, else a's dtype.
PrimExpr MakeBinary(BinaryOp op, PrimExpr a, PrimExpr b, Span span = {});

// ---- Queries and transformations. ----

// The constant value of an integer immediate, if `e` is one.
std::optional<int64_t> AsConstInt(const PrimExpr& e);

// Substitutes variables (by identity). Returns the same node when nothing changed.
using TirVarMap = std::unordered_map<const TirVarNode*, PrimExpr>;
PrimExpr Substitute(const PrimExpr& e, const TirVarMap& map);

// Calls `fn` on every TirVar in `e`, in pre-order (duplicates included).
void VisitTirVars(const PrimExpr& e, const std::function<void(const TirVar&)>& fn);
// The distinct free vars of `e`, in order of first appearance.
std::vector<TirVar> FreeTirVars(const PrimExpr& e);

// ---- Generic child access (used by the traversals here and by ir/arith). ----

// Calls `f` on each direct child of `e`, left to right.
template <typename F>
void ForEachChild(const PrimExpr& e, F&& f) {
  switch (e->kind()) {
    case NodeKind::kBinary: {
      const auto* n = static_cast<const BinaryNode*>(e.get());
      f(n->a());
      f(n->b());
      break;
    }
    case NodeKind::kNot:
      f(static_cast<const NotNode*>(e.get())->a());
      break;
    case NodeKind::kCast:
      f(static_cast<const CastNode*>(e.get())->value());
      break;
    case NodeKind::kSelect: {
      const auto* n = static_cast<const SelectNode*>(e.get());
      f(n->cond());
      f(n->true_value());
      f(n->false_value());
      break;
    }
    case NodeKind::kPrimCall:
      for (const PrimExpr& a : static_cast<const PrimCallNode*>(e.get())->args()) f(a);
      break;
    case NodeKind::kBufferLoad:
      for (const PrimExpr& i : static_cast<const BufferLoadNode*>(e.get())->indices()) f(i);
      break;
    case NodeKind::kLet: {
      const auto* n = static_cast<const LetNode*>(e.get());
      f(n->value());
      f(n->body());
      break;
    }
    case NodeKind::kIntImm:
    case NodeKind::kFloatImm:
    case NodeKind::kTirVar:
    case NodeKind::kTirStringImm:
    PIPESPLIT_KINDS_OUTSIDE_PRIM_EXPR:
      break;
  }
}

// Rebuilds `e` with each direct child replaced by `f(child)` (left to right); returns the same
// node when no child changed.
template <typename F>
PrimExpr MapChildren(const PrimExpr& e, F&& f) {
  switch (e->kind()) {
    case NodeKind::kBinary: {
      const auto* n = static_cast<const BinaryNode*>(e.get());
      PrimExpr a = f(n->a());
      PrimExpr b = f(n->b());
      if (a == n->a() && b == n->b()) return e;
      return Make<BinaryNode>(n->op(), a, b, n->dtype(), n->span());
    }
    case NodeKind::kNot: {
      const auto* n = static_cast<const NotNode*>(e.get());
      PrimExpr a = f(n->a());
      if (a == n->a()) return e;
      return Make<NotNode>(a, n->span());
    }
    case NodeKind::kCast: {
      const auto* n = static_cast<const CastNode*>(e.get());
      PrimExpr v = f(n->value());
      if (v == n->value()) return e;
      return Make<CastNode>(n->dtype(), v, n->span());
    }
    case NodeKind::kSelect: {
      const auto* n = static_cast<const SelectNode*>(e.get());
      PrimExpr c = f(n->cond());
      PrimExpr t = f(n->true_value());
      PrimExpr fv = f(n->false_value());
      if (c == n->cond() && t == n->true_value() && fv == n->false_value()) return e;
      return Make<SelectNode>(c, t, fv, n->span());
    }
    case NodeKind::kPrimCall: {
      const auto* n = static_cast<const PrimCallNode*>(e.get());
      std::vector<PrimExpr> args;
      args.reserve(n->args().size());
      bool changed = false;
      for (const PrimExpr& a : n->args()) {
        args.push_back(f(a));
        changed |= args.back() != a;
      }
      if (!changed) return e;
      return Make<PrimCallNode>(n->name(), std::move(args), n->dtype(), n->span());
    }
    case NodeKind::kBufferLoad: {
      const auto* n = static_cast<const BufferLoadNode*>(e.get());
      std::vector<PrimExpr> indices;
      indices.reserve(n->indices().size());
      bool changed = false;
      for (const PrimExpr& index : n->indices()) {
        indices.push_back(f(index));
        changed |= indices.back() != index;
      }
      if (!changed) return e;
      return Make<BufferLoadNode>(n->buffer(), std::move(indices), n->span());
    }
    case NodeKind::kLet: {
      const auto* n = static_cast<const LetNode*>(e.get());
      PrimExpr value = f(n->value());
      PrimExpr body = f(n->body());
      if (value == n->value() && body == n->body()) return e;
      return Make<LetNode>(n->var(), value, body, n->span());
    }
    case NodeKind::kIntImm:
    case NodeKind::kFloatImm:
    case NodeKind::kTirVar:
    case NodeKind::kTirStringImm:
    PIPESPLIT_KINDS_OUTSIDE_PRIM_EXPR:
      return e;
  }
  PS_UNREACHABLE();
}

}  // namespace pipesplit::ir

#endif  // PIPESPLIT_IR_PRIM_EXPR_H_
