// Printer tests on bindings and blocks, classic syntax: dataflow blocks and R.output,
// annotations (hidden for call_tir / call_dps_packed), match_cast, if/else, void calls, tuples,
// nested functions, name de-duplication.
#include <gtest/gtest.h>

#include "pipesplit/ir/block_builder.h"
#include "pipesplit/script/printer.h"
#include "tests/ir/tir_test_util.h"
#include "tests/script/printer/printer_test_util.h"

namespace pipesplit::script {
namespace {

using namespace testing;  // NOLINT

// The text of `main` only (between its decorator and the end of the module).
std::string MainText(const IRModule& mod, const PrintOptions& options = {}) {
  std::string text = PrintModule(mod, options);
  size_t pos = text.find("    @R.function");
  return pos == std::string::npos ? text : text.substr(pos);
}

TEST(PrinterBindingTest, DataflowBlockWithCallTir) {
  IRModule mod;
  GlobalVar kernel = AddMember(&mod, "kernel", pipesplit::testing::EvaluatePrimFunc("kernel"));
  TirVar n = MakeTirVar("n");
  Var x = MakeVar("x", Tensor({n, I(4)}));
  BlockBuilder bb;
  bb.BeginScope({x});
  bb.BeginDataflowBlock();
  StructInfo out = Tensor({n, I(4)});
  // Annotation hidden: the var's struct info is the declared output.
  Var lv = bb.Emit(OpCall("relax.call_tir", {kernel, TupleOf({x})}, out, {}, {out}), "lv");
  // Annotation kept: the var is declared with another (compatible) struct info.
  Var lv1 = MakeVar("lv1", TensorNdim(2), /*is_dataflow=*/true);
  bb.EmitNormalized(
      Bind(lv1, OpCall("relax.call_tir", {kernel, TupleOf({lv}), ShapeOf({n})}, out, {}, {out})));
  StructInfo pair = TupleSInfo({Tensor({I(2)}), Tensor({I(3)})});
  Var gv = MakeVar("gv", pair);
  bb.EmitNormalized(
      Bind(gv, OpCall("relax.call_tir", {kernel, TupleOf({lv1, x})}, pair, {}, {pair})));
  BindingBlock block = bb.EndBlock();
  bb.EndScope();
  AddPublic(&mod, "main", Func({x}, Seq({block}, gv), pair));
  EXPECT_EQ(MainText(mod),
            "    @R.function\n"
            "    def main(x: R.Tensor((\"n\", 4), dtype=\"float32\")) -> "
            "R.Tuple(R.Tensor((2,), dtype=\"float32\"), R.Tensor((3,), dtype=\"float32\")):\n"
            "        n = T.int64()\n"
            "        cls = Module\n"
            "        with R.dataflow():\n"
            "            lv = R.call_tir(cls.kernel, (x,), out_sinfo=R.Tensor((n, 4), "
            "dtype=\"float32\"))\n"
            "            lv1: R.Tensor(dtype=\"float32\", ndim=2) = R.call_tir(cls.kernel, (lv,), "
            "out_sinfo=R.Tensor((n, 4), dtype=\"float32\"), tir_vars=R.shape([n]))\n"
            "            gv = R.call_tir(cls.kernel, (lv1, x), out_sinfo=[R.Tensor((2,), "
            "dtype=\"float32\"), R.Tensor((3,), dtype=\"float32\")])\n"
            "            R.output(gv)\n"
            "        return gv\n");
}

TEST(PrinterBindingTest, PackedCallsAndInplace) {
  IRModule mod;
  GlobalVar kernel = AddMember(&mod, "kernel", pipesplit::testing::EvaluatePrimFunc("kernel"));
  Var x = MakeVar("x", Tensor({I(8)}));
  StructInfo t8 = Tensor({I(8)});
  Var a = MakeVar("a", t8);
  Var b = MakeVar("b", ObjectSInfo());
  Var c = MakeVar("c", t8);
  Var d = MakeVar("d", t8);
  Var e = MakeVar("e", t8);
  Var f = MakeVar("f", t8);
  auto packed =
      ir::Make<CallNode>(Extern("vm.builtin.copy"), std::vector<Expr>{x, PrimVal(I(0))}, AttrMap{},
                         std::vector<StructInfo>{ObjectSInfo()}, ObjectSInfo());
  auto packed_void = ir::Make<CallNode>(Extern("vm.builtin.print"), std::vector<Expr>{x}, AttrMap{},
                                        std::vector<StructInfo>{}, VoidSInfo());
  Var v = MakeVar("v", VoidSInfo());
  Expr body = Seq(
      {Block(
          {Bind(a, OpCall("relax.call_dps_packed", {Extern("my_dps"), TupleOf({x})}, t8, {}, {t8})),
           Bind(b, packed), Bind(v, packed_void),
           Bind(c, OpCall("relax.call_pure_packed", {Extern("f"), x, a}, t8, {}, {t8})),
           Bind(d, OpCall("relax.call_tir_inplace", {kernel, TupleOf({x, a})}, t8,
                          {{"inplace_indices", AttrList{0}}}, {t8})),
           Bind(e, OpCall("relax.call_builtin_with_ctx", {Extern("vm.builtin.f"), TupleOf({x})}, t8,
                          {}, {t8})),
           Bind(f, OpCall("relax.nn.softmax", {e}, t8, {{"axis", -1}}))})},
      f);
  AddPublic(&mod, "main", Func({x}, body, t8, {}, /*pure=*/false));
  EXPECT_EQ(MainText(mod),
            "    @R.function(pure=False)\n"
            "    def main(x: R.Tensor((8,), dtype=\"float32\")) -> R.Tensor((8,), "
            "dtype=\"float32\"):\n"
            "        cls = Module\n"
            "        a = R.call_dps_packed(\"my_dps\", (x,), out_sinfo=R.Tensor((8,), "
            "dtype=\"float32\"))\n"
            "        b: R.Object = R.call_packed(\"vm.builtin.copy\", x, R.prim_value(0), "
            "sinfo_args=(R.Object,))\n"
            "        R.call_packed(\"vm.builtin.print\", x)\n"
            "        c: R.Tensor((8,), dtype=\"float32\") = R.call_pure_packed(\"f\", x, a, "
            "sinfo_args=(R.Tensor((8,), dtype=\"float32\"),))\n"
            "        d: R.Tensor((8,), dtype=\"float32\") = R.call_tir_inplace(cls.kernel, (x, a), "
            "out_sinfo=R.Tensor((8,), dtype=\"float32\"), inplace_indices=[0])\n"
            "        e: R.Tensor((8,), dtype=\"float32\") = R.call_builtin_with_ctx("
            "\"vm.builtin.f\", (x,), sinfo_args=(R.Tensor((8,), dtype=\"float32\"),))\n"
            "        f: R.Tensor((8,), dtype=\"float32\") = R.nn.softmax(e, axis=-1)\n"
            "        return f\n");
}

TEST(PrinterBindingTest, TuplesAndExpressions) {
  IRModule mod;
  StructInfo t = Tensor({I(2)}, "int32");
  Var x = MakeVar("x", t);
  Expr pair = TupleOf({x, x});
  Var p = MakeVar("p", pair->struct_info());
  Expr one = TupleOf({x});
  Var q = MakeVar("q", one->struct_info());
  Var nest = MakeVar("nest", TupleSInfo({t, pair->struct_info()}));
  Var g = MakeVar("g", t);
  Var e = MakeVar("e", VoidSInfo());
  Var s = MakeVar("s", ObjectSInfo());
  Var dt = MakeVar("dt", ObjectSInfo());
  Var k = MakeVar("k", Tensor({}, "float32"));
  Expr consts = TupleOf({ir::Make<ConstantNode>(ConstantNode::Scalar(0.1), Dt("float32")),
                         ir::Make<ConstantNode>(ConstantNode::Scalar(int64_t{3}), Dt("int32")),
                         ir::Make<ConstantNode>(ConstantNode::Scalar(true), Dt("bool")),
                         ir::Make<ConstantNode>(ConstantNode::Scalar(2.0), Dt("float16"))});
  Var cs = MakeVar("cs", consts->struct_info());
  Expr body =
      Seq({Block({Bind(p, pair), Bind(q, one), Bind(nest, TupleOf({x, p})), Bind(g, GetItem(p, 1)),
                  Bind(e, TupleOf({})), Bind(s, Str("a\"b\\c\n\xc3\xa9")),
                  Bind(dt, ir::Make<DataTypeImmNode>(Dt("float16"))),
                  Bind(k, OpCall("relax.add", {x, x}, Tensor({}, "float32"))), Bind(cs, consts)})},
          TupleOf({g, q}));
  AddPublic(&mod, "main", Func({x}, body, TupleSInfo({t, one->struct_info()})));
  EXPECT_EQ(MainText(mod),
            "    @R.function\n"
            "    def main(x: R.Tensor((2,), dtype=\"int32\")) -> R.Tuple(R.Tensor((2,), "
            "dtype=\"int32\"), R.Tuple(R.Tensor((2,), dtype=\"int32\"))):\n"
            "        p: R.Tuple(R.Tensor((2,), dtype=\"int32\"), R.Tensor((2,), "
            "dtype=\"int32\")) = x, x\n"
            "        q: R.Tuple(R.Tensor((2,), dtype=\"int32\")) = (x,)\n"
            "        nest: R.Tuple(R.Tensor((2,), dtype=\"int32\"), R.Tuple(R.Tensor((2,), "
            "dtype=\"int32\"), R.Tensor((2,), dtype=\"int32\"))) = x, p\n"
            "        g: R.Tensor((2,), dtype=\"int32\") = p[1]\n"
            "        R.tuple()\n"
            "        s: R.Object = R.str(\"a\\\"b\\\\c\\n\\xC3\\xA9\")\n"
            "        dt: R.Object = R.dtype(\"float16\")\n"
            "        k: R.Tensor((), dtype=\"float32\") = R.add(x, x)\n"
            "        cs: R.Tuple(R.Tensor((), dtype=\"float32\"), R.Tensor((), dtype=\"int32\"), "
            "R.Tensor((), dtype=\"bool\"), R.Tensor((), dtype=\"float16\")) = "
            "R.const(0.10000000149011612, \"float32\"), R.const(3, \"int32\"), "
            "R.const(True, \"bool\"), R.const(2.0, \"float16\")\n"
            "        return (g, q)\n");
}

TEST(PrinterBindingTest, IfElseBindsTheSameVarInBothBranches) {
  IRModule mod;
  StructInfo t = Tensor({I(3)});
  Var cond = MakeVar("cond", Tensor({}, "bool"));
  Var x = MakeVar("x", t);
  Var lv1 = MakeVar("lv1", t);
  Var lv1b = MakeVar("lv1", t);
  Var r_inner = MakeVar("r", t);
  Var r = MakeVar("r", t);
  Expr then_branch = Seq({Block({Bind(lv1, OpCall("relax.add", {x, x}, t))})}, lv1);
  Expr else_branch =
      Seq({Block({Bind(lv1b, OpCall("relax.multiply", {x, x}, t)), Bind(r_inner, lv1b)})}, r_inner);
  auto if_node = ir::Make<IfNode>(cond, then_branch, else_branch, t);
  AddPublic(&mod, "main", Func({cond, x}, Seq({Block({Bind(r, if_node)})}, r), t));
  EXPECT_EQ(MainText(mod),
            "    @R.function\n"
            "    def main(cond: R.Tensor((), dtype=\"bool\"), x: R.Tensor((3,), "
            "dtype=\"float32\")) -> R.Tensor((3,), dtype=\"float32\"):\n"
            "        if cond:\n"
            "            lv1: R.Tensor((3,), dtype=\"float32\") = R.add(x, x)\n"
            "            r: R.Tensor((3,), dtype=\"float32\") = lv1\n"
            "        else:\n"
            "            lv1: R.Tensor((3,), dtype=\"float32\") = R.multiply(x, x)\n"
            "            r_1: R.Tensor((3,), dtype=\"float32\") = lv1\n"
            "            r: R.Tensor((3,), dtype=\"float32\") = r_1\n"
            "        return r\n");
}

TEST(PrinterBindingTest, NestedFunctionGetsHeaderAndBlankLine) {
  IRModule mod;
  StructInfo t = Tensor({}, "int32");
  Var x = MakeVar("x", t);
  Var y = MakeVar("y", t);
  Function nested = Func({y}, Seq({}, y), t);
  Var nested_var = MakeVar("nested", nested->struct_info());
  Var z = MakeVar("z", t);
  Expr body = Seq({Block({Bind(nested_var, nested), Bind(z, CallExpr(nested_var, {x}, t))})}, z);
  AddPublic(&mod, "main", Func({x}, body, t));
  EXPECT_EQ(MainText(mod),
            "    @R.function\n"
            "    def main(x: R.Tensor((), dtype=\"int32\")) -> R.Tensor((), dtype=\"int32\"):\n"
            "        # from tvm.script import relax as R\n"
            "        \n"
            "        @R.function\n"
            "        def nested(y: R.Tensor((), dtype=\"int32\")) -> R.Tensor((), "
            "dtype=\"int32\"):\n"
            "            return y\n"
            "\n"
            "        z: R.Tensor((), dtype=\"int32\") = nested(x)\n"
            "        return z\n");
}

TEST(PrinterBindingTest, NamesAreDeduplicatedSanitizedAndReserved) {
  IRModule mod;
  StructInfo t = Tensor({I(1)});
  Var x = MakeVar("x", t);
  Var x2 = MakeVar("x", t);
  Var r = MakeVar("R", t);
  Var cls = MakeVar("cls", t);
  Var module = MakeVar("Module", t);
  Var dash = MakeVar("a-b.c", t);
  Var empty = MakeVar("", t);
  Var lit = MakeVar("x_1", t);
  Var x3 = MakeVar("x", t);
  Expr body = Seq({Block({Bind(x2, x), Bind(r, x), Bind(cls, x), Bind(module, x), Bind(dash, x),
                          Bind(empty, x), Bind(lit, x), Bind(x3, x)})},
                  x3);
  AddPublic(&mod, "main", Func({x}, body, t));
  std::string text = MainText(mod);
  const char* expected =
      "        x_1: R.Tensor((1,), dtype=\"float32\") = x\n"
      "        R_1: R.Tensor((1,), dtype=\"float32\") = x\n"
      "        cls_1: R.Tensor((1,), dtype=\"float32\") = x\n"
      "        Module_1: R.Tensor((1,), dtype=\"float32\") = x\n"
      "        a_b_c: R.Tensor((1,), dtype=\"float32\") = x\n"
      "        v: R.Tensor((1,), dtype=\"float32\") = x\n"
      "        x_1_1: R.Tensor((1,), dtype=\"float32\") = x\n"
      "        x_2: R.Tensor((1,), dtype=\"float32\") = x\n"
      "        return x_2\n";
  EXPECT_NE(text.find(expected), std::string::npos) << text;
}

TEST(PrinterBindingTest, FreeVarIsDeclaredWhereFirstUsed) {
  // Ill-formed input (a var used without definition) still prints, as TVM does.
  IRModule mod;
  StructInfo t = Tensor({I(1)});
  Var x = MakeVar("x", t);
  Var ghost = MakeVar("ghost", t);
  Var y = MakeVar("y", t);
  AddPublic(&mod, "main",
            Func({x}, Seq({Block({Bind(y, OpCall("relax.add", {x, ghost}, t))})}, y), t));
  EXPECT_EQ(MainText(mod),
            "    @R.function\n"
            "    def main(x: R.Tensor((1,), dtype=\"float32\")) -> R.Tensor((1,), "
            "dtype=\"float32\"):\n"
            "        ghost: R.Tensor((1,), dtype=\"float32\")\n"
            "        y: R.Tensor((1,), dtype=\"float32\") = R.add(x, ghost)\n"
            "        return y\n");
}

TEST(PrinterBindingTest, PrintAndAssertOpFormatByKeyword) {
  IRModule mod;
  Var x = MakeVar("x", Tensor({}, "int32"));
  Var v1 = MakeVar("v1", VoidSInfo());
  Var v2 = MakeVar("v2", VoidSInfo());
  Expr cond = ir::Make<ConstantNode>(ConstantNode::Scalar(false), Dt("bool"));
  Expr body =
      Seq({Block({Bind(v1, OpCall("relax.print", {Str("x: {}"), x}, VoidSInfo())),
                  Bind(v2, OpCall("relax.assert_op", {cond, Str("fail {}"), x}, VoidSInfo()))})},
          x);
  AddPublic(&mod, "main", Func({x}, body, x->struct_info(), {}, /*pure=*/false));
  std::string text = MainText(mod);
  EXPECT_NE(
      text.find("        R.print(x, format=R.str(\"x: {}\"))\n"
                "        R.assert_op(R.const(False, \"bool\"), x, format=R.str(\"fail {}\"))\n"),
      std::string::npos)
      << text;
}

}  // namespace
}  // namespace pipesplit::script
