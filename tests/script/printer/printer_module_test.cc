// Printer tests on whole hand-built modules, classic syntax: header, member order, functions,
// decorators, func_attr, symbolic var declarations, `cls = Module`, metadata note.
#include <gtest/gtest.h>

#include "pipesplit/script/printer.h"
#include "tests/ir/tir_test_util.h"
#include "tests/script/printer/printer_test_util.h"

namespace pipesplit::script {
namespace {

using namespace testing;  // NOLINT

TEST(PrinterModuleTest, PublicFunctionWithAttrs) {
  IRModule mod;
  Var a = MakeVar("a", Tensor({I(10), I(10)}, "void"));
  AddPublic(&mod, "func", Func({a}, Seq({}, a), a->struct_info(), {{"some_attr", 1}}));
  EXPECT_EQ(PrintModule(mod),
            "# from tvm.script import ir as I\n"
            "# from tvm.script import relax as R\n"
            "\n"
            "@I.ir_module\n"
            "class Module:\n"
            "    @R.function\n"
            "    def func(a: R.Tensor((10, 10))) -> R.Tensor((10, 10)):\n"
            "        R.func_attr({\"some_attr\": 1})\n"
            "        return a\n");
}

TEST(PrinterModuleTest, PrivateImpureAndGlobalSymbolOtherThanName) {
  IRModule mod;
  Var x = MakeVar("x", Tensor({}, "int32"));
  AddMember(&mod, "bar", Func({x}, Seq({}, x), x->struct_info(), {}, /*pure=*/false));
  Var y = MakeVar("y", Tensor({}, "int32"));
  AddMember(&mod, "foo",
            Func({y}, Seq({}, y), y->struct_info(),
                 {{"global_symbol", "other"}, {"b_attr", true}, {"a_attr", "s"}}));
  EXPECT_EQ(PrintModule(mod),
            "# from tvm.script import ir as I\n"
            "# from tvm.script import relax as R\n"
            "\n"
            "@I.ir_module\n"
            "class Module:\n"
            "    @R.function(pure=False, private=True)\n"
            "    def bar(x: R.Tensor((), dtype=\"int32\")) -> R.Tensor((), dtype=\"int32\"):\n"
            "        return x\n"
            "\n"
            "    @R.function\n"
            "    def foo(y: R.Tensor((), dtype=\"int32\")) -> R.Tensor((), dtype=\"int32\"):\n"
            "        R.func_attr({\"a_attr\": \"s\", \"b_attr\": True, \"global_symbol\": "
            "\"other\"})\n"
            "        return y\n");
}

TEST(PrinterModuleTest, MemberOrderPrimFuncsExternFuncsFunctionsMainLast) {
  IRModule mod;
  Var x = MakeVar("x", Tensor({I(4)}));
  AddPublic(&mod, "main", Func({x}, Seq({}, x), x->struct_info()));
  Var y = MakeVar("y", Tensor({I(4)}));
  AddPublic(&mod, "b_func", Func({y}, Seq({}, y), y->struct_info()));
  AddMember(&mod, "z_ext", Extern("z_sym"));
  AddMember(&mod, "tir_b", pipesplit::testing::EvaluatePrimFunc("tir_b"));
  {
    // tir_a(A: T.Buffer((4,), "float32")): for i in range(4): A[i] = T.float32(0)
    PrimExpr four = IntImm(4, DataType::Int(32));
    Buffer a = MakeBuffer("A", DataType::Float(32), {four});
    TirVar handle = MakeTirVar("A", DataType::Handle());
    TirVar i = MakeTirVar("i", DataType::Int(32));
    PrimFuncNode::Fields f;
    f.name = "tir_a";
    f.params = {handle};
    f.buffer_map = {{handle, a}};
    f.body =
        ir::Make<ForNode>(i, IntImm(0, DataType::Int(32)), four, ForKind::kSerial,
                          ir::Make<BufferStoreNode>(a, FloatImm(0.0), std::vector<PrimExpr>{i}));
    f.is_private = true;
    AddMember(&mod, "tir_a", ir::Make<PrimFuncNode>(std::move(f)));
  }
  Var w = MakeVar("w", Tensor({I(4)}));
  AddPublic(&mod, "a_func", Func({w}, Seq({}, w), w->struct_info()));
  mod.set_has_omitted_metadata(true);
  EXPECT_EQ(PrintModule(mod),
            "# from tvm.script import ir as I\n"
            "# from tvm.script import tirx as T\n"
            "# from tvm.tirx.layout import Axis\n"
            "# from tvm.script import relax as R\n"
            "\n"
            "@I.ir_module\n"
            "class Module:\n"
            "    @T.prim_func(private=True)\n"
            "    def tir_a(A: T.Buffer((4,), \"float32\")):\n"
            "        for i in range(4):\n"
            "            A[i] = T.float32(0)\n"
            "\n"
            "    @T.prim_func\n"
            "    def tir_b():\n"
            "        T.evaluate(0)\n"
            "\n"
            "    z_ext = R.ExternFunc(\"z_sym\")\n"
            "    @R.function\n"
            "    def a_func(w: R.Tensor((4,), dtype=\"float32\")) -> "
            "R.Tensor((4,), dtype=\"float32\"):\n"
            "        return w\n"
            "\n"
            "    @R.function\n"
            "    def b_func(y: R.Tensor((4,), dtype=\"float32\")) -> "
            "R.Tensor((4,), dtype=\"float32\"):\n"
            "        return y\n"
            "\n"
            "    @R.function\n"
            "    def main(x: R.Tensor((4,), dtype=\"float32\")) -> "
            "R.Tensor((4,), dtype=\"float32\"):\n"
            "        return x\n"
            "\n"
            "# Metadata omitted. Use show_meta=True in script() method to show it.\n");
}

TEST(PrinterModuleTest, LegacyTirHeaderAndPrimFunc) {
  IRModule mod;
  AddMember(&mod, "k", pipesplit::testing::EvaluatePrimFunc("k"));
  ScriptStyle style;
  style.legacy_tir_header = true;
  mod.set_script_style(style);
  EXPECT_EQ(PrintModule(mod),
            "# from tvm.script import ir as I\n"
            "# from tvm.script import tir as T\n"
            "\n"
            "@I.ir_module\n"
            "class Module:\n"
            "    @T.prim_func\n"
            "    def k():\n"
            "        T.evaluate(0)\n");
  PrintOptions modern;
  modern.legacy_tir_header = false;
  EXPECT_NE(PrintModule(mod, modern).find("tirx as T\n# from tvm.tirx.layout import Axis\n"),
            std::string::npos);
}

TEST(PrinterModuleTest, EmptyModulePrintsPass) {
  IRModule mod;
  EXPECT_EQ(PrintModule(mod),
            "# from tvm.script import ir as I\n\n@I.ir_module\nclass Module:\n    pass\n");
}

TEST(PrinterModuleTest, ModuleAttrsAndGlobalInfos) {
  IRModule mod;
  mod.set_attrs({{"param_num", 1}, {"attr", 10}});
  AttrCall vdev{"I.vdevice",
                {AttrMap{{"tag", ""}, {"kind", "llvm"}, {"keys", AttrList{"cpu"}}}, 0, "global"},
                {}};
  mod.set_global_infos({{"vdevice", AttrList{AttrValue(vdev)}}});
  EXPECT_EQ(PrintModule(mod),
            "# from tvm.script import ir as I\n"
            "\n"
            "@I.ir_module\n"
            "class Module:\n"
            "    I.module_attrs({\"attr\": 10, \"param_num\": 1})\n"
            "    I.module_global_infos({\"vdevice\": [I.vdevice({\"keys\": [\"cpu\"], \"kind\": "
            "\"llvm\", \"tag\": \"\"}, 0, \"global\")]})\n");
}

// Signature dims mentioning symbolic vars are strings; declarations follow the order of first
// appearance (return type, then params); a var first seen in the body is declared after
// R.func_attr; `cls = Module` comes where the first GlobalVar is printed.
TEST(PrinterModuleTest, SymbolicVarsAndModuleAlias) {
  IRModule mod;
  TirVar n = MakeTirVar("n");
  TirVar m = MakeTirVar("m");
  TirVar k = MakeTirVar("k");
  Var x = MakeVar("x", Tensor({I(1), n}));
  Var s = MakeVar("s", Shape({m}));
  PrimExpr n2 = Bin(BinaryOp::kMul, n, I(2));
  Var helper_p = MakeVar("p", Tensor({I(4)}));
  GlobalVar helper =
      AddPublic(&mod, "helper", Func({helper_p}, Seq({}, helper_p), helper_p->struct_info()));
  Var y = MakeVar("y", Tensor({k}));
  Var lv = MakeVar("lv", Tensor({I(4)}));
  Var z = MakeVar("z", Tensor({n2}));
  Expr body = Seq({Block({Cast(y, x, Tensor({k})), Bind(lv, CallExpr(helper, {x}, Tensor({I(4)}))),
                          Bind(z, OpCall("relax.reshape", {x, ShapeOf({n2})}, Tensor({n2})))})},
                  z);
  AddPublic(&mod, "main", Func({x, s}, body, Tensor({n2}), {{"num_input", 1}}));
  EXPECT_EQ(PrintModule(mod),
            "# from tvm.script import ir as I\n"
            "# from tvm.script import tirx as T\n"
            "# from tvm.tirx.layout import Axis\n"
            "# from tvm.script import relax as R\n"
            "\n"
            "@I.ir_module\n"
            "class Module:\n"
            "    @R.function\n"
            "    def helper(p: R.Tensor((4,), dtype=\"float32\")) -> "
            "R.Tensor((4,), dtype=\"float32\"):\n"
            "        return p\n"
            "\n"
            "    @R.function\n"
            "    def main(x: R.Tensor((1, \"n\"), dtype=\"float32\"), s: R.Shape([\"m\"])) -> "
            "R.Tensor((\"n * 2\",), dtype=\"float32\"):\n"
            "        n = T.int64()\n"
            "        m = T.int64()\n"
            "        R.func_attr({\"num_input\": 1})\n"
            "        k = T.int64()\n"
            "        cls = Module\n"
            "        y: R.Tensor((k,), dtype=\"float32\") = R.match_cast(x, "
            "R.Tensor((k,), dtype=\"float32\"))\n"
            "        lv: R.Tensor((4,), dtype=\"float32\") = cls.helper(x)\n"
            "        z: R.Tensor((n * 2,), dtype=\"float32\") = R.reshape(x, R.shape([n * 2]))\n"
            "        return z\n");
}

TEST(PrinterModuleTest, SizeVarAndInt32VarDeclarations) {
  IRModule mod;
  auto n = ir::Make<TirVarNode>("n", DataType::Int(64), /*is_size_var=*/true);
  TirVar c = MakeTirVar("c", DataType::Int(32));
  Var x = MakeVar("x", Tensor({n}));
  Var p = MakeVar("p", Prim("int32", c));
  AddPublic(&mod, "f", Func({x, p}, Seq({}, x), x->struct_info()));
  std::string text = PrintModule(mod);
  EXPECT_NE(text.find("    def f(x: R.Tensor((\"n\",), dtype=\"float32\"), p: "
                      "R.Prim(value=\"c\")) -> R.Tensor((\"n\",), dtype=\"float32\"):\n"
                      "        n = T.int64(is_size_var=True)\n"
                      "        c = T.int32()\n"
                      "        return x\n"),
            std::string::npos)
      << text;
}

TEST(PrinterModuleTest, MetadataReferenceAddsNote) {
  IRModule mod;
  Var x = MakeVar("x", Tensor({I(2)}));
  Var y = MakeVar("y", Tensor({I(2)}));
  auto c = ir::Make<ConstantNode>(3, Tensor({I(2)}));
  AddPublic(&mod, "main",
            Func({x}, Seq({Block({Bind(y, OpCall("relax.add", {x, c}, Tensor({I(2)})))})}, y),
                 y->struct_info()));
  std::string text = PrintModule(mod);
  EXPECT_NE(text.find("R.add(x, metadata[\"relax.expr.Constant\"][3])"), std::string::npos) << text;
  EXPECT_TRUE(text.ends_with(
      "        return y\n\n# Metadata omitted. Use show_meta=True in script() method to show "
      "it.\n"))
      << text;
}

}  // namespace
}  // namespace pipesplit::script
