// TIR construction helpers.
#include "pipesplit/ir/tir.h"

namespace pipesplit::ir {

Buffer MakeBuffer(std::string name, DataType dtype, std::vector<PrimExpr> shape, std::string scope,
                  Span span, BufferLayout layout) {
  TirVar data = Make<TirVarNode>(name, DataType::Handle(), false, span);
  return Make<BufferNode>(std::move(name), std::move(data), dtype, std::move(shape),
                          std::move(scope), span, std::move(layout));
}

Stmt MakeSeq(std::vector<Stmt> stmts, Span span) {
  if (stmts.empty()) return Make<EvaluateNode>(IntImm(0, DataType::Int(32)), span);
  if (stmts.size() == 1) return std::move(stmts[0]);
  return Make<SeqStmtNode>(std::move(stmts), span);
}

}  // namespace pipesplit::ir
