// Lowering: struct info rendered in the classic TVMScript spelling, for the parser's
// diagnostics ("annotated R.Tensor((2, 3), dtype=\"float32\") ...").
#include "pipesplit/ir/prim_text.h"
#include "src/script/parser_lower.h"

namespace pipesplit::script {
namespace {

std::string Dims(const std::vector<ir::PrimExpr>& dims, bool tuple) {
  std::string out = tuple ? "(" : "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ", ";
    out += ir::ToString(dims[i]);
  }
  if (tuple && dims.size() == 1) out += ",";
  return out + (tuple ? ")" : "]");
}

}  // namespace

std::string RenderStructInfo(const ir::StructInfo& sinfo) {
  switch (sinfo->kind()) {
    case ir::NodeKind::kObjectSInfo:
      return "R.Object";
    case ir::NodeKind::kPrimSInfo: {
      const auto* n = static_cast<const ir::PrimSInfoNode*>(sinfo.get());
      if (n->value()) return "R.Prim(value=" + ir::ToString(n->value()) + ")";
      return "R.Prim(\"" + n->dtype().ToString() + "\")";
    }
    case ir::NodeKind::kShapeSInfo: {
      const auto* n = static_cast<const ir::ShapeSInfoNode*>(sinfo.get());
      if (n->values()) return "R.Shape(" + Dims(*n->values(), false) + ")";
      if (n->ndim() == -1) return "R.Shape";
      return "R.Shape(ndim=" + std::to_string(n->ndim()) + ")";
    }
    case ir::NodeKind::kTensorSInfo: {
      const auto* n = static_cast<const ir::TensorSInfoNode*>(sinfo.get());
      std::vector<std::string> args;
      if (n->shape()) args.push_back(Dims(*n->shape(), true));
      if (!n->dtype().is_void()) args.push_back("dtype=\"" + n->dtype().ToString() + "\"");
      if (!n->shape() && n->ndim() != -1) args.push_back("ndim=" + std::to_string(n->ndim()));
      if (!n->vdevice().empty()) args.push_back("vdevice=\"" + n->vdevice() + "\"");
      if (args.empty()) return "R.Tensor";
      std::string out = "R.Tensor(";
      for (size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + args[i];
      return out + ")";
    }
    case ir::NodeKind::kTupleSInfo: {
      const auto* n = static_cast<const ir::TupleSInfoNode*>(sinfo.get());
      if (n->fields().empty()) return "R.Tuple";
      std::string out = "R.Tuple(";
      for (size_t i = 0; i < n->fields().size(); ++i) {
        out += (i ? ", " : "") + RenderStructInfo(n->fields()[i]);
      }
      return out + ")";
    }
    case ir::NodeKind::kFuncSInfo: {
      const auto* n = static_cast<const ir::FuncSInfoNode*>(sinfo.get());
      if (!n->params()) return "R.Callable";
      std::string out = "R.Callable((";
      for (size_t i = 0; i < n->params()->size(); ++i) {
        out += (i ? ", " : "") + RenderStructInfo((*n->params())[i]);
      }
      if (n->params()->size() == 1) out += ",";
      return out + "), " + RenderStructInfo(n->ret()) + ", " + (n->is_pure() ? "True" : "False") +
             ")";
    }
    default:
      return "?";
  }
}

}  // namespace pipesplit::script
