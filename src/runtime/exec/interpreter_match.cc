// Symbolic arithmetic at run time and checking values against struct info (parameters,
// match_cast), binding symbolic vars on first sight.
#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <string>

#include "pipesplit/ir/arith.h"
#include "pipesplit/ir/prim_text.h"
#include "pipesplit/runtime/exec/interpreter.h"

namespace pipesplit::runtime {
namespace {

// `x op y` with the compile-time folder's semantics; what it cannot fold is an error here.
int64_t EvalBinary(ir::BinaryOp op, int64_t x, int64_t y) {
  if (std::optional<int64_t> v = ir::FoldIntBinary(op, x, y)) return *v;
  if (y == 0) throw RuntimeError("division by zero in a symbolic expression");
  throw RuntimeError(fmt::format("integer overflow in a symbolic expression ({} / {})", x, y));
}

// Pass 1 of Match: binds every bare symbolic var not bound yet.
void BindBare(const Interpreter& interp, const Value& value, const ir::StructInfo& sinfo,
              Frame& frame) {
  auto bind_dims = [&](const std::vector<ir::PrimExpr>& dims, const Shape& actual) {
    if (dims.size() != actual.size()) return;
    for (size_t i = 0; i < dims.size(); ++i) {
      const auto* v = ir::As<ir::TirVarNode>(dims[i]);
      if (v != nullptr && frame.FindSym(v) == nullptr) frame.BindSym(v, actual[i]);
    }
  };
  switch (sinfo->kind()) {
    case ir::NodeKind::kTensorSInfo: {
      const auto& t = static_cast<const ir::TensorSInfoNode&>(*sinfo);
      if (const Tensor* tensor = value.as_tensor(); tensor && t.shape()) {
        bind_dims(*t.shape(), tensor->shape());
      }
      break;
    }
    case ir::NodeKind::kShapeSInfo: {
      const auto& s = static_cast<const ir::ShapeSInfoNode&>(*sinfo);
      if (const Shape* shape = value.as_shape(); shape && s.values()) {
        bind_dims(*s.values(), *shape);
      }
      break;
    }
    case ir::NodeKind::kPrimSInfo: {
      const auto& p = static_cast<const ir::PrimSInfoNode&>(*sinfo);
      const PrimScalar* scalar = value.as_prim();
      const auto* v = p.value() ? ir::As<ir::TirVarNode>(p.value()) : nullptr;
      if (scalar && v && !scalar->is_float() && frame.FindSym(v) == nullptr) {
        frame.BindSym(v, scalar->int_value);
      }
      break;
    }
    case ir::NodeKind::kTupleSInfo: {
      const auto& t = static_cast<const ir::TupleSInfoNode&>(*sinfo);
      const auto* fields = value.as_tuple();
      if (fields && fields->size() == t.fields().size()) {
        for (size_t i = 0; i < fields->size(); ++i)
          BindBare(interp, (*fields)[i], t.fields()[i], frame);
      }
      // A group's weight table standing in for packed_params binds through the fields it holds
      // (MLC's `R.Tensor((vocab_size, 256))` lm_head).
      if (const auto* object = dynamic_cast<const FieldObject*>(value.as_object())) {
        for (size_t i = 0; i < t.fields().size(); ++i) {
          const auto index = static_cast<int64_t>(i);
          if (object->HasField(index))
            BindBare(interp, object->GetField(index), t.fields()[i], frame);
        }
      }
      break;
    }
    case ir::NodeKind::kObjectSInfo:
    case ir::NodeKind::kFuncSInfo:
    PIPESPLIT_KINDS_OUTSIDE_STRUCT_INFO:
      break;
  }
}

bool AllBound(const ir::PrimExpr& e, const Frame& frame) {
  bool ok = true;
  ir::VisitTirVars(e, [&](const ir::TirVar& v) { ok &= frame.FindSym(v.get()) != nullptr; });
  return ok;
}

// Pass 2 of Match: checks everything.
void Check(const Interpreter& interp, const Value& value, const ir::StructInfo& sinfo,
           const Frame& frame, const std::string& what) {
  auto check_dims = [&](const std::vector<ir::PrimExpr>& dims, const Shape& actual,
                        const char* noun) {
    if (dims.size() != actual.size()) {
      throw RuntimeError(what + " has " + std::to_string(actual.size()) + " " + noun +
                         ", expected " + std::to_string(dims.size()));
    }
    for (size_t i = 0; i < dims.size(); ++i) {
      if (!AllBound(dims[i], frame)) continue;
      int64_t expected = interp.EvalInt(dims[i], frame);
      if (expected != actual[i]) {
        std::string symbolic = ir::AsConstInt(dims[i]) ? "" : " (" + ir::ToString(dims[i]) + ")";
        throw RuntimeError(
            fmt::format("{}: dim {} is {}, expected {}{}", what, i, actual[i], expected, symbolic));
      }
    }
  };
  switch (sinfo->kind()) {
    case ir::NodeKind::kObjectSInfo:
      return;
    case ir::NodeKind::kTensorSInfo: {
      const auto& t = static_cast<const ir::TensorSInfoNode&>(*sinfo);
      const Tensor* tensor = value.as_tensor();
      if (tensor == nullptr)
        throw RuntimeError(what + " must be a tensor, got " + value.Describe());
      if (!t.dtype().is_void() && t.dtype() != tensor->dtype()) {
        throw RuntimeError(what + " has dtype " + tensor->dtype().ToString() + ", expected " +
                           t.dtype().ToString());
      }
      if (t.shape_var()) {  // R.Tensor(s, ...): the shape `s` holds here
        const Value* held = frame.Find(t.shape_var().get());
        const Shape* expected = held != nullptr ? held->as_shape() : nullptr;
        if (expected != nullptr && *expected != tensor->shape()) {
          auto text = [](const Shape& shape) {
            std::string out = "(";
            for (size_t i = 0; i < shape.size(); ++i) {
              out += (i > 0 ? ", " : "") + std::to_string(shape[i]);
            }
            return out + ")";
          };
          throw RuntimeError(what + " has shape " + text(tensor->shape()) + ", expected " +
                             text(*expected) + " (the value of " + t.shape_var()->name_hint() +
                             ")");
        }
      }
      if (t.shape()) {
        check_dims(*t.shape(), tensor->shape(), "dims");
      } else if (t.ndim() >= 0 && t.ndim() != tensor->ndim()) {
        throw RuntimeError(what + " has " + std::to_string(tensor->ndim()) + " dims, expected " +
                           std::to_string(t.ndim()));
      }
      return;
    }
    case ir::NodeKind::kShapeSInfo: {
      const auto& s = static_cast<const ir::ShapeSInfoNode&>(*sinfo);
      const Shape* shape = value.as_shape();
      if (shape == nullptr) throw RuntimeError(what + " must be a shape, got " + value.Describe());
      if (s.values()) {
        check_dims(*s.values(), *shape, "values");
      } else if (s.ndim() >= 0 && s.ndim() != static_cast<int>(shape->size())) {
        throw RuntimeError(what + " has " + std::to_string(shape->size()) + " values, expected " +
                           std::to_string(s.ndim()));
      }
      return;
    }
    case ir::NodeKind::kPrimSInfo: {
      const auto& p = static_cast<const ir::PrimSInfoNode&>(*sinfo);
      const PrimScalar* scalar = value.as_prim();
      if (scalar == nullptr) {
        throw RuntimeError(what + " must be a " + p.dtype().ToString() + " scalar, got " +
                           value.Describe());
      }
      if (p.value() && !scalar->is_float() && AllBound(p.value(), frame) &&
          interp.EvalInt(p.value(), frame) != scalar->int_value) {
        throw RuntimeError(what + " is " + std::to_string(scalar->int_value) + ", expected " +
                           std::to_string(interp.EvalInt(p.value(), frame)));
      }
      return;
    }
    case ir::NodeKind::kTupleSInfo: {
      const auto& t = static_cast<const ir::TupleSInfoNode&>(*sinfo);
      const auto* fields = value.as_tuple();
      if (fields == nullptr) {
        // A group's weight table stands in for packed_params.
        if (value.as_object() != nullptr) return;
        throw RuntimeError(what + " must be a tuple, got " + value.Describe());
      }
      if (fields->size() != t.fields().size()) {
        throw RuntimeError(what + " has " + std::to_string(fields->size()) + " fields, expected " +
                           std::to_string(t.fields().size()));
      }
      for (size_t i = 0; i < fields->size(); ++i) {
        Check(interp, (*fields)[i], t.fields()[i], frame, what + "[" + std::to_string(i) + "]");
      }
      return;
    }
    case ir::NodeKind::kFuncSInfo:
      if (value.as_callable() == nullptr) {
        throw RuntimeError(what + " must be a function, got " + value.Describe());
      }
      return;
    PIPESPLIT_KINDS_OUTSIDE_STRUCT_INFO:
      return;
  }
}

}  // namespace

int64_t Interpreter::EvalInt(const ir::PrimExpr& e, const Frame& frame) const {
  switch (e->kind()) {
    case ir::NodeKind::kIntImm:
      return static_cast<const ir::IntImmNode&>(*e).value();
    case ir::NodeKind::kFloatImm:
      return static_cast<int64_t>(static_cast<const ir::FloatImmNode&>(*e).value());
    case ir::NodeKind::kTirVar: {
      const auto* v = static_cast<const ir::TirVarNode*>(e.get());
      const int64_t* value = frame.FindSym(v);
      if (value == nullptr) throw RuntimeError("symbolic variable '" + v->name() + "' is unbound");
      return *value;
    }
    case ir::NodeKind::kBinary: {
      const auto& b = static_cast<const ir::BinaryNode&>(*e);
      int64_t x = EvalInt(b.a(), frame);
      int64_t y = EvalInt(b.b(), frame);
      return EvalBinary(b.op(), x, y);
    }
    case ir::NodeKind::kNot:
      return !EvalInt(static_cast<const ir::NotNode&>(*e).a(), frame);
    case ir::NodeKind::kCast:
      return EvalInt(static_cast<const ir::CastNode&>(*e).value(), frame);
    case ir::NodeKind::kSelect: {
      const auto& s = static_cast<const ir::SelectNode&>(*e);
      return EvalInt(s.cond(), frame) ? EvalInt(s.true_value(), frame)
                                      : EvalInt(s.false_value(), frame);
    }
    case ir::NodeKind::kPrimCall: {
      const auto& c = static_cast<const ir::PrimCallNode&>(*e);
      if (c.name() == "if_then_else" && c.args().size() == 3) {
        return EvalInt(c.args()[0], frame) ? EvalInt(c.args()[1], frame)
                                           : EvalInt(c.args()[2], frame);
      }
      if ((c.name() == "truncdiv" || c.name() == "truncmod") && c.args().size() == 2) {
        int64_t x = EvalInt(c.args()[0], frame), y = EvalInt(c.args()[1], frame);
        return EvalBinary(c.name() == "truncdiv" ? ir::BinaryOp::kDiv : ir::BinaryOp::kMod, x, y);
      }
      throw RuntimeError("cannot evaluate T." + c.name() + " at run time");
    }
    case ir::NodeKind::kBufferLoad:
      throw RuntimeError("a buffer load is not a symbolic expression of a Relax program");
    case ir::NodeKind::kTirStringImm:
      throw RuntimeError("a TIR string is not a symbolic expression of a Relax program");
    case ir::NodeKind::kLet:
      throw RuntimeError("cannot evaluate T.Let at run time");
    PIPESPLIT_KINDS_OUTSIDE_PRIM_EXPR:
      throw RuntimeError("cannot evaluate this symbolic expression");
  }
  PS_UNREACHABLE();
}

double Interpreter::EvalFloat(const ir::PrimExpr& e, const Frame& frame) const {
  if (const auto* f = ir::As<ir::FloatImmNode>(e)) return f->value();
  if (const auto* c = ir::As<ir::CastNode>(e)) return EvalFloat(c->value(), frame);
  if (e->dtype().is_float()) {
    if (const auto* b = ir::As<ir::BinaryNode>(e)) {
      double x = EvalFloat(b->a(), frame), y = EvalFloat(b->b(), frame);
      switch (b->op()) {
        case ir::BinaryOp::kAdd:
          return x + y;
        case ir::BinaryOp::kSub:
          return x - y;
        case ir::BinaryOp::kMul:
          return x * y;
        case ir::BinaryOp::kDiv:
          return x / y;
        case ir::BinaryOp::kMin:
          return std::min(x, y);
        case ir::BinaryOp::kMax:
          return std::max(x, y);
        default:
          break;
      }
    }
  }
  return static_cast<double>(EvalInt(e, frame));
}

void Interpreter::Match(const Value& value, const ir::StructInfo& sinfo, Frame& frame,
                        const std::string& what) const {
  BindBare(*this, value, sinfo, frame);
  Check(*this, value, sinfo, frame, what);
}

Shape Interpreter::ResolveShape(const ir::TensorSInfoNode& tensor, const Frame& frame) const {
  Shape out;
  if (tensor.shape_var()) {  // the shape the var holds, when bound here
    const Value* held = frame.Find(tensor.shape_var().get());
    if (held != nullptr && held->as_shape() != nullptr) return *held->as_shape();
    return out;
  }
  if (!tensor.shape()) return out;
  for (const ir::PrimExpr& d : *tensor.shape()) {
    out.push_back(AllBound(d, frame) ? EvalInt(d, frame) : -1);
  }
  return out;
}

}  // namespace pipesplit::runtime
