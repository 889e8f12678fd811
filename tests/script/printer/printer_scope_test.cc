// Printer tests on scoping: names freed at the end of a function, symbolic vars and
// `cls = Module` of nested functions (outermost function in the classic syntax, innermost in
// the current one), index-map lambdas; op attributes in TVM's declaration order, and with
// their defaults completed on request.
#include <gtest/gtest.h>

#include "pipesplit/script/printer.h"
#include "tests/script/printer/printer_test_util.h"

namespace pipesplit::script {
namespace {

using namespace testing;  // NOLINT

TEST(PrinterScopeTest, NamesAreFreedWhenAFunctionEnds) {
  IRModule mod;
  for (const char* name : {"f", "g"}) {
    TirVar n = MakeTirVar("n");
    Var x = MakeVar("x", Tensor({n}));
    Var lv = MakeVar("lv", Tensor({n}));
    AddPublic(&mod, name,
              Func({x}, Seq({Block({Bind(lv, OpCall("relax.exp", {x}, Tensor({n})))})}, lv),
                   lv->struct_info()));
  }
  std::string text = PrintModule(mod);
  for (const char* name : {"f", "g"}) {
    std::string def = std::string("    def ") + name +
                      "(x: R.Tensor((\"n\",), dtype=\"float32\")) -> R.Tensor((\"n\",), "
                      "dtype=\"float32\"):\n"
                      "        n = T.int64()\n"
                      "        lv: R.Tensor((n,), dtype=\"float32\") = R.exp(x)\n"
                      "        return lv\n";
    EXPECT_NE(text.find(def), std::string::npos) << text;
  }
}

// One module with a nested function that has a symbolic var of its own and calls a module
// function.
IRModule NestedModule(Syntax syntax) {
  IRModule mod;
  Var p = MakeVar("p", Tensor({I(2)}));
  GlobalVar helper = AddPublic(&mod, "helper", Func({p}, Seq({}, p), p->struct_info()));
  TirVar m = MakeTirVar("m");
  Var q = MakeVar("q", Tensor({m}));
  Var r = MakeVar("r", Tensor({I(2)}));
  Function inner = Func({q}, Seq({Block({Bind(r, CallExpr(helper, {q}, Tensor({I(2)})))})}, r),
                        r->struct_info());
  Var inner_var = MakeVar("inner", inner->struct_info());
  Var x = MakeVar("x", Tensor({I(2)}));
  AddPublic(&mod, "main", Func({x}, Seq({Block({Bind(inner_var, inner)})}, x), x->struct_info()));
  mod.set_syntax(syntax);
  return mod;
}

TEST(PrinterScopeTest, NestedFunctionDeclaresInOutermostFunctionInClassicSyntax) {
  std::string text = PrintModule(NestedModule(Syntax::kClassic));
  const char* expected =
      "    def main(x: R.Tensor((2,), dtype=\"float32\")) -> R.Tensor((2,), "
      "dtype=\"float32\"):\n"
      "        m = T.int64()\n"
      "        cls = Module\n"
      "        # from tvm.script import tirx as T\n"
      "        # from tvm.tirx.layout import Axis\n"
      "        # from tvm.script import relax as R\n"
      "        \n"
      "        @R.function\n"
      "        def inner(q: R.Tensor((m,), dtype=\"float32\")) -> R.Tensor((2,), "
      "dtype=\"float32\"):\n"
      "            r: R.Tensor((2,), dtype=\"float32\") = cls.helper(q)\n"
      "            return r\n"
      "\n"
      "        return x\n";
  EXPECT_NE(text.find(expected), std::string::npos) << text;
}

TEST(PrinterScopeTest, NestedFunctionOwnsItsTypeVarsInCurrentSyntax) {
  std::string text = PrintModule(NestedModule(Syntax::kCurrent));
  const char* expected =
      "    def main(x: R.Tensor((2,), dtype=\"float32\")) -> R.Tensor((2,), "
      "dtype=\"float32\"):\n"
      "        # from tvm.script import relax as R\n"
      "        \n"
      "        @R.function\n"
      "        def inner[m](q: R.Tensor((m,), dtype=\"float32\")) -> R.Tensor((2,), "
      "dtype=\"float32\"):\n"
      "            cls = Module\n"
      "            r: R.Tensor((2,), dtype=\"float32\") = cls.helper(q)\n"
      "            return r\n"
      "\n"
      "        return x\n";
  EXPECT_NE(text.find(expected), std::string::npos) << text;
  EXPECT_EQ(text.rfind("from __future__ import annotations\n\n# from tvm.script import ir as I\n"
                       "# from tvm.script import relax as R\n\n@I.ir_module\n",
                       0),
            0u)
      << text;
}

TEST(PrinterScopeTest, IndexMapLambdaDefinesItsOwnNames) {
  // The parser's form of T.index_map(lambda i, j: (j, i)): an AttrCall "lambda" holding the
  // parameter vars and the body; TVM never prints the index dtype.
  TirVar i = MakeTirVar("i");
  TirVar j = MakeTirVar("j");
  TirVar shadow = MakeTirVar("x");  // a lambda var named like a Relax var in scope
  AttrCall lambda{
      "lambda",
      {AttrList{PrimExpr(i), PrimExpr(j), PrimExpr(shadow)},
       AttrList{PrimExpr(j), PrimExpr(Bin(BinaryOp::kFloorDiv, i, I(4))), PrimExpr(shadow)}},
      {}};
  AttrCall index_map{"T.index_map", {AttrValue(lambda)}, {{"index_dtype", "int32"}}};
  IRModule mod;
  Var x = MakeVar("x", Tensor({I(4), I(4)}));
  Var y = MakeVar("y", Tensor({I(4), I(4)}));
  AddPublic(&mod, "main",
            Func({x},
                 Seq({Block({Bind(y, OpCall("relax.custom_layout", {x}, y->struct_info(),
                                            {{"index_map", AttrValue(index_map)}}))})},
                     y),
                 y->struct_info()));
  std::string text = PrintModule(mod);
  EXPECT_NE(text.find("R.custom_layout(x, index_map=T.index_map(lambda i, j, x_1: (j, i // 4, "
                      "x_1)))\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# from tvm.script import tirx as T\n"), std::string::npos) << text;
}

TEST(PrinterScopeTest, AttrsInDeclarationOrderAndCompletedOnRequest) {
  IRModule mod;
  Var x = MakeVar("x", Tensor({I(4), I(4)}));
  Var idx = MakeVar("idx", Tensor({I(2)}, "int64"));
  Var a = MakeVar("a", Tensor({I(2), I(4)}));
  Var b = MakeVar("b", Tensor({I(2), I(4)}));
  Var c = MakeVar("c", Tensor({I(4), I(4)}));
  Expr body = Seq({Block({Bind(a, OpCall("relax.take", {x, idx}, a->struct_info(),
                                         {{"mode", "clip"}, {"axis", 0}})),
                          Bind(b, OpCall("relax.take", {x, idx}, b->struct_info(), {{"axis", 0}})),
                          Bind(c, OpCall("relax.matmul", {x, x}, c->struct_info()))})},
                  c);
  AddPublic(&mod, "main", Func({x, idx}, body, c->struct_info()));
  std::string text = PrintModule(mod);
  EXPECT_NE(text.find("= R.take(x, idx, axis=0, mode=\"clip\")\n"), std::string::npos) << text;
  EXPECT_NE(text.find("= R.take(x, idx, axis=0)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("= R.matmul(x, x)\n"), std::string::npos) << text;
  PrintOptions complete;
  complete.complete_attrs = true;
  text = PrintModule(mod, complete);
  EXPECT_NE(text.find("= R.take(x, idx, axis=0, mode=\"clip\")\n"), std::string::npos) << text;
  EXPECT_NE(text.find("= R.take(x, idx, axis=0, mode=\"fast\")\n"), std::string::npos) << text;
  EXPECT_NE(text.find("= R.matmul(x, x, out_dtype=\"void\")\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace pipesplit::script
