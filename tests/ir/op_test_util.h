// Helpers for the op-table tests: typed vars, calls, struct-info inference through BlockBuilder
// and a compact TVMScript-like rendering of the result (dims via ir::ToString).
#ifndef PIPESPLIT_TESTS_IR_OP_TEST_UTIL_H_
#define PIPESPLIT_TESTS_IR_OP_TEST_UTIL_H_

#include <string>
#include <vector>

#include "pipesplit/ir/block_builder.h"
#include "pipesplit/ir/op.h"
#include "pipesplit/ir/prim_text.h"
#include "pipesplit/support/diagnostic.h"
#include "pipesplit/support/source.h"

namespace pipesplit::ir::optest {

// A dim written as an integer or a symbolic expression.
struct Dim {
  Dim(int v) : expr(IntImm(v)) {}      // NOLINT
  Dim(const PrimExpr& e) : expr(e) {}  // NOLINT
  Dim(const TirVar& v) : expr(v) {}    // NOLINT
  PrimExpr expr;
};

inline std::vector<PrimExpr> Dims(std::vector<Dim> dims) {
  std::vector<PrimExpr> out;
  for (const Dim& d : dims) out.push_back(d.expr);
  return out;
}

inline DataType DT(const std::string& name) { return *DataType::Parse(name); }

// A tensor var of known shape; of known rank (ndim >= 0) or unknown rank (-1).
inline Var T(const std::string& name, std::vector<Dim> shape, const std::string& dtype = "float32",
             const std::string& vdevice = "") {
  return MakeVar(name, ir::Make<TensorSInfoNode>(Dims(std::move(shape)), DT(dtype), vdevice));
}
inline Var TN(const std::string& name, int ndim, const std::string& dtype = "float32") {
  return MakeVar(name, ir::Make<TensorSInfoNode>(DT(dtype), ndim));
}
inline Var V(const std::string& name, StructInfo sinfo) { return MakeVar(name, std::move(sinfo)); }

inline Expr Shape(std::vector<Dim> values) {
  return ir::Make<ShapeExprNode>(Dims(std::move(values)));
}
inline Expr Prim(const PrimExpr& value) { return ir::Make<PrimValueNode>(value); }
inline Expr PrimI(int64_t value) { return Prim(IntImm(value)); }
inline Expr Str(const std::string& value) { return ir::Make<StringImmNode>(value); }
inline Expr DTypeImm(const std::string& dtype) { return ir::Make<DataTypeImmNode>(DT(dtype)); }
inline Expr Tup(std::vector<Expr> fields) {
  std::vector<StructInfo> sinfo;
  for (const Expr& f : fields) sinfo.push_back(f->struct_info());
  return ir::Make<TupleNode>(std::move(fields), TupleSInfo(std::move(sinfo)));
}

inline AttrValue Ints(std::vector<int64_t> values) {
  AttrList list;
  for (int64_t v : values) list.emplace_back(v);
  return AttrValue(std::move(list));
}

// The span every test call carries: "op_test.py:1:6" (the R.op(...) of the line below).
inline Span TestSpan() {
  static const SourceFile& file = SourceManager::Global().Add("op_test.py", "lv = R.op(x)\n");
  return Span{file.id(), 5, 12};
}

inline Call C(const std::string& op, std::vector<Expr> args, AttrMap attrs = {},
              std::vector<StructInfo> sinfo_args = {}) {
  std::string name = op.rfind("relax.", 0) == 0 ? op : "relax." + op;
  return ir::Make<CallNode>(GetOp(name), std::move(args), std::move(attrs), std::move(sinfo_args),
                            nullptr, TestSpan());
}

// TVMScript-like rendering (classic syntax; dims with ir::ToString).
inline std::string Render(const StructInfo& s) {
  auto dims = [](const std::vector<PrimExpr>& values) {
    std::string out;
    for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + ToString(values[i]);
    return out;
  };
  switch (s->kind()) {
    case NodeKind::kTensorSInfo: {
      const auto& t = static_cast<const TensorSInfoNode&>(*s);
      std::vector<std::string> parts;
      if (t.shape_var()) parts.push_back(t.shape_var()->name_hint());  // R.Tensor(s, ...)
      if (t.shape()) {
        parts.push_back("(" + dims(*t.shape()) + (t.shape()->size() == 1 ? ",)" : ")"));
      }
      if (!t.dtype().is_void()) parts.push_back("dtype=\"" + t.dtype().ToString() + "\"");
      if (!t.shape() && !t.shape_var() && t.ndim() != -1)
        parts.push_back("ndim=" + std::to_string(t.ndim()));
      if (!t.vdevice().empty()) parts.push_back("vdevice=\"" + t.vdevice() + "\"");
      if (parts.empty()) return "R.Tensor";
      std::string out = "R.Tensor(";
      for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
      return out + ")";
    }
    case NodeKind::kShapeSInfo: {
      const auto& sh = static_cast<const ShapeSInfoNode&>(*s);
      if (sh.values()) return "R.Shape([" + dims(*sh.values()) + "])";
      if (sh.ndim() != -1) return "R.Shape(ndim=" + std::to_string(sh.ndim()) + ")";
      return "R.Shape";
    }
    case NodeKind::kPrimSInfo: {
      const auto& p = static_cast<const PrimSInfoNode&>(*s);
      if (p.value()) return "R.Prim(value=" + ToString(p.value()) + ")";
      return "R.Prim(\"" + p.dtype().ToString() + "\")";
    }
    case NodeKind::kTupleSInfo: {
      const auto& t = static_cast<const TupleSInfoNode&>(*s);
      if (t.fields().empty()) return "R.Tuple";
      std::string out = "R.Tuple(";
      for (size_t i = 0; i < t.fields().size(); ++i) {
        out += (i ? ", " : "") + Render(t.fields()[i]);
      }
      return out + ")";
    }
    case NodeKind::kFuncSInfo:
      return "R.Callable";
    default:
      return "R.Object";
  }
}

// Infers the call's struct info through BlockBuilder::Normalize and renders it.
inline std::string Infer(const Call& call) {
  BlockBuilder bb;
  Expr normalized = bb.Normalize(call);
  return Render(normalized->struct_info());
}

// The located error inference reports ("op_test.py:1:6: message"), or "no error: <result>".
inline std::string InferError(const Call& call) {
  try {
    return "no error: " + Infer(call);
  } catch (const DiagnosticError& e) {
    const Diagnostic& d = e.diagnostics().at(0);
    return SourceManager::Global().Describe(d.span) + ": " + d.message;
  }
}

}  // namespace pipesplit::ir::optest

#endif  // PIPESPLIT_TESTS_IR_OP_TEST_UTIL_H_
