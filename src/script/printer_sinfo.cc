// Printer: struct info (R.Tensor, R.Shape, R.Tuple, R.Object / R.Any, R.Prim / T.int64,
// R.Callable) and binding annotations, hidden for R.call_tir / R.call_dps_packed when the
// var's struct info is exactly the declared output (TVM's StructInfoAsAnn).
#include <deque>
#include <string>
#include <utility>

#include "pipesplit/ir/arith.h"
#include "src/script/printer_internal.h"

namespace pipesplit::script::printer {
namespace {

using ir::NodeKind;
using ir::PrimExpr;
using ir::StructInfo;

// The quoted spelling of a dtype ("float16" with its quotes), made once per distinct dtype (a
// module has a handful; tensor types print one per binding).
const std::string& QuotedDType(DataType dtype) {
  thread_local std::deque<std::pair<DataType, std::string>> spelled;
  for (const auto& [known, text] : spelled) {
    if (known == dtype) return text;
  }
  return spelled.emplace_back(dtype, QuoteString(dtype.ToString())).second;
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
      // Appended to one string (no per-argument temporaries): a tensor type is printed for
      // almost every binding.
      std::string out = "R.Tensor(";
      bool first = true;
      auto next_arg = [&] {
        if (!first) out += ", ";
        first = false;
      };
      if (n->shape_var()) {
        next_arg();
        // A var not yet named (one-line text, or a use outside its scope) prints its hint.
        const ir::VarNode& var = *n->shape_var();
        const std::string* name = NameOf(&var);
        out += name != nullptr ? *name : SanitizeName(var.name_hint());
      } else if (n->shape()) {
        next_arg();
        const std::vector<PrimExpr>& dims = *n->shape();
        out += '(';
        for (size_t i = 0; i < dims.size(); ++i) {
          if (i > 0) out += ", ";
          out += Dim(dims[i]);
        }
        out += dims.size() == 1 ? ",)" : ")";
      }
      if (!n->dtype().is_void()) {
        next_arg();
        out += "dtype=";
        out += QuotedDType(n->dtype());
      }
      if (!n->shape() && !n->shape_var() && n->ndim() != -1) {
        next_arg();
        out += "ndim=";
        out += std::to_string(n->ndim());
      }
      if (!n->vdevice().empty()) {
        next_arg();
        out += "vdevice=";
        out += QuoteString(n->vdevice());
      }
      if (first) return "R.Tensor";
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
    PIPESPLIT_KINDS_OUTSIDE_STRUCT_INFO:
      return "R.Object";
  }
  PS_UNREACHABLE();
}

std::optional<std::string> Printer::Annotation(const ir::VarNode& var, const ir::Expr& rhs) {
  if (!var.struct_info()) return std::nullopt;
  if (const auto* call = ir::As<ir::CallNode>(rhs)) {
    if ((call->IsOp("relax.call_tir") || call->IsOp("relax.call_dps_packed")) &&
        call->sinfo_args().size() == 1 &&
        ir::StructInfoEqual(call->sinfo_args()[0], var.struct_info())) {
      return std::nullopt;
    }
  }
  return SInfo(var.struct_info());
}

}  // namespace pipesplit::script::printer
