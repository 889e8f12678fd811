// Printer: struct info (R.Tensor, R.Shape, R.Tuple, R.Object / R.Any, R.Prim / T.int64,
// R.Callable) and binding annotations, hidden for R.call_tir / R.call_dps_packed when the
// var's struct info is exactly the declared output (TVM's StructInfoAsAnn).
#include <deque>
#include <string>
#include <utility>

#include "pipesplit/ir/arith.h"
#include "src/script/printer/printer_internal.h"

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

void Printer::Dim(const PrimExpr& expr, std::string* out) {
  if (expr) {
    ShapeDim(expr, out);
  } else {
    *out += "<null>";
  }
}

void Printer::SInfo(const StructInfo& sinfo, std::string* out) {
  if (!sinfo) {
    *out += config_.one_line ? "<none>" : "R.Object";
    return;
  }
  Nest nest(this);
  if (nest.too_deep()) {
    *out += "...";
    return;
  }
  switch (sinfo->kind()) {
    case NodeKind::kObjectSInfo:
      usage_ |= kUseRelax;
      *out += current() ? "R.Any" : "R.Object";
      return;
    case NodeKind::kPrimSInfo: {
      const auto* n = ir::As<ir::PrimSInfoNode>(sinfo);
      if (current()) {
        // The current syntax has no R.Prim(value=...): the type is the dtype.
        usage_ |= kUseTir;
        *out += "T.";
        *out += n->dtype().ToString();
        return;
      }
      usage_ |= kUseRelax;
      if (n->value()) {
        *out += "R.Prim(value=";
        Dim(n->value(), out);
      } else {
        *out += "R.Prim(";
        *out += QuotedDType(n->dtype());
      }
      *out += ')';
      return;
    }
    case NodeKind::kShapeSInfo: {
      const auto* n = ir::As<ir::ShapeSInfoNode>(sinfo);
      usage_ |= kUseRelax;
      if (!n->values()) {
        // One line: the unknown ndim left out, as R.Tensor leaves it out.
        if (config_.one_line && n->ndim() == -1) {
          *out += "R.Shape";
          return;
        }
        *out += "R.Shape(ndim=";
        AppendInt(n->ndim(), out);
        *out += ')';
        return;
      }
      *out += "R.Shape([";
      for (size_t i = 0; i < n->values()->size(); ++i) {
        if (i > 0) *out += ", ";
        Dim((*n->values())[i], out);
      }
      *out += "])";
      return;
    }
    case NodeKind::kTensorSInfo: {
      const auto* n = ir::As<ir::TensorSInfoNode>(sinfo);
      usage_ |= kUseRelax;
      // A tensor type with integer-literal dims and no shape var prints the same anywhere: its
      // text is kept per node (the parser shares such nodes, so a lowered module renders each
      // once).
      bool context_free = !n->shape_var();
      if (context_free && n->shape()) {
        for (const PrimExpr& d : *n->shape()) {
          const auto* imm = ir::As<ir::IntImmNode>(d);
          context_free &= imm != nullptr && !imm->dtype().is_bool();
        }
      }
      if (context_free) {
        auto it = tensor_text_.find(n);
        if (it != tensor_text_.end()) {
          *out += it->second.second;
          return;
        }
      }
      const size_t start = out->size();
      *out += "R.Tensor(";
      bool first = true;
      auto next_arg = [&] {
        if (!first) *out += ", ";
        first = false;
      };
      if (n->shape_var()) {
        next_arg();
        // A var not yet named (one-line text, or a use outside its scope) prints its hint.
        const ir::VarNode& var = *n->shape_var();
        const std::string* name = NameOf(&var);
        *out += name != nullptr ? *name : SanitizeName(var.name_hint());
      } else if (n->shape()) {
        next_arg();
        const std::vector<PrimExpr>& dims = *n->shape();
        Tuple(dims.size(), out, [&](size_t i) { Dim(dims[i], out); });
      }
      if (!n->dtype().is_void()) {
        next_arg();
        *out += "dtype=";
        *out += QuotedDType(n->dtype());
      }
      if (!n->shape() && !n->shape_var() && n->ndim() != -1) {
        next_arg();
        *out += "ndim=";
        AppendInt(n->ndim(), out);
      }
      if (!n->vdevice().empty()) {
        next_arg();
        *out += "vdevice=";
        *out += QuoteString(n->vdevice());
      }
      if (first) {
        out->pop_back();  // no arguments: "R.Tensor"
      } else {
        *out += ')';
      }
      if (context_free) tensor_text_.emplace(n, std::make_pair(sinfo, out->substr(start)));
      return;
    }
    case NodeKind::kTupleSInfo: {
      const auto* n = ir::As<ir::TupleSInfoNode>(sinfo);
      usage_ |= kUseRelax;
      if (n->fields().empty()) {
        *out += "R.Tuple";
        return;
      }
      *out += "R.Tuple(";
      for (size_t i = 0; i < n->fields().size(); ++i) {
        if (i > 0) *out += ", ";
        SInfo(n->fields()[i], out);
      }
      *out += ')';
      return;
    }
    case NodeKind::kFuncSInfo: {
      const auto* n = ir::As<ir::FuncSInfoNode>(sinfo);
      // TVM prints the return first, then the params.
      std::string ret = SInfo(n->ret());
      const char* purity = n->is_pure() ? "True" : "False";
      usage_ |= kUseRelax;
      if (!n->params()) {
        bool has_ret = !ir::Is<ir::ObjectSInfoNode>(n->ret());
        if (!has_ret && !n->is_pure()) {
          *out += "R.Callable";
          return;
        }
        *out += "R.Callable(";
        if (has_ret) {
          *out += "ret=";
          *out += ret;
        }
        if (n->is_pure()) {
          if (has_ret) *out += ", ";
          *out += "purity=";
          *out += purity;
        }
        *out += ')';
        return;
      }
      *out += "R.Callable(";
      const std::vector<StructInfo>& params = *n->params();
      Tuple(params.size(), out, [&](size_t i) { SInfo(params[i], out); });
      *out += ", ";
      *out += ret;
      *out += ", ";
      *out += purity;
      *out += ')';
      return;
    }
    PIPESPLIT_KINDS_OUTSIDE_STRUCT_INFO:
      *out += "R.Object";
      return;
  }
  PS_UNREACHABLE();
}

bool Printer::Annotation(const ir::VarNode& var, const ir::Expr& rhs, std::string* out) {
  if (!var.struct_info()) return false;
  if (const auto* call = ir::As<ir::CallNode>(rhs)) {
    if ((call->IsOp("relax.call_tir") || call->IsOp("relax.call_dps_packed")) &&
        call->sinfo_args().size() == 1 &&
        ir::StructInfoEqual(call->sinfo_args()[0], var.struct_info())) {
      return false;
    }
  }
  SInfo(var.struct_info(), out);
  return true;
}

}  // namespace pipesplit::script::printer
