// Printer tests on fragments (PrintStructInfo / PrintExpr) in both syntaxes: every struct info
// kind, symbolic expressions (precedence, TVM's function forms), literals, calls and attrs; the
// other fragments (symbolic expressions alone, attribute values, bindings, blocks, callees) in
// full and on one line (PrintShort), cut, on partially built and deeply nested IR.
#include <gtest/gtest.h>

#include <cmath>

#include "pipesplit/script/printer.h"
#include "tests/ir/tir_test_util.h"
#include "tests/script/printer/printer_test_util.h"

namespace pipesplit::script {
namespace {

using namespace testing;  // NOLINT

constexpr Syntax kClassic = Syntax::kClassic;
constexpr Syntax kCurrent = Syntax::kCurrent;

TEST(PrinterFragmentTest, StructInfoKinds) {
  TirVar a = MakeTirVar("a");
  TirVar b = MakeTirVar("b");
  EXPECT_EQ(PrintStructInfo(ObjectSInfo()), "R.Object");
  EXPECT_EQ(PrintStructInfo(ObjectSInfo(), kCurrent), "R.Any");
  EXPECT_EQ(PrintStructInfo(Prim("float32")), "R.Prim(\"float32\")");
  EXPECT_EQ(PrintStructInfo(Prim("float32"), kCurrent), "T.float32");
  EXPECT_EQ(PrintStructInfo(Prim("int64", b)), "R.Prim(value=b)");
  EXPECT_EQ(PrintStructInfo(Prim("int64", b), kCurrent), "T.int64");
  EXPECT_EQ(PrintStructInfo(ir::Make<ShapeSInfoNode>(-1)), "R.Shape(ndim=-1)");
  EXPECT_EQ(PrintStructInfo(ir::Make<ShapeSInfoNode>(3)), "R.Shape(ndim=3)");
  EXPECT_EQ(PrintStructInfo(Shape({I(1), a, I(3)})), "R.Shape([1, a, 3])");
  EXPECT_EQ(PrintStructInfo(Tensor({I(1), a, I(3)})), "R.Tensor((1, a, 3), dtype=\"float32\")");
  EXPECT_EQ(PrintStructInfo(Tensor({I(7)}, "int8")), "R.Tensor((7,), dtype=\"int8\")");
  EXPECT_EQ(PrintStructInfo(Tensor({}, "bool")), "R.Tensor((), dtype=\"bool\")");
  EXPECT_EQ(PrintStructInfo(Tensor({I(2)}, "void")), "R.Tensor((2,))");
  EXPECT_EQ(PrintStructInfo(TensorNdim(2)), "R.Tensor(dtype=\"float32\", ndim=2)");
  EXPECT_EQ(PrintStructInfo(TensorNdim(-1)), "R.Tensor(dtype=\"float32\")");
  EXPECT_EQ(PrintStructInfo(TensorNdim(-1, "void")), "R.Tensor");
  EXPECT_EQ(PrintStructInfo(TensorNdim(3, "void")), "R.Tensor(ndim=3)");
  auto on_device =
      ir::Make<TensorSInfoNode>(std::vector<PrimExpr>{I(2)}, Dt("int32"), "llvm:0:global");
  EXPECT_EQ(PrintStructInfo(on_device),
            "R.Tensor((2,), dtype=\"int32\", vdevice=\"llvm:0:global\")");
  EXPECT_EQ(PrintStructInfo(VoidSInfo()), "R.Tuple");
  EXPECT_EQ(PrintStructInfo(TupleSInfo({Prim("float32"), ObjectSInfo(), Shape({I(1), a})})),
            "R.Tuple(R.Prim(\"float32\"), R.Object, R.Shape([1, a]))");
  EXPECT_EQ(
      PrintStructInfo(TupleSInfo({Prim("float32"), ObjectSInfo(), Shape({I(1), a})}), kCurrent),
      "R.Tuple(T.float32, R.Any, R.Shape([1, a]))");
}

TEST(PrinterFragmentTest, CallableStructInfo) {
  TirVar a = MakeTirVar("a");
  TirVar b = MakeTirVar("b");
  StructInfo f =
      Callable({Prim("float32"), ObjectSInfo(), Shape({I(1), a, I(3)}), Prim("int64", b)},
               Tensor({I(1), I(2), I(3)}), true);
  EXPECT_EQ(PrintStructInfo(f),
            "R.Callable((R.Prim(\"float32\"), R.Object, R.Shape([1, a, 3]), R.Prim(value=b)), "
            "R.Tensor((1, 2, 3), dtype=\"float32\"), True)");
  EXPECT_EQ(PrintStructInfo(f, kCurrent),
            "R.Callable((T.float32, R.Any, R.Shape([1, a, 3]), T.int64), "
            "R.Tensor((1, 2, 3), dtype=\"float32\"), True)");
  EXPECT_EQ(PrintStructInfo(Callable({ObjectSInfo()}, ObjectSInfo(), false)),
            "R.Callable((R.Object,), R.Object, False)");
  EXPECT_EQ(PrintStructInfo(Callable({}, TensorNdim(2), true)),
            "R.Callable((), R.Tensor(dtype=\"float32\", ndim=2), True)");
  auto opaque = [](StructInfo ret, bool pure) {
    return ir::Make<FuncSInfoNode>(std::nullopt, std::move(ret), pure);
  };
  EXPECT_EQ(PrintStructInfo(opaque(ObjectSInfo(), false)), "R.Callable");
  EXPECT_EQ(PrintStructInfo(opaque(ObjectSInfo(), true)), "R.Callable(purity=True)");
  EXPECT_EQ(PrintStructInfo(opaque(Tensor({I(2)}), false)),
            "R.Callable(ret=R.Tensor((2,), dtype=\"float32\"))");
}

// Symbolic expressions print bare in the current syntax, inside R.prim_value in the classic.
std::string PrimText(const PrimExpr& e) { return PrintExpr(PrimVal(e), kCurrent); }

TEST(PrinterFragmentTest, SymbolicExpressionsFollowPythonPrecedence) {
  TirVar n = MakeTirVar("n");
  TirVar m = MakeTirVar("m");
  EXPECT_EQ(PrintExpr(PrimVal(Bin(BinaryOp::kAdd, n, I(1)))), "R.prim_value(n + 1)");
  EXPECT_EQ(PrimText(Bin(BinaryOp::kMul, Bin(BinaryOp::kAdd, n, m), I(2))), "(n + m) * 2");
  EXPECT_EQ(PrimText(Bin(BinaryOp::kSub, n, Bin(BinaryOp::kSub, m, I(1)))), "n - (m - 1)");
  EXPECT_EQ(PrimText(Bin(BinaryOp::kSub, Bin(BinaryOp::kSub, n, m), I(1))), "n - m - 1");
  EXPECT_EQ(PrimText(Bin(BinaryOp::kFloorDiv, Bin(BinaryOp::kMul, n, m), I(2))), "n * m // 2");
  EXPECT_EQ(PrimText(Bin(BinaryOp::kFloorMod, n, Bin(BinaryOp::kMul, m, I(2)))), "n % (m * 2)");
  // TVM parenthesizes a comparison's right operand only (chains are left as Python reads them).
  PrimExpr lt = Bin(BinaryOp::kLT, n, m);
  EXPECT_EQ(PrimText(Bin(BinaryOp::kEQ, lt, Bin(BinaryOp::kLT, m, n))), "n < m == (m < n)");
  EXPECT_EQ(PrimText(Bin(BinaryOp::kAnd, lt, Bin(BinaryOp::kOr, lt, Bin(BinaryOp::kGE, n, m)))),
            "n < m and (n < m or n >= m)");
  EXPECT_EQ(PrimText(ir::Make<NotNode>(Bin(BinaryOp::kAnd, lt, lt))), "not (n < m and n < m)");
  EXPECT_EQ(PrimText(ir::Make<NotNode>(lt)), "not n < m");
  EXPECT_EQ(PrimText(ir::Make<NotNode>(BoolImm(true))), "T.Not(True)");
  EXPECT_EQ(PrimText(Bin(BinaryOp::kMin, n, m)), "T.min(n, m)");
  EXPECT_EQ(PrimText(Bin(BinaryOp::kMax, n, I(0))), "T.max(n, 0)");
  EXPECT_EQ(PrimText(Bin(BinaryOp::kMod, n, I(3))), "T.truncmod(n, 3)");
  EXPECT_EQ(PrimText(Bin(BinaryOp::kDiv, n, I(3))), "T.Div(n, 3)");
  EXPECT_EQ(PrimText(Bin(BinaryOp::kDiv, FloatImm(1.5), MakeTirVar("f", DataType::Float(32)))),
            "T.float32(1.5) / f");
  EXPECT_EQ(PrimText(ir::Make<CastNode>(DataType::Int(32), n)), "T.Cast(\"int32\", n)");
  EXPECT_EQ(PrimText(ir::Make<SelectNode>(lt, n, m)), "T.Select(n < m, n, m)");
  EXPECT_EQ(PrimText(ir::Make<PrimCallNode>("if_then_else", std::vector<PrimExpr>{lt, n, I(0)},
                                            DataType::Int(64))),
            "T.if_then_else(n < m, n, 0)");
}

// Where TVM's operator constructors would fold or retype the operands, the printed form is
// the function call T.Add(a, b) (TVM checks whether tvm::add(a, b) gives back the same node).
TEST(PrinterFragmentTest, FoldableOperandsPrintAsFunctionCalls) {
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(PrimText(Bin(BinaryOp::kAdd, n, I(0))), "T.Add(n, 0)");
  EXPECT_EQ(PrimText(Bin(BinaryOp::kAdd, I(2), I(3))), "T.Add(2, 3)");
  EXPECT_EQ(PrimText(Bin(BinaryOp::kSub, n, I(0))), "T.Sub(n, 0)");
  EXPECT_EQ(PrimText(Bin(BinaryOp::kSub, I(0), n)), "0 - n");
  EXPECT_EQ(PrimText(Bin(BinaryOp::kMul, I(1), n)), "T.Mul(1, n)");
  EXPECT_EQ(PrimText(Bin(BinaryOp::kFloorDiv, n, I(1))), "T.FloorDiv(n, 1)");
  EXPECT_EQ(PrimText(Bin(BinaryOp::kFloorMod, n, I(1))), "T.FloorMod(n, 1)");
  EXPECT_EQ(PrimText(Bin(BinaryOp::kLT, I(1), I(2))), "T.LT(1, 2)");
  EXPECT_EQ(PrimText(Bin(BinaryOp::kAnd, BoolImm(true), Bin(BinaryOp::kLT, n, I(2)))),
            "T.And(True, n < 2)");
  // Operands of different dtypes would be cast first.
  EXPECT_EQ(PrimText(Bin(BinaryOp::kAdd, n, IntImm(1, DataType::Int(32)))), "T.Add(n, 1)");
}

TEST(PrinterFragmentTest, Immediates) {
  EXPECT_EQ(PrimText(IntImm(-3)), "-3");
  EXPECT_EQ(PrimText(IntImm(7, DataType::Int(32))), "7");
  EXPECT_EQ(PrimText(BoolImm(false)), "False");
  EXPECT_EQ(PrimText(FloatImm(0.5, DataType::Float(64))), "T.float64(0.5)");
  EXPECT_EQ(PrimText(FloatImm(0.54, DataType::Float(64))), "T.float64(0.54000000000000004)");
  EXPECT_EQ(PrimText(FloatImm(1e-5)), "T.float32(1.0000000000000001e-05)");
  EXPECT_EQ(PrimText(FloatImm(1e20)), "T.float32(100000000000000000000.0)");
  EXPECT_EQ(PrimText(FloatImm(-2.0)), "T.float32(-2.0)");
  EXPECT_EQ(PrimText(FloatImm(INFINITY, DataType::Float(64))), "T.float64(\"inf\")");
  EXPECT_EQ(PrimText(FloatImm(-INFINITY, DataType::Float(64))), "T.float64(\"-inf\")");
  EXPECT_EQ(PrimText(FloatImm(NAN)), "T.float32(\"nan\")");
}

TEST(PrinterFragmentTest, LeafExpressions) {
  TirVar x = MakeTirVar("x");
  EXPECT_EQ(PrintExpr(PrimVal(I(1))), "R.prim_value(1)");
  EXPECT_EQ(PrintExpr(PrimVal(I(1)), kCurrent), "1");
  EXPECT_EQ(PrintExpr(Str("hello")), "R.str(\"hello\")");
  EXPECT_EQ(PrintExpr(ir::Make<DataTypeImmNode>(Dt("float32"))), "R.dtype(\"float32\")");
  EXPECT_EQ(PrintExpr(ShapeOf({I(1), x, I(3)})), "R.shape([1, x, 3])");
  EXPECT_EQ(PrintExpr(ShapeOf({})), "R.shape([])");
  Var a = MakeVar("a", Tensor({I(1), x, I(3)}));
  Var b = MakeVar("b", Tensor({I(2)}));
  EXPECT_EQ(PrintExpr(TupleOf({a, b, a})), "(a, b, a)");
  EXPECT_EQ(PrintExpr(TupleOf({a})), "(a,)");
  EXPECT_EQ(PrintExpr(TupleOf({})), "R.tuple()");
  EXPECT_EQ(PrintExpr(GetItem(TupleOf({a, b}), 0)), "(a, b)[0]");
  EXPECT_EQ(PrintExpr(MakeVar("", ObjectSInfo())), "v");
  EXPECT_EQ(PrintExpr(Extern("my_ext")), "R.ExternFunc(\"my_ext\")");
  EXPECT_EQ(PrintExpr(ir::Make<ExternFuncNode>("my_ext", Callable({}, TensorNdim(2), true))),
            "R.ExternFunc(\"my_ext\", R.Callable((), R.Tensor(dtype=\"float32\", ndim=2), True))");
  EXPECT_EQ(PrintExpr(GetOp("relax.add")), "I.Op(\"relax.add\")");
  EXPECT_EQ(PrintExpr(ir::Make<ConstantNode>(0, TensorNdim(2))),
            "metadata[\"relax.expr.Constant\"][0]");
  EXPECT_EQ(PrintExpr(ir::Make<ConstantNode>(ConstantNode::Scalar(-1.5), DataType::Float(64))),
            "R.const(-1.5, \"float64\")");
  EXPECT_EQ(
      PrintExpr(ir::Make<ConstantNode>(ConstantNode::Scalar(int64_t{2}), DataType::Float(32))),
      "R.const(2.0, \"float32\")");
  EXPECT_EQ(PrintExpr(ir::Make<ConstantNode>(ConstantNode::Scalar(0.1), DataType::Float(16))),
            "R.const(0.0999755859375, \"float16\")");
}

TEST(PrinterFragmentTest, CallTirFamilyInBothSyntaxes) {
  TirVar x = MakeTirVar("x");
  Var a = MakeVar("a", Tensor({I(1), x, I(3)}));
  auto tir_func = ir::Make<GlobalVarNode>("tir_func", ObjectSInfo());
  StructInfo out = a->struct_info();
  Expr call = OpCall("relax.call_tir", {tir_func, TupleOf({a}), ShapeOf({x})}, out, {}, {out});
  EXPECT_EQ(PrintExpr(call),
            "R.call_tir(tir_func, (a,), out_sinfo=R.Tensor((1, x, 3), dtype=\"float32\"), "
            "tir_vars=R.shape([x]))");
  EXPECT_EQ(PrintExpr(call, kCurrent),
            "R.call_tir(tir_func, (a, x), out_ty=R.Tensor((1, x, 3), dtype=\"float32\"))");
  Expr no_args = OpCall("relax.call_tir", {tir_func, TupleOf({}), ShapeOf({x})}, out, {}, {out});
  EXPECT_EQ(PrintExpr(no_args, kCurrent),
            "R.call_tir(tir_func, (x,), out_ty=R.Tensor((1, x, 3), dtype=\"float32\"))");
  Expr dps = OpCall("relax.call_dps_packed", {Extern("my_dps_func"), TupleOf({a})}, out, {}, {out});
  EXPECT_EQ(PrintExpr(dps),
            "R.call_dps_packed(\"my_dps_func\", (a,), out_sinfo=R.Tensor((1, x, 3), "
            "dtype=\"float32\"))");

  Var v0 = MakeVar("v0", Tensor({I(54), I(96)}));
  Expr grad = OpCall(
      "relax.call_tir_with_grad", {tir_func, TupleOf({v0})}, v0->struct_info(),
      {{"te_grad_name", "grad_func"}, {"te_grad_kwargs", AttrMap{{"x", PrimExpr(x)}, {"k", 1.0}}}},
      {v0->struct_info()});
  EXPECT_EQ(PrintExpr(grad),
            "R.call_tir_with_grad(tir_func, (v0,), out_sinfo=R.Tensor((54, 96), "
            "dtype=\"float32\"), te_grad_name=\"grad_func\", te_grad_kwargs={\"k\": 1.0, \"x\": "
            "x})");

  TirVar t = MakeTirVar("t");
  Var xx = MakeVar("x", Tensor({I(32), I(32)}, "int32"));
  Var yy = MakeVar("y", Tensor({I(32), I(32)}, "int32"));
  StructInfo two = TupleSInfo({xx->struct_info(), yy->struct_info()});
  Expr inplace = OpCall("relax.call_tir_inplace", {tir_func, TupleOf({xx, yy}), ShapeOf({t})}, two,
                        {{"inplace_indices", AttrList{-1, 0}}}, {two});
  EXPECT_EQ(PrintExpr(inplace),
            "R.call_tir_inplace(tir_func, (x, y), out_sinfo=[R.Tensor((32, 32), "
            "dtype=\"int32\"), R.Tensor((32, 32), dtype=\"int32\")], inplace_indices=[-1, 0], "
            "tir_vars=R.shape([t]))");
  EXPECT_EQ(PrintExpr(inplace, kCurrent),
            "R.call_tir_inplace(tir_func, (x, y, t), out_ty=[R.Tensor((32, 32), "
            "dtype=\"int32\"), R.Tensor((32, 32), dtype=\"int32\")], inplace_indices=[-1, 0])");
}

TEST(PrinterFragmentTest, GenericCallsAndAttrValues) {
  Var a = MakeVar("a", Tensor({I(2)}));
  AttrMap attrs = {{"none", AttrValue()},
                   {"flag", false},
                   {"axis", -1},
                   {"eps", 1e-5},
                   {"alpha", -0.75},
                   {"name", "x\ty"},
                   {"axes", AttrList{0, 2, 1}},
                   {"roi", AttrList{PrimExpr(FloatImm(0.0)), PrimExpr(FloatImm(1.0))}},
                   {"dict", AttrMap{{"b", 1}, {"a", AttrList{}}}},
                   {"expr", Expr(Str("s"))}};
  Expr call = OpCall("relax.custom.op", {a, a}, a->struct_info(), attrs);
  EXPECT_EQ(PrintExpr(call),
            "R.custom.op(a, a, none=None, flag=False, axis=-1, eps=1.0000000000000001e-05, "
            "alpha=-0.75, name=\"x\\ty\", axes=[0, 2, 1], roi=[T.float32(0.0), T.float32(1.0)], "
            "dict={\"a\": [], \"b\": 1}, expr=R.str(\"s\"))");
  // sinfo_args (classic) / ty_args (current); a call of a var; a non-Relax op name.
  Var f = MakeVar("f", Callable({a->struct_info()}, a->struct_info(), true));
  EXPECT_EQ(PrintExpr(CallExpr(f, {a}, a->struct_info(), {ObjectSInfo()})),
            "f(a, sinfo_args=(R.Object,))");
  EXPECT_EQ(PrintExpr(CallExpr(f, {a}, a->struct_info(), {ObjectSInfo()}), kCurrent),
            "f(a, ty_args=(R.Any,))");
  EXPECT_EQ(PrintExpr(OpCall("tir.exp", {a}, a->struct_info())), "tir.exp(a)");
  // An ExternFunc as first argument of an op prints as its symbol.
  EXPECT_EQ(PrintExpr(OpCall("relax.call_pure_packed", {Extern("g"), a}, a->struct_info(), {},
                             {a->struct_info()})),
            "R.call_pure_packed(\"g\", a, sinfo_args=(R.Tensor((2,), dtype=\"float32\"),))");
}

TEST(PrinterFragmentTest, FunctionFragmentHasNoHeader) {
  // Named by its global symbol (not printed again), else "main" and private, as TVM prints a
  // lone function.
  Var a = MakeVar("a", Tensor({I(10), I(10)}, "void"));
  Function pub =
      Func({a}, Seq({}, a), a->struct_info(), {{"global_symbol", "func"}, {"some_attr", 1}});
  EXPECT_EQ(PrintExpr(pub),
            "@R.function\n"
            "def func(a: R.Tensor((10, 10))) -> R.Tensor((10, 10)):\n"
            "    R.func_attr({\"some_attr\": 1})\n"
            "    return a");
  Function priv = Func({a}, Seq({}, a), a->struct_info(), {{"some_attr", 1}});
  EXPECT_EQ(PrintExpr(priv),
            "@R.function(private=True)\n"
            "def main(a: R.Tensor((10, 10))) -> R.Tensor((10, 10)):\n"
            "    R.func_attr({\"some_attr\": 1})\n"
            "    return a");
}

TEST(PrinterFragmentTest, PrimExprsAndAttrValues) {
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(PrintPrimExpr(Bin(BinaryOp::kAdd, n, I(1))), "n + 1");
  EXPECT_EQ(PrintPrimExpr(IntImm(2, Dt("int32"))), "T.int32(2)");
  EXPECT_EQ(PrintPrimExpr(nullptr), "<null>");
  EXPECT_EQ(PrintShort(PrimExpr(I(7))), "7");
  EXPECT_EQ(PrintAttrValue(AttrValue("fast")), "\"fast\"");
  EXPECT_EQ(PrintAttrValue(AttrValue(1.5)), "1.5");
  EXPECT_EQ(PrintAttrValue(AttrValue(AttrList{int64_t{1}, true, AttrValue()})), "[1, True, None]");
  // A dictionary prints sorted by key, as in R.func_attr.
  EXPECT_EQ(PrintAttrValue(AttrValue(AttrMap{{"b", int64_t{2}}, {"a", "x"}})),
            "{\"a\": \"x\", \"b\": 2}");
  EXPECT_EQ(PrintAttrValue(AttrValue(AttrCall{"I.vdevice", {"llvm"}, {}})), "I.vdevice(\"llvm\")");
  // A symbolic value alone: as inside a module in full, with its dtype on one line.
  EXPECT_EQ(PrintAttrValue(AttrValue(IntImm(2, Dt("int32")))), "2");
  EXPECT_EQ(PrintShort(AttrValue(IntImm(2, Dt("int32")))), "T.int32(2)");
  EXPECT_EQ(PrintShort(AttrValue(int64_t{2})), "2");
}

TEST(PrinterFragmentTest, BindingsAndBlocks) {
  Var x = MakeVar("x", Tensor({I(2)}));
  Expr add = OpCall("relax.add", {x, x}, x->struct_info());
  Var lv = DfVar("lv", x->struct_info());
  Var gv = MakeVar("gv", x->struct_info());
  Binding b1 = Bind(lv, add);
  Binding b2 = Bind(gv, OpCall("relax.multiply", {lv, x}, x->struct_info()));
  EXPECT_EQ(PrintBinding(b1), "lv: R.Tensor((2,), dtype=\"float32\") = R.add(x, x)");
  EXPECT_EQ(PrintShort(b1), "lv: R.Tensor((2,), dtype=\"float32\") = R.add(x, x)");
  Binding cast = Cast(MakeVar("y", Tensor({I(2)})), x, Tensor({I(2)}));
  EXPECT_EQ(PrintShort(cast),
            "y: R.Tensor((2,), dtype=\"float32\") = R.match_cast(x, R.Tensor((2,), "
            "dtype=\"float32\"))");
  BindingBlock dataflow = Block({b1, b2}, /*dataflow=*/true);
  EXPECT_EQ(PrintBindingBlock(dataflow),
            "with R.dataflow():\n"
            "    lv: R.Tensor((2,), dtype=\"float32\") = R.add(x, x)\n"
            "    gv: R.Tensor((2,), dtype=\"float32\") = R.multiply(lv, x)\n"
            "    R.output(gv)");
  EXPECT_EQ(PrintShort(dataflow), "with R.dataflow(): 2 bindings");
  EXPECT_EQ(PrintShort(Block({b1})), "1 binding");
  // A body, an if and a function alone: statements in full, summarized on one line.
  Expr body = Seq({Block({b2})}, gv);
  EXPECT_EQ(PrintShort(body), "{1 binding; return gv}");
  Var c = MakeVar("c", Prim("bool"));
  Expr branch = ir::Make<IfNode>(c, body, Seq({}, x), x->struct_info());
  EXPECT_EQ(PrintShort(branch), "if c: {1 binding; return gv} else: {0 bindings; return x}");
  Function f = Func({x, c}, body, x->struct_info(), {}, /*pure=*/false);
  EXPECT_EQ(PrintShort(f),
            "@R.function(pure=False, private=True) def main(x: R.Tensor((2,), "
            "dtype=\"float32\"), c: R.Prim(\"bool\")) -> R.Tensor((2,), dtype=\"float32\"): ...");
  EXPECT_EQ(PrintExpr(f).substr(0, 47), "@R.function(pure=False, private=True)\ndef main(");
  // A binding of a function: its def in full, one line in short.
  Var local = MakeVar("g", f->struct_info());
  EXPECT_EQ(PrintBinding(Bind(local, f)).substr(0, 36), "@R.function(pure=False)\ndef g(x: R.T");
  EXPECT_EQ(PrintShort(Bind(local, f)).substr(0, 63),
            "g: R.Callable((R.Tensor((2,), dtype=\"float32\"), R.Prim(\"bool\"))");
}

TEST(PrinterFragmentTest, CalleesAndNamesAlone) {
  Var x = MakeVar("x", Tensor({I(2)}));
  EXPECT_EQ(PrintCallee(GetOp("relax.add")), "R.add");
  EXPECT_EQ(PrintCallee(GetOp("relax.call_pure_packed")), "R.call_pure_packed");
  EXPECT_EQ(PrintCallee(Extern("side_effect")), "R.call_packed(\"side_effect\")");
  auto gv = ir::Make<GlobalVarNode>("helper", nullptr);
  EXPECT_EQ(PrintShortCallee(gv), "cls.helper");
  EXPECT_EQ(PrintShortCallee(x), "x");
  // Alone on one line: an op and a module function as called, a prim function by name.
  EXPECT_EQ(PrintShort(Expr(GetOp("relax.multiply"))), "R.multiply");
  EXPECT_EQ(PrintShort(Expr(gv)), "cls.helper");
  EXPECT_EQ(PrintShort(CallExpr(gv, {x}, x->struct_info())), "cls.helper(x)");
  EXPECT_EQ(PrintShort(Expr(pipesplit::testing::EvaluatePrimFunc("k"))), "T.prim_func k");
  EXPECT_EQ(PrintShort(Extern("f")), "R.ExternFunc(\"f\")");
  // In full, an op is an I.Op reference.
  EXPECT_EQ(PrintExpr(GetOp("relax.add")), "I.Op(\"relax.add\")");
}

TEST(PrinterFragmentTest, ShortTextIsCut) {
  std::vector<Expr> fields;
  for (int i = 0; i < 100; ++i) fields.push_back(Str("s" + std::to_string(i)));
  Expr tuple = TupleOf(fields);
  std::string full = PrintExpr(tuple);
  std::string cut = PrintShort(tuple);
  EXPECT_GT(full.size(), kShortTextLength);
  EXPECT_EQ(cut, full.substr(0, kShortTextLength) + "...");
  EXPECT_EQ(PrintShort(tuple, 10), "(R.str(\"s0...");
  FragmentOptions options;
  options.max_length = 5;
  EXPECT_EQ(PrintStructInfo(ObjectSInfo(), options), "R.Obj...");
}

TEST(PrinterFragmentTest, PartialIrPrintsMissingPieces) {
  Var x = MakeVar("x", Tensor({I(2)}));
  EXPECT_EQ(PrintExpr(nullptr), "<null>");
  EXPECT_EQ(PrintShort(Expr(nullptr)), "<null>");
  EXPECT_EQ(PrintShort(OpCall("relax.add", {x, nullptr}, nullptr)), "R.add(x, <null>)");
  EXPECT_EQ(PrintShort(Tensor({I(2), nullptr})), "R.Tensor((2, <null>), dtype=\"float32\")");
  EXPECT_EQ(PrintShort(StructInfo(nullptr)), "<none>");
  EXPECT_EQ(PrintStructInfo(nullptr), "R.Object");
  EXPECT_EQ(PrintShort(Binding(nullptr)), "<null>");
  // In full, a missing struct info reads R.Object, as the printer has always spelled it.
  EXPECT_EQ(PrintBinding(Bind(MakeVar("y", nullptr), nullptr)), "y: R.Object = <null>");
  EXPECT_EQ(PrintShort(Bind(MakeVar("y", nullptr), nullptr)), "y: <none> = <null>");
  EXPECT_EQ(PrintShort(BindingBlock(nullptr)), "<null>");
  EXPECT_EQ(PrintShort(Seq({nullptr}, x)), "{0 bindings; return x}");
  EXPECT_EQ(PrintShort(Func({MakeVar("p", nullptr)}, x, nullptr)),
            "@R.function(private=True) def main(p: <none>) -> <none>: ...");
  EXPECT_EQ(PrintShort(GetItem(TupleOf({x}), 0)), "(x,)[0]");
}

TEST(PrinterFragmentTest, DeepNestingIsCutNotACrash) {
  Expr e = Str("leaf");
  for (int i = 0; i < 5000; ++i) e = TupleOf({e});
  std::string text = PrintShort(e);
  EXPECT_EQ(text.substr(0, 4), "((((");
  EXPECT_LE(text.size(), kShortTextLength + 3);
  std::string full = PrintExpr(e);
  EXPECT_NE(full.find("..."), std::string::npos);
  EXPECT_LT(full.size(), 200u);
  StructInfo s = ObjectSInfo();
  for (int i = 0; i < 5000; ++i) s = TupleSInfo({s});
  EXPECT_NE(PrintStructInfo(s).find("R.Tuple(..."), std::string::npos);
}

}  // namespace
}  // namespace pipesplit::script
