// Small builders for hand-made Relax IR in the printer tests.
#ifndef PIPESPLIT_TESTS_SCRIPT_PRINTER_PRINTER_TEST_UTIL_H_
#define PIPESPLIT_TESTS_SCRIPT_PRINTER_PRINTER_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "pipesplit/ir/expr.h"
#include "pipesplit/ir/module.h"
#include "pipesplit/ir/op.h"
#include "pipesplit/ir/prim_expr.h"
#include "pipesplit/ir/struct_info.h"

namespace pipesplit::script::testing {

using namespace ir;  // NOLINT: test shorthand

inline DataType Dt(const char* name) { return *DataType::Parse(name); }

inline StructInfo Tensor(std::vector<PrimExpr> shape, const char* dtype = "float32") {
  return TensorSInfo(std::move(shape), Dt(dtype));
}
inline StructInfo TensorNdim(int ndim, const char* dtype = "float32") {
  return ir::Make<TensorSInfoNode>(Dt(dtype), ndim);
}
inline StructInfo Shape(std::vector<PrimExpr> values) {
  return ir::Make<ShapeSInfoNode>(std::move(values));
}
inline StructInfo Prim(const char* dtype, PrimExpr value = nullptr) {
  return ir::Make<PrimSInfoNode>(Dt(dtype), std::move(value));
}
inline StructInfo Callable(std::vector<StructInfo> params, StructInfo ret, bool pure) {
  return ir::Make<FuncSInfoNode>(std::move(params), std::move(ret), pure);
}

inline PrimExpr I(int64_t v) { return IntImm(v); }
inline PrimExpr Bin(BinaryOp op, PrimExpr a, PrimExpr b) {
  return MakeBinary(op, std::move(a), std::move(b));
}

inline Var DfVar(std::string name, StructInfo sinfo) {
  return MakeVar(std::move(name), std::move(sinfo), /*is_dataflow=*/true);
}

// A call with its result struct info given (no inference needed).
inline Expr OpCall(const char* op, std::vector<Expr> args, StructInfo sinfo, AttrMap attrs = {},
                   std::vector<StructInfo> sinfo_args = {}) {
  return ir::Make<CallNode>(GetOp(op), std::move(args), std::move(attrs), std::move(sinfo_args),
                            std::move(sinfo));
}
inline Expr CallExpr(Expr callee, std::vector<Expr> args, StructInfo sinfo,
                     std::vector<StructInfo> sinfo_args = {}) {
  return ir::Make<CallNode>(std::move(callee), std::move(args), AttrMap{}, std::move(sinfo_args),
                            std::move(sinfo));
}
inline Expr Extern(std::string symbol) { return ir::Make<ExternFuncNode>(std::move(symbol)); }
inline Expr TupleOf(std::vector<Expr> fields) {
  std::vector<StructInfo> sinfos;
  for (const Expr& f : fields) sinfos.push_back(f->struct_info());
  return ir::Make<TupleNode>(std::move(fields), TupleSInfo(std::move(sinfos)));
}
inline Expr GetItem(Expr tuple, int i) {
  const auto* t = As<TupleSInfoNode>(tuple->struct_info());
  StructInfo s = t != nullptr ? t->fields()[static_cast<size_t>(i)] : ObjectSInfo();
  return ir::Make<TupleGetItemNode>(std::move(tuple), i, s);
}
inline Expr ShapeOf(std::vector<PrimExpr> values) {
  return ir::Make<ShapeExprNode>(std::move(values));
}
inline Expr PrimVal(PrimExpr value) { return ir::Make<PrimValueNode>(std::move(value)); }
inline Expr Str(std::string value) { return ir::Make<StringImmNode>(value); }

inline Binding Bind(Var var, Expr value) {
  return ir::Make<VarBindingNode>(std::move(var), std::move(value));
}
inline Binding Cast(Var var, Expr value, StructInfo sinfo) {
  return ir::Make<MatchCastNode>(std::move(var), std::move(value), std::move(sinfo));
}
inline BindingBlock Block(std::vector<Binding> bindings, bool dataflow = false) {
  return ir::Make<BindingBlockNode>(std::move(bindings), dataflow);
}
inline Expr Seq(std::vector<BindingBlock> blocks, Expr body) {
  StructInfo s = body->struct_info();
  return ir::Make<SeqExprNode>(std::move(blocks), std::move(body), s);
}
inline Function Func(std::vector<Var> params, Expr body, StructInfo ret, AttrMap attrs = {},
                     bool pure = true) {
  return ir::Make<FunctionNode>(std::move(params), std::move(body), std::move(ret), pure,
                                std::move(attrs));
}

// Adds a Relax function under `name` with global_symbol = name (a public function).
inline GlobalVar AddPublic(IRModule* mod, const std::string& name, const Function& f) {
  AttrMap attrs = WithAttr(f->attrs(), "global_symbol", name);
  Function g = Func(f->params(), f->body(), f->ret_struct_info(), attrs, f->is_pure());
  auto gv = ir::Make<GlobalVarNode>(name, g->struct_info());
  mod->Add(gv, g);
  return gv;
}
inline GlobalVar AddMember(IRModule* mod, const std::string& name, Expr func) {
  auto gv = ir::Make<GlobalVarNode>(name, func->struct_info());
  mod->Add(gv, std::move(func));
  return gv;
}

}  // namespace pipesplit::script::testing

#endif  // PIPESPLIT_TESTS_SCRIPT_PRINTER_PRINTER_TEST_UTIL_H_
