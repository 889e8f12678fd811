// Short one-line renderings of IR fragments for diagnostics and structural-difference reports
// (classic TVMScript spelling, truncated). Not the printer: nested functions and blocks are
// summarized, and long output is cut with "...".
#ifndef PIPESPLIT_SRC_ANALYSIS_RENDER_H_
#define PIPESPLIT_SRC_ANALYSIS_RENDER_H_

#include <string>

#include "pipesplit/ir/attrs.h"
#include "pipesplit/ir/expr.h"

namespace pipesplit::analysis {

// Longest rendering before truncation ("..." is appended).
inline constexpr size_t kMaxRenderLength = 160;

std::string RenderExpr(const ir::Expr& expr);
std::string RenderStructInfo(const ir::StructInfo& sinfo);
std::string RenderPrimExpr(const ir::PrimExpr& expr);
std::string RenderAttrValue(const ir::AttrValue& value);
std::string RenderBinding(const ir::Binding& binding);
std::string RenderBlock(const ir::BindingBlock& block);

// How a call's callee is named in messages: "R.add", "cls.f", "R.call_packed(\"sym\")", "f".
std::string RenderCallee(const ir::Expr& callee);

}  // namespace pipesplit::analysis

#endif  // PIPESPLIT_SRC_ANALYSIS_RENDER_H_
