// TIR construction helpers.
#include "pipesplit/ir/tir.h"

namespace pipesplit::ir {

Buffer MakeBuffer(std::string name, DataType dtype, std::vector<PrimExpr> shape, std::string scope,
                  Span span) {
  TirVar data = std::make_shared<const TirVarNode>(name, DataType::Handle(), false, span);
  return std::make_shared<const BufferNode>(std::move(name), std::move(data), dtype,
                                            std::move(shape), std::move(scope), span);
}

Stmt MakeSeq(std::vector<Stmt> stmts, Span span) {
  if (stmts.empty())
    return std::make_shared<const EvaluateNode>(IntImm(0, DataType::Int(32)), span);
  if (stmts.size() == 1) return std::move(stmts[0]);
  return std::make_shared<const SeqStmtNode>(std::move(stmts), span);
}

}  // namespace pipesplit::ir
