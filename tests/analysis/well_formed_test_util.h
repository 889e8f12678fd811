// Shared helpers of the hand-built well-formedness tests.
#ifndef PIPESPLIT_TESTS_ANALYSIS_WELL_FORMED_TEST_UTIL_H_
#define PIPESPLIT_TESTS_ANALYSIS_WELL_FORMED_TEST_UTIL_H_

#include <string>
#include <vector>

#include "pipesplit/analysis/well_formed.h"
#include "pipesplit/ir/tir.h"
#include "tests/analysis/test_ir.h"

namespace pipesplit::analysis::testing {

// "file:line:col: message [note file:line:col: message]..." for each diagnostic.
inline std::vector<std::string> Check(const IRModule& mod) {
  std::vector<std::string> out;
  for (const Diagnostic& d : CheckWellFormed(mod)) {
    std::string line = Where(d.span) + ": " + d.message;
    for (const Note& n : d.notes) line += " [note " + Where(n.span) + ": " + n.message + "]";
    out.push_back(line);
  }
  return out;
}

// A TIR buffer (float32 unless given).
inline Buffer Buf(std::string name, std::vector<PrimExpr> shape,
                  DataType dtype = DataType::Float(32), Span span = {}) {
  return MakeBuffer(std::move(name), dtype, std::move(shape), "global", span);
}

// @T.prim_func def name(<one T.Buffer parameter per buffer>): body
inline PrimFunc Kernel(std::string name, const std::vector<Buffer>& buffers, Stmt body,
                       Span span = {}) {
  PrimFuncNode::Fields f;
  f.name = std::move(name);
  for (const Buffer& buffer : buffers) {
    TirVar param = MakeTirVar(buffer->name(), DataType::Handle());
    f.params.push_back(param);
    f.buffer_map.emplace_back(param, buffer);
  }
  f.body = std::move(body);
  return ir::Make<PrimFuncNode>(std::move(f), span);
}

inline IRModule Main(const Expr& func) { return Module({{"main", func}}); }

inline StructInfo Callable(std::vector<StructInfo> params, StructInfo ret, bool pure = true) {
  return ir::Make<FuncSInfoNode>(std::move(params), std::move(ret), pure);
}

inline Expr Str(const std::string& s) { return ir::Make<StringImmNode>(s); }
inline Expr Print(Expr value, Span span = {}) {
  return CallWith(GetOp("relax.print"), {Str(""), std::move(value)}, VoidSInfo(), {}, {}, span);
}

}  // namespace pipesplit::analysis::testing

#endif  // PIPESPLIT_TESTS_ANALYSIS_WELL_FORMED_TEST_UTIL_H_
