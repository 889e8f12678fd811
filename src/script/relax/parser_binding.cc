// Lowering: assignments and bindings. What a binding's var gets follows TVM's parser: a call
// annotated in the source takes the annotation as its struct info (TVM does not infer
// annotated calls), any other value keeps its inferred struct info and the annotation is only
// checked (an annotation that can never describe the value is an error); symbolic declarations,
// module references and other Python values are aliases, not bindings. Nested non-leaf arguments
// are bound to fresh "lv"/"gv" vars as TVM's BlockBuilder names them.
#include <unordered_set>

#include "pipesplit/support/diagnostic.h"
#include "src/script/relax/parser_lower.h"

namespace pipesplit::script {
namespace {

// The display name of a call's callee when its result type cannot be inferred without an
// annotation (an op missing from the table or without an inference rule); empty otherwise.
std::string OpaqueCalleeName(const ir::CallNode& call) {
  const ir::OpNode* op = call.op_node();
  if (op == nullptr || (op->info() != nullptr && op->info()->infer)) return {};
  return op->script_name();
}

}  // namespace

bool IsLeafOrTuple(const ir::Expr& e) {
  switch (e->kind()) {
    case ir::NodeKind::kVar:
    case ir::NodeKind::kDataflowVar:
    case ir::NodeKind::kGlobalVar:
    case ir::NodeKind::kConstant:
    case ir::NodeKind::kShapeExpr:
    case ir::NodeKind::kPrimValue:
    case ir::NodeKind::kStringImm:
    case ir::NodeKind::kDataTypeImm:
    case ir::NodeKind::kOp:
    case ir::NodeKind::kExternFunc:
    case ir::NodeKind::kPrimFunc:
    case ir::NodeKind::kTuple:
      return true;
    case ir::NodeKind::kTupleGetItem:
    case ir::NodeKind::kCall:
    case ir::NodeKind::kIf:
    case ir::NodeKind::kSeqExpr:
    case ir::NodeKind::kFunction:
    PIPESPLIT_KINDS_OUTSIDE_EXPR:
      return false;
  }
  PS_UNREACHABLE();
}

// ---- Normalization ----

ir::Expr Lowerer::NormalizeValue(const ir::Expr& expr) {
  if (expr->struct_info()) return expr;
  if (const auto* call = ir::As<ir::CallNode>(expr)) {
    std::string opaque = OpaqueCalleeName(*call);
    if (!opaque.empty()) {
      Error(call->span(), "op " + opaque + " needs an annotation: its result type is unknown");
    }
  }
  if (fn_ == nullptr) Error(expr->span(), "relax expressions are only allowed inside a function");
  return fn_->bb.Normalize(expr);
}

ir::Expr Lowerer::NormalizeArg(const ir::Expr& expr) {
  ir::Expr e = NormalizeValue(expr);
  if (IsLeafOrTuple(e)) return e;
  if (!fn_->bb.in_block()) {
    Error(e->span(), "a relax computation is only allowed in a function body");
  }
  return EmitFresh(e);
}

ir::Var Lowerer::EmitFresh(const ir::Expr& value) {
  bool dataflow = fn_->bb.in_dataflow_block();
  std::string name = fn_->FreshName(dataflow);
  ir::Var var = ir::MakeVar(name, value->struct_info(), dataflow, value->span());
  fn_->bb.EmitNormalized(ir::Make<ir::VarBindingNode>(var, value, value->span()));
  if (dataflow) fn_->dataflow_emitted.insert(var.get());
  return var;
}

// ---- Assignments ----

void Lowerer::LowerAssign(const PyStmt* stmt) {
  if (stmt->kind == PyStmtKind::kAnnAssign && stmt->value == nullptr) {
    Error(SpanOf(stmt->begin, stmt->end), "an annotated name needs a value");
  }
  // TVM evaluates the right-hand side before the annotation.
  const PyExpr* saved_annotated = annotated_value_;
  annotated_value_ = stmt->annotation != nullptr ? stmt->value : nullptr;
  Value value = Eval(stmt->value);
  annotated_value_ = saved_annotated;
  ir::StructInfo annotation;
  if (stmt->annotation != nullptr) annotation = EvalSInfo(stmt->annotation, false);
  BindTarget(stmt->target, value, stmt->annotation, annotation, SpanOf(stmt->begin, stmt->end));
}

void Lowerer::BindTarget(const PyExpr* target, const Value& value, const PyExpr* annotation_node,
                         const ir::StructInfo& annotation, Span stmt_span) {
  if (target->kind == PyExprKind::kTuple || target->kind == PyExprKind::kList) {
    if (annotation) Error(annotation_node, "a tuple target cannot be annotated");
    std::unordered_set<std::string_view> seen;
    for (const PyExpr* t : target->items) {
      if (t->kind == PyExprKind::kName && !seen.insert(t->text).second) {
        Error(t, "duplicate target '" + std::string(t->text) + "' in an assignment");
      }
    }
    size_t n = target->items.size();
    if (value.kind == Value::Kind::kTuple || value.kind == Value::Kind::kList) {
      if (value.items.size() != n) {
        Error(target, "cannot unpack " + std::to_string(value.items.size()) + " values into " +
                          std::to_string(n) + " targets");
      }
      for (size_t i = 0; i < n; ++i) {
        BindTarget(target->items[i], value.items[i], nullptr, nullptr, stmt_span);
      }
      return;
    }
    if (value.kind != Value::Kind::kExpr) {
      Error(target, std::string("cannot unpack ") + ValueKindName(value.kind));
    }
    // A Relax tuple: each target binds one field (TVM unpacks through TupleGetItem).
    ir::Expr tuple = NormalizeArg(value.expr);
    const auto* sinfo = ir::As<ir::TupleSInfoNode>(tuple->struct_info());
    if (sinfo == nullptr) {
      Error(value.node ? value.node : target,
            "cannot unpack a value of struct info " + RenderStructInfo(tuple->struct_info()));
    }
    if (sinfo->fields().size() != n) {
      Error(target, "cannot unpack a tuple of " + std::to_string(sinfo->fields().size()) +
                        " fields into " + std::to_string(n) + " targets");
    }
    for (size_t i = 0; i < n; ++i) {
      Value item;
      item.kind = Value::Kind::kExpr;
      item.node = value.node;
      if (const auto* literal = ir::As<ir::TupleNode>(tuple)) {
        item.expr = literal->fields()[i];
      } else {
        item.expr = NormalizeValue(ir::Make<ir::TupleGetItemNode>(
            tuple, static_cast<int>(i), nullptr, SpanOf(target->items[i])));
      }
      BindTarget(target->items[i], item, nullptr, nullptr, stmt_span);
    }
    return;
  }
  if (target->kind != PyExprKind::kName) {
    Error(target, "only names and tuples of names can be assigned to");
  }
  std::string_view name = target->text;
  Span name_span = SpanOf(target);
  switch (value.kind) {
    case Value::Kind::kSymDecl:
      if (annotation) Error(annotation_node, "a symbolic variable declaration cannot be annotated");
      BindSymbolicDecl(target, value);
      return;
    case Value::Kind::kMatchCast:
      EmitMatchCast(name, name_span, value, annotation, annotation_node, stmt_span);
      return;
    case Value::Kind::kPrim:
      // Classic syntax: a symbolic expression is a Python value, not a binding. The current
      // syntax binds it (as a prim value), and so does a prim-typed annotation.
      if (!current_syntax_ && !annotation) {
        Value alias = value;
        alias.node = nullptr;
        symbols_.Define(name, alias);
        return;
      }
      break;
    case Value::Kind::kModule:
    case Value::Kind::kStr:
    case Value::Kind::kNone:
    case Value::Kind::kSInfo:
    case Value::Kind::kDict:
    case Value::Kind::kAttr:
    case Value::Kind::kTypeVar: {
      Value alias = value;
      alias.node = nullptr;
      symbols_.Define(name, alias);
      return;
    }
    default:
      break;
  }
  if (fn_ == nullptr) Error(target, "bindings are only allowed inside a function");
  EmitBinding(name, name_span, value, annotation, annotation_node, stmt_span);
}

void Lowerer::BindSymbolicDecl(const PyExpr* target, const Value& value) {
  std::string name(target->text);
  if (!value.s.empty() && value.s != name) {
    Error(target, "symbolic variable '" + value.s + "' must be assigned to a name '" + value.s +
                      "', not '" + name + "'");
  }
  const Value* prev = symbols_.Lookup(name);
  // A module-level TypeVar the signature did not name: the body declares a var of its own
  // (TVM prints a var first seen in the body there, whatever TypeVar shares its name).
  if (prev != nullptr && prev->kind == Value::Kind::kTypeVar) prev = nullptr;
  if (prev != nullptr) {
    // A symbolic var, or (current syntax) a Relax var of prim type that is one.
    ir::PrimExpr prim = prev->kind == Value::Kind::kPrim ? prev->prim : PrimOfVar(*prev);
    const auto* var = ir::As<ir::TirVarNode>(prim);
    if (var == nullptr) {
      Error(target, "cannot redefine '" + name + "' as a symbolic variable");
    }
    if (var->dtype() != value.dtype) {
      Error(target, "symbolic variable '" + name + "' was declared as " + var->dtype().ToString() +
                        ", not " + value.dtype.ToString());
    }
    if (var->is_size_var() != value.is_size_var) {
      Error(target, "symbolic variable '" + name + "' was declared " +
                        (var->is_size_var() ? "with" : "without") + " is_size_var=True");
    }
    return;  // the declaration of a var the signature already defines
  }
  auto var = ir::Make<ir::TirVarNode>(name, value.dtype, value.is_size_var, SpanOf(target));
  Value v;
  v.kind = Value::Kind::kPrim;
  v.prim = var;
  symbols_.Define(name, v);
  if (fn_ != nullptr) fn_->bb.DefineTirVar(var);
}

ir::Var Lowerer::EmitBinding(std::string_view name, Span name_span, const Value& value,
                             const ir::StructInfo& annotation, const PyExpr* annotation_node,
                             Span stmt_span) {
  const PyExpr* node = value.node != nullptr ? value.node : annotation_node;
  ir::Expr expr;
  bool prim_annotation = annotation && annotation->kind() == ir::NodeKind::kPrimSInfo;
  switch (value.kind) {
    case Value::Kind::kInt:
    case Value::Kind::kFloat:
    case Value::Kind::kBool: {
      if (prim_annotation) {
        // x: T.int64 = 1 binds a prim value of the annotated dtype.
        DataType dtype = static_cast<const ir::PrimSInfoNode*>(annotation.get())->dtype();
        ir::PrimExpr p =
            value.kind == Value::Kind::kFloat
                ? ir::PrimExpr(ir::Make<ir::FloatImmNode>(dtype, value.f, SpanOf(node)))
                : MakeIntImm(value.kind == Value::Kind::kInt ? value.i : value.b, dtype, node);
        expr = ir::Make<ir::PrimValueNode>(p, SpanOf(node));
      } else {
        // TVM binds a bare number as R.const (int32 / float32 / bool).
        if (value.kind == Value::Kind::kInt) {
          MakeIntImm(value.i, DataType::Int(32), node);
          expr = ir::Make<ir::ConstantNode>(value.i, DataType::Int(32), SpanOf(node));
        } else if (value.kind == Value::Kind::kFloat) {
          expr = ir::Make<ir::ConstantNode>(value.f, DataType::Float(32), SpanOf(node));
        } else {
          expr = ir::Make<ir::ConstantNode>(value.b, DataType::Bool(), SpanOf(node));
        }
      }
      break;
    }
    default:
      expr = ToExpr(value, node);
      break;
  }
  const auto* call = ir::As<ir::CallNode>(expr);
  if (call != nullptr && !call->struct_info() && annotation) {
    // TVM gives an annotated call the annotation as its struct info without inferring it
    // (a wrong annotation is left to the well-formedness check).
    ir::SetStructInfoOnce(*call, annotation);
  } else {
    expr = NormalizeValue(expr);
    if (annotation && StaticallyIncompatible(annotation, expr->struct_info())) {
      Error(annotation_node, "annotation " + RenderStructInfo(annotation) +
                                 " does not match the value's " +
                                 RenderStructInfo(expr->struct_info()));
    }
  }
  ir::Var var = EmitVar(name, name_span, expr, expr->struct_info(), nullptr, stmt_span);
  const auto* fields = ir::As<ir::TupleSInfoNode>(var->struct_info());
  if (!var->is_dataflow() && fields != nullptr && fields->fields().empty()) {
    // A binding of nothing stays a statement, and its name stands for R.tuple(): TVM's
    // normalizer replaces every use of a void non-dataflow var by an empty tuple
    // (`y = R.print(...)` or `y: R.Tuple = R.tuple()`, then `return y` prints `return R.tuple()`).
    Value unit;
    unit.kind = Value::Kind::kExpr;
    unit.expr = NormalizeValue(ir::Make<ir::TupleNode>(std::vector<ir::Expr>{}));
    symbols_.Define(name, unit);
  }
  return var;
}

ir::Var Lowerer::EmitMatchCast(std::string_view name, Span name_span, const Value& value,
                               const ir::StructInfo& annotation, const PyExpr* annotation_node,
                               Span stmt_span) {
  if (fn_ == nullptr) Error(name_span, "bindings are only allowed inside a function");
  if (annotation && !ir::StructInfoEqual(annotation, value.sinfo, ir::DimEquality::kProvable)) {
    Error(annotation_node, "annotation " + RenderStructInfo(annotation) +
                               " differs from the R.match_cast target " +
                               RenderStructInfo(value.sinfo));
  }
  ir::Expr expr = NormalizeValue(value.expr);
  return EmitVar(name, name_span, expr, value.sinfo, &value.sinfo, stmt_span);
}

bool Lowerer::IsDataflowBindingName(std::string_view name) const {
  if (!fn_->in_dataflow || !fn_->bb.in_dataflow_block()) return false;
  if (fn_->dataflow_outputs.find(name) == fn_->dataflow_outputs.end()) return true;
  auto it = fn_->dataflow_last_binding.find(name);
  return it == fn_->dataflow_last_binding.end() || it->second != fn_->dataflow_stmt_index;
}

ir::Var Lowerer::EmitVar(std::string_view name, Span name_span, const ir::Expr& value,
                         const ir::StructInfo& sinfo, const ir::StructInfo* match_sinfo,
                         Span stmt_span) {
  bool in_dataflow = fn_->bb.in_dataflow_block();
  fn_->SkipFreshName(in_dataflow);  // TVM names every emitted var first
  bool dataflow = in_dataflow && IsDataflowBindingName(name);
  ir::Var var = ir::MakeVar(std::string(name), sinfo, dataflow, name_span);
  ir::Binding binding;
  if (match_sinfo != nullptr) {
    binding = ir::Make<ir::MatchCastNode>(var, value, *match_sinfo, stmt_span);
  } else {
    binding = ir::Make<ir::VarBindingNode>(var, value, stmt_span);
  }
  fn_->bb.EmitNormalized(binding);
  if (in_dataflow) {
    fn_->dataflow_emitted.insert(var.get());
    if (!dataflow) fn_->dataflow_output_vars.emplace_back(std::string(name), var);
  }
  Value v;
  v.kind = Value::Kind::kExpr;
  v.expr = var;
  symbols_.Define(name, std::move(v));
  return var;
}

}  // namespace pipesplit::script
