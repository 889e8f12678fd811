// Printer: struct info (R.Tensor, R.Shape, R.Tuple, R.Object / R.Any, R.Prim / T.int64,
// R.Callable) and binding annotations, hidden for R.call_tir / R.call_dps_packed when the
// var's struct info is exactly the declared output (TVM's StructInfoAsAnn).
#include "pipesplit/ir/arith.h"
#include "src/script/printer_internal.h"

namespace pipesplit::script::printer {
namespace {

using ir::NodeKind;
using ir::PrimExpr;
using ir::StructInfo;

// Equality of dims lists: ir::ExprDeepEqual per dim, symbolic vars by identity (TVM's
// StructuralEqual on struct info, whose symbolic vars are free).
bool PrimsEqual(const std::optional<std::vector<PrimExpr>>& a,
                const std::optional<std::vector<PrimExpr>>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  if (a->size() != b->size()) return false;
  for (size_t i = 0; i < a->size(); ++i) {
    if (!ir::ExprDeepEqual((*a)[i], (*b)[i])) return false;
  }
  return true;
}

bool SInfoEqual(const StructInfo& a, const StructInfo& b) {
  if (a == b) return true;
  if (!a || !b || a->kind() != b->kind()) return false;
  switch (a->kind()) {
    case NodeKind::kObjectSInfo:
      return true;
    case NodeKind::kPrimSInfo: {
      const auto* x = ir::As<ir::PrimSInfoNode>(a);
      const auto* y = ir::As<ir::PrimSInfoNode>(b);
      if (!(x->dtype() == y->dtype())) return false;
      if (!x->value() || !y->value()) return !x->value() && !y->value();
      return ir::ExprDeepEqual(x->value(), y->value());
    }
    case NodeKind::kShapeSInfo: {
      const auto* x = ir::As<ir::ShapeSInfoNode>(a);
      const auto* y = ir::As<ir::ShapeSInfoNode>(b);
      return x->ndim() == y->ndim() && PrimsEqual(x->values(), y->values());
    }
    case NodeKind::kTensorSInfo: {
      const auto* x = ir::As<ir::TensorSInfoNode>(a);
      const auto* y = ir::As<ir::TensorSInfoNode>(b);
      return x->dtype() == y->dtype() && x->ndim() == y->ndim() && x->vdevice() == y->vdevice() &&
             PrimsEqual(x->shape(), y->shape());
    }
    case NodeKind::kTupleSInfo: {
      const auto& x = ir::As<ir::TupleSInfoNode>(a)->fields();
      const auto& y = ir::As<ir::TupleSInfoNode>(b)->fields();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (!SInfoEqual(x[i], y[i])) return false;
      }
      return true;
    }
    case NodeKind::kFuncSInfo: {
      const auto* x = ir::As<ir::FuncSInfoNode>(a);
      const auto* y = ir::As<ir::FuncSInfoNode>(b);
      if (x->is_pure() != y->is_pure() || x->params().has_value() != y->params().has_value()) {
        return false;
      }
      if (x->params()) {
        if (x->params()->size() != y->params()->size()) return false;
        for (size_t i = 0; i < x->params()->size(); ++i) {
          if (!SInfoEqual((*x->params())[i], (*y->params())[i])) return false;
        }
      }
      return SInfoEqual(x->ret(), y->ret());
    }
    PIPESPLIT_PRIM_EXPR_KINDS:
    PIPESPLIT_EXPR_KINDS:
    PIPESPLIT_BINDING_KINDS:
    PIPESPLIT_TIR_KINDS:
      return false;
  }
  PS_UNREACHABLE();
}

}  // namespace

std::string Printer::Tuple(const std::vector<std::string>& fields) {
  if (fields.size() == 1) return "(" + fields[0] + ",)";
  std::string out = "(";
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ", ";
    out += fields[i];
  }
  out += ')';
  return out;
}

std::string Printer::Dim(const PrimExpr& expr) { return expr ? ShapeDim(expr) : "<null>"; }

std::string Printer::SInfo(const StructInfo& sinfo) {
  if (!sinfo) return config_.one_line ? "<none>" : "R.Object";
  Nest nest(this);
  if (nest.too_deep()) return "...";
  switch (sinfo->kind()) {
    case NodeKind::kObjectSInfo:
      usage_ |= kUseRelax;
      return current() ? "R.Any" : "R.Object";
    case NodeKind::kPrimSInfo: {
      const auto* n = ir::As<ir::PrimSInfoNode>(sinfo);
      if (current()) {
        // The current syntax has no R.Prim(value=...): the type is the dtype.
        usage_ |= kUseTir;
        return "T." + n->dtype().ToString();
      }
      usage_ |= kUseRelax;
      if (n->value()) return "R.Prim(value=" + Dim(n->value()) + ")";
      return "R.Prim(" + QuoteString(n->dtype().ToString()) + ")";
    }
    case NodeKind::kShapeSInfo: {
      const auto* n = ir::As<ir::ShapeSInfoNode>(sinfo);
      usage_ |= kUseRelax;
      if (!n->values()) {
        // One line: the unknown ndim left out, as R.Tensor leaves it out.
        if (config_.one_line && n->ndim() == -1) return "R.Shape";
        return "R.Shape(ndim=" + std::to_string(n->ndim()) + ")";
      }
      std::string out = "R.Shape([";
      for (size_t i = 0; i < n->values()->size(); ++i) {
        if (i > 0) out += ", ";
        out += Dim((*n->values())[i]);
      }
      out += "])";
      return out;
    }
    case NodeKind::kTensorSInfo: {
      const auto* n = ir::As<ir::TensorSInfoNode>(sinfo);
      usage_ |= kUseRelax;
      std::vector<std::string> args;
      if (n->shape()) {
        std::vector<std::string> dims;
        dims.reserve(n->shape()->size());
        for (const PrimExpr& d : *n->shape()) dims.push_back(Dim(d));
        args.push_back(Tuple(dims));
      }
      if (!n->dtype().is_void()) args.push_back("dtype=" + QuoteString(n->dtype().ToString()));
      if (!n->shape() && n->ndim() != -1) args.push_back("ndim=" + std::to_string(n->ndim()));
      if (!n->vdevice().empty()) args.push_back("vdevice=" + QuoteString(n->vdevice()));
      if (args.empty()) return "R.Tensor";
      std::string out = "R.Tensor(";
      for (size_t i = 0; i < args.size(); ++i) {
        if (i > 0) out += ", ";
        out += args[i];
      }
      out += ')';
      return out;
    }
    case NodeKind::kTupleSInfo: {
      const auto* n = ir::As<ir::TupleSInfoNode>(sinfo);
      usage_ |= kUseRelax;
      if (n->fields().empty()) return "R.Tuple";
      std::string out = "R.Tuple(";
      for (size_t i = 0; i < n->fields().size(); ++i) {
        if (i > 0) out += ", ";
        out += SInfo(n->fields()[i]);
      }
      out += ')';
      return out;
    }
    case NodeKind::kFuncSInfo: {
      const auto* n = ir::As<ir::FuncSInfoNode>(sinfo);
      // TVM prints the return first, then the params.
      std::string ret = SInfo(n->ret());
      std::string purity = n->is_pure() ? "True" : "False";
      usage_ |= kUseRelax;
      if (!n->params()) {
        std::vector<std::string> kwargs;
        if (!ir::Is<ir::ObjectSInfoNode>(n->ret())) kwargs.push_back("ret=" + ret);
        if (n->is_pure()) kwargs.push_back("purity=" + purity);
        if (kwargs.empty()) return "R.Callable";
        std::string out = "R.Callable(";
        for (size_t i = 0; i < kwargs.size(); ++i) {
          if (i > 0) out += ", ";
          out += kwargs[i];
        }
        out += ')';
        return out;
      }
      std::vector<std::string> params;
      for (const StructInfo& p : *n->params()) params.push_back(SInfo(p));
      return "R.Callable(" + Tuple(params) + ", " + ret + ", " + purity + ")";
    }
    PIPESPLIT_PRIM_EXPR_KINDS:
    PIPESPLIT_EXPR_KINDS:
    PIPESPLIT_BINDING_KINDS:
    PIPESPLIT_TIR_KINDS:
      return "R.Object";
  }
  PS_UNREACHABLE();
}

std::optional<std::string> Printer::Annotation(const ir::VarNode& var, const ir::Expr& rhs) {
  if (!var.struct_info()) return std::nullopt;
  if (const auto* call = ir::As<ir::CallNode>(rhs)) {
    if ((call->IsOp("relax.call_tir") || call->IsOp("relax.call_dps_packed")) &&
        call->sinfo_args().size() == 1 && SInfoEqual(call->sinfo_args()[0], var.struct_info())) {
      return std::nullopt;
    }
  }
  return SInfo(var.struct_info());
}

}  // namespace pipesplit::script::printer
