// Printer tests on whole modules in the current syntax (TVM after the June 2026 StructInfo ->
// Type refactor): type vars (TypeVar / PEP 695), R.Any, T.int64 types, bare prim values,
// out_ty= with tir_vars merged into the argument tuple, ty_args=, prim params.
#include <gtest/gtest.h>

#include "pipesplit/script/printer.h"
#include "tests/ir/tir_test_util.h"
#include "tests/script/printer/printer_test_util.h"

namespace pipesplit::script {
namespace {

using namespace testing;  // NOLINT

// main(x: (n, n * 2), s: Shape([m])) with a call_tir, a match_cast defining k, a prim binding
// and a packed call.
IRModule SymbolicModule() {
  IRModule mod;
  GlobalVar kernel =
      AddMember(&mod, "add_kernel", pipesplit::testing::EvaluatePrimFunc("add_kernel"));
  TirVar n = MakeTirVar("n");
  TirVar m = MakeTirVar("m");
  TirVar k = MakeTirVar("k");
  PrimExpr n2 = Bin(BinaryOp::kMul, n, I(2));
  StructInfo t = Tensor({n, n2});
  Var x = MakeVar("x", t);
  Var s = MakeVar("s", Shape({m}));
  Var o = MakeVar("o", ObjectSInfo());
  auto packed = ir::Make<CallNode>(Extern("f"), std::vector<Expr>{x}, AttrMap{},
                                   std::vector<StructInfo>{ObjectSInfo()}, ObjectSInfo());
  Var lv = MakeVar("lv", t);
  Var y = DfVar("y", Tensor({k}));
  Var p = DfVar("p", Prim("int64"));
  Expr body = Seq(
      {Block({Bind(o, packed)}),
       Block({Bind(lv, OpCall("relax.call_tir", {kernel, TupleOf({x}), ShapeOf({m})}, t, {}, {t})),
              Cast(y, lv, Tensor({k})), Bind(p, PrimVal(Bin(BinaryOp::kAdd, n, I(1))))},
             /*dataflow=*/true)},
      lv);
  AddPublic(&mod, "main", Func({x, s}, body, t));
  mod.set_syntax(Syntax::kCurrent);
  return mod;
}

constexpr const char* kMainBody =
    "        cls = Module\n"
    "        k = T.int64()\n"
    "        o: R.Any = R.call_packed(\"f\", x, ty_args=(R.Any,))\n"
    "        with R.dataflow():\n"
    "            lv = R.call_tir(cls.add_kernel, (x, m), out_ty=R.Tensor((n, n * 2), "
    "dtype=\"float32\"))\n"
    "            y: R.Tensor((k,), dtype=\"float32\") = R.match_cast(lv, R.Tensor((k,), "
    "dtype=\"float32\"))\n"
    "            p: T.int64 = n + 1\n"
    "            R.output(lv)\n"
    "        return lv\n";

TEST(PrinterCurrentTest, SignatureVarsAsModuleLevelTypeVars) {
  IRModule mod = SymbolicModule();
  PrintOptions options;
  options.pep695 = false;
  EXPECT_EQ(PrintModule(mod, options),
            std::string("# from typing import TypeVar\n"
                        "# from tvm.script import ir as I\n"
                        "# from tvm.script import tirx as T\n"
                        "# from tvm.tirx.layout import Axis\n"
                        "# from tvm.script import relax as R\n"
                        "\n"
                        "m = TypeVar(\"m\")\n"
                        "n = TypeVar(\"n\")\n"
                        "@I.ir_module\n"
                        "class Module:\n"
                        "    @T.prim_func\n"
                        "    def add_kernel():\n"
                        "        T.evaluate(0)\n"
                        "\n"
                        "    @R.function\n"
                        "    def main(x: R.Tensor((n, \"n * 2\"), dtype=\"float32\"), s: "
                        "R.Shape([m])) -> R.Tensor((n, \"n * 2\"), dtype=\"float32\"):\n") +
                kMainBody);
}

TEST(PrinterCurrentTest, SignatureVarsAsPep695TypeParams) {
  IRModule mod = SymbolicModule();  // the default style is PEP 695
  EXPECT_EQ(PrintModule(mod),
            std::string("from __future__ import annotations\n"
                        "\n"
                        "# from tvm.script import ir as I\n"
                        "# from tvm.script import tirx as T\n"
                        "# from tvm.tirx.layout import Axis\n"
                        "# from tvm.script import relax as R\n"
                        "\n"
                        "@I.ir_module\n"
                        "class Module:\n"
                        "    @T.prim_func\n"
                        "    def add_kernel():\n"
                        "        T.evaluate(0)\n"
                        "\n"
                        "    @R.function\n"
                        "    def main[m, n](x: R.Tensor((n, n * 2), dtype=\"float32\"), s: "
                        "R.Shape([m])) -> R.Tensor((n, n * 2), dtype=\"float32\"):\n") +
                kMainBody);
}

TEST(PrinterCurrentTest, SameModuleInClassicSyntax) {
  IRModule mod = SymbolicModule();
  PrintOptions options;
  options.syntax = Syntax::kClassic;
  std::string text = PrintModule(mod, options);
  const char* expected =
      "    def main(x: R.Tensor((\"n\", \"n * 2\"), dtype=\"float32\"), s: R.Shape([\"m\"])) -> "
      "R.Tensor((\"n\", \"n * 2\"), dtype=\"float32\"):\n"
      "        n = T.int64()\n"
      "        m = T.int64()\n"
      "        cls = Module\n"
      "        k = T.int64()\n"
      "        o: R.Object = R.call_packed(\"f\", x, sinfo_args=(R.Object,))\n"
      "        with R.dataflow():\n"
      "            lv = R.call_tir(cls.add_kernel, (x,), out_sinfo=R.Tensor((n, n * 2), "
      "dtype=\"float32\"), tir_vars=R.shape([m]))\n"
      "            y: R.Tensor((k,), dtype=\"float32\") = R.match_cast(lv, R.Tensor((k,), "
      "dtype=\"float32\"))\n"
      "            p: R.Prim(\"int64\") = R.prim_value(n + 1)\n"
      "            R.output(lv)\n"
      "        return lv\n";
  EXPECT_NE(text.find(expected), std::string::npos) << text;
  EXPECT_EQ(text.find("TypeVar"), std::string::npos);
}

// A param of prim type is itself the symbolic var its struct info names (classic
// `n: R.Prim(value="n")`); it is neither a type var nor declared.
TEST(PrinterCurrentTest, PrimParamIsTheSymbolicVar) {
  IRModule mod;
  TirVar n = MakeTirVar("n");
  Var np = MakeVar("n", Prim("int64", n));
  Var x = MakeVar("x", Tensor({n}));
  Var y = MakeVar("y", Tensor({Bin(BinaryOp::kAdd, n, I(1))}));
  Expr body =
      Seq({Block({Bind(y, OpCall("relax.concat", {TupleOf({x, x})}, y->struct_info()))})}, y);
  AddPublic(&mod, "f", Func({np, x}, body, y->struct_info()));
  mod.set_syntax(Syntax::kCurrent);
  EXPECT_EQ(PrintModule(mod),
            "# from tvm.script import ir as I\n"
            "# from tvm.script import tirx as T\n"
            "# from tvm.tirx.layout import Axis\n"
            "# from tvm.script import relax as R\n"
            "\n"
            "@I.ir_module\n"
            "class Module:\n"
            "    @R.function\n"
            "    def f(n: T.int64, x: R.Tensor((n,), dtype=\"float32\")) -> "
            "R.Tensor((n + 1,), dtype=\"float32\"):\n"
            "        y: R.Tensor((n + 1,), dtype=\"float32\") = R.concat((x, x))\n"
            "        return y\n");
}

TEST(PrinterCurrentTest, NestedFunctionTypeVarsStayInTheBody) {
  IRModule mod;
  TirVar a = MakeTirVar("a");
  Var q = MakeVar("q", Tensor({a}));
  Function inner = Func({q}, Seq({}, q), q->struct_info());
  Var inner_var = MakeVar("inner", inner->struct_info());
  Var x = MakeVar("x", Tensor({I(2)}));
  AddPublic(&mod, "main", Func({x}, Seq({Block({Bind(inner_var, inner)})}, x), x->struct_info()));
  mod.set_syntax(Syntax::kCurrent);
  PrintOptions options;
  options.pep695 = false;
  EXPECT_EQ(PrintModule(mod, options),
            "# from typing import TypeVar\n"
            "# from tvm.script import ir as I\n"
            "# from tvm.script import relax as R\n"
            "\n"
            "@I.ir_module\n"
            "class Module:\n"
            "    @R.function\n"
            "    def main(x: R.Tensor((2,), dtype=\"float32\")) -> R.Tensor((2,), "
            "dtype=\"float32\"):\n"
            "        # from typing import TypeVar\n"
            "        # from tvm.script import relax as R\n"
            "        \n"
            "        a = TypeVar(\"a\")\n"
            "        @R.function\n"
            "        def inner(q: R.Tensor((a,), dtype=\"float32\")) -> R.Tensor((a,), "
            "dtype=\"float32\"):\n"
            "            return q\n"
            "\n"
            "        return x\n");
}

}  // namespace
}  // namespace pipesplit::script
