// Parser regressions found by the fuzz targets (fuzz/): each input once printed text that did not
// parse, or parsed into something other than what was printed.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "pipesplit/ir/prim_expr.h"
#include "pipesplit/script/printer.h"
#include "tests/script/parser/parser_test_util.h"

namespace pipesplit::script {
namespace {

using testing::Parse;
using testing::ParseError;

constexpr const char* kModule = "@I.ir_module\nclass Module:\n";

// A Relax function f(x: R.Shape(["k", "m"])) with int64 k, m; `lines` start on line 7.
std::string ShapeFunction(const std::string& lines) {
  return std::string(kModule) +
         "    @R.function\n"
         "    def f(x: R.Shape([\"k\", \"m\"])):\n"
         "        k = T.int64()\n"
         "        m = T.int64()\n" +
         lines;
}

// A prim_func k(A: (4,) float32) whose body starts on line 5.
std::string Kernel(const std::string& body) {
  return std::string(kModule) +
         "    @T.prim_func\n"
         "    def k(A: T.Buffer((4,), \"float32\")):\n" +
         body;
}

void ExpectPrintIsFixedPoint(const ir::IRModule& mod) {
  const std::string printed = PrintModule(mod);
  EXPECT_EQ(PrintModule(Parse(printed)), printed);
}

// fuzz_tir: a non-finite float immediate prints as T.float32("-inf") inside a kernel, which the
// TIR expression parser did not read.
TEST(ParserFuzzRegression, NonFiniteFloatImmediatesInsideTir) {
  ir::IRModule mod =
      Parse(Kernel("        A[0] = T.Cast(\"float32\", T.float32(\"-inf\") + T.float32(38))\n"
                   "        A[1] = T.float32(\"inf\")\n"
                   "        A[2] = T.float32(\"nan\")\n"));
  const std::string printed = PrintModule(mod);
  EXPECT_NE(printed.find("T.float32(\"-inf\") + T.float32(38)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("A[2] = T.float32(\"nan\")"), std::string::npos) << printed;
  ExpectPrintIsFixedPoint(mod);
}

TEST(ParserFuzzRegression, StringImmediateNeedsAFloatAndAKnownValue) {
  EXPECT_EQ(ParseError(Kernel("        A[0] = T.Cast(\"float32\", T.int32(\"inf\"))\n")),
            "test.py:5:42: error: T.int32 of a string takes \"inf\", \"-inf\" or \"nan\" and a "
            "float dtype");
  EXPECT_EQ(ParseError(Kernel("        A[0] = T.float32(\"big\")\n")),
            "test.py:5:26: error: T.float32 of a string takes \"inf\", \"-inf\" or \"nan\" and a "
            "float dtype");
}

// fuzz_roundtrip: T.Add(k, T.int32(0)) in a shape was an opaque call "Add" with an int32
// operand, printed with a bare 0 that reads back as int64. T.Add is TVM's node constructor:
// it builds the Add node, and its operands must have one dtype (a Python number takes the
// other's).
TEST(ParserFuzzRegression, NodeConstructorsBuildBinaryNodesOfOneDType) {
  ir::IRModule mod =
      Parse(ShapeFunction("        return R.shape([T.Add(k, 0), T.FloorDiv(m, 1), 2])\n"));
  const std::string printed = PrintModule(mod);
  EXPECT_NE(printed.find("R.shape([T.Add(k, 0), T.FloorDiv(m, 1), 2])"), std::string::npos)
      << printed;
  ExpectPrintIsFixedPoint(mod);
  EXPECT_EQ(ParseError(ShapeFunction("        return R.shape([T.Add(k, T.int32(0)), m])\n")),
            "test.py:7:25: error: T.Add needs operands of one dtype, not int64 and int32");
}

TEST(ParserFuzzRegression, TirNodeConstructorsNeedOneDType) {
  ir::IRModule mod = Parse(Kernel("        A[0] = T.Add(A[1], T.float32(0))\n"));
  const std::string printed = PrintModule(mod);
  EXPECT_EQ(PrintModule(Parse(printed)), printed);
  EXPECT_EQ(ParseError(Kernel("        A[0] = T.Mul(A[1], T.float16(2))\n")),
            "test.py:5:16: error: T.Mul needs operands of one dtype, not float32 and float16");
}

// fuzz_rewrite: TVM prints a symbolic value holding a string (T.Cast's dtype) with escaped
// quotes, R.Prim(value="T.Cast(\"int64\", n) * m"), which the string-dimension parser refused.
TEST(ParserFuzzRegression, StringDimensionWithEscapedQuotes) {
  ir::IRModule mod =
      Parse(std::string(kModule) +
            "    @R.function\n"
            "    def f(n: R.Prim(value=\"n\"), x: R.Tensor((\"m\",), dtype=\"float32\")) -> "
            "R.Prim(value=\"T.Cast(\\\"int64\\\", n) * m\"):\n"
            "        n = T.int32()\n"
            "        m = T.int64()\n"
            "        return R.prim_value(T.Cast(\"int64\", n) * m)\n");
  const std::string printed = PrintModule(mod);
  EXPECT_NE(printed.find("-> R.Prim(value=\"T.Cast(\\\"int64\\\", n) * m\")"), std::string::npos)
      << printed;
  ExpectPrintIsFixedPoint(mod);
}

TEST(ParserFuzzRegression, StringDimensionEscapesOnlyItsQuote) {
  EXPECT_EQ(
      ParseError(std::string(kModule) + "    @R.function\n"
                                        "    def f(x: R.Tensor((\"m\\n\",), dtype=\"float32\")):\n"
                                        "        return x\n"),
      "test.py:4:24: error: a symbolic dimension may escape only its own quote");
}

// fuzz_roundtrip: a typed constant in a shape (`Nw = T.int32(4)` used as a dimension) stayed
// int32 and printed bare, reading back as int64. TVM's ShapeExpr makes constant dims int64;
// a non-constant dim of another type is an error.
TEST(ParserFuzzRegression, ConstantShapeDimsBecomeInt64) {
  ir::IRModule mod = testing::Parse(
      "@I.ir_module\nclass Module:\n"
      "    @R.function\n"
      "    def f(w: R.Tensor(\"float32\", ndim=2)):\n"
      "        n = T.int32(4)\n"
      "        lv = R.match_cast(w, R.Tensor((n, T.int16(2)), \"float32\"))\n"
      "        return lv\n");
  const std::string printed = PrintModule(mod);
  EXPECT_NE(printed.find("R.match_cast(w, R.Tensor((4, 2), dtype=\"float32\"))"), std::string::npos)
      << printed;
  EXPECT_EQ(PrintModule(testing::Parse(printed)), printed);
  EXPECT_EQ(testing::ParseError("@I.ir_module\nclass Module:\n"
                                "    @R.function\n"
                                "    def f(w: R.Tensor(\"float32\", ndim=1)):\n"
                                "        m = T.int64()\n"
                                "        lv = R.match_cast(w, R.Tensor((T.Cast(\"int32\", m),), "
                                "\"float32\"))\n"
                                "        return lv\n"),
            "test.py:6:40: error: a shape dimension must be int64, not int32");
}

// fuzz_rewrite: slicing with the int32 var of an R.Prim parameter inferred an int32 dimension
// (the arithmetic core looked through the widening casts and dropped them), which no shape may
// hold. Dims stay int64, the cast kept on the var.
TEST(ParserFuzzRegression, SliceByAnInt32VarKeepsInt64Dims) {
  ir::IRModule mod = testing::Parse(
      "@I.ir_module\nclass Module:\n"
      "    @R.function\n"
      "    def f(r: R.Prim(value=\"rank\"), A: R.Tensor((16, 16), \"float32\")):\n"
      "        rank = T.int32()\n"
      "        B = R.strided_slice(A, axes=[0], begin=[rank * 6], end=[(rank + 1) * 8], "
      "assume_inbound=True)\n"
      "        return B\n");
  const std::string printed = PrintModule(mod);
  EXPECT_NE(printed.find("R.Tensor((T.Cast(\"int64\", rank) * 2 + 8, 16), dtype=\"float32\")"),
            std::string::npos)
      << printed;
  EXPECT_EQ(PrintModule(testing::Parse(printed)), printed);
}

// fuzz_roundtrip: R.to_vdevice to a device the module does not declare typed its result with
// that device, which an annotation drops (as TVM does): the reprint differed. It is an error.
TEST(ParserFuzzRegression, ToAnUndeclaredVDeviceIsAnError) {
  EXPECT_EQ(testing::ParseError("@I.ir_module\nclass Module:\n"
                                "    I.module_global_infos({\"vdevice\": [I.vdevice(\"cuda\")]})\n"
                                "    @R.function\n"
                                "    def foo(x: R.Tensor((), \"int32\")):\n"
                                "        y = R.to_vdevice(x, \"llvm\")\n"
                                "        return y\n"),
            "test.py:6:29: error: R.to_vdevice: no vdevice 'llvm' among the module's "
            "I.module_global_infos");
}

// fuzz_roundtrip: R.arange up to the value of an int65 var computed its length with mixed
// int65/int64 operands (printed in call form, read back matched). Bounds are cast to int64.
TEST(ParserFuzzRegression, ArangeLengthIsComputedInInt64) {
  ir::IRModule mod = testing::Parse(
      "@I.ir_module\nclass Module:\n"
      "    @R.function\n"
      "    def f(x: R.Tensor((\"f\",), \"float32\")):\n"
      "        n = T.int32()\n"
      "        gv = R.arange(2, R.prim_value(n), 2)\n"
      "        return gv\n");
  const std::string printed = PrintModule(mod);
  EXPECT_NE(printed.find("R.Tensor(((T.Cast(\"int64\", n) - 1) // 2,), dtype=\"int64\")"),
            std::string::npos)
      << printed;
  EXPECT_EQ(PrintModule(testing::Parse(printed)), printed);
}

// fuzz_roundtrip: a float attribute that overflows to infinity (epsilon=1e310) prints quoted,
// epsilon="inf", which read back as a string attribute.
TEST(ParserFuzzRegression, NonFiniteFloatAttributesReadBackAsFloats) {
  ir::IRModule mod = testing::Parse(
      "@I.ir_module\nclass Module:\n"
      "    @R.function\n"
      "    def f(x: R.Tensor((2, 4), \"float32\"), w: R.Tensor((4,), \"float32\")):\n"
      "        y = R.nn.rms_norm(x, w, axes=[-1], epsilon=1e310)\n"
      "        return y\n");
  const std::string printed = PrintModule(mod);
  EXPECT_NE(printed.find("epsilon=\"inf\""), std::string::npos) << printed;
  ir::IRModule again = testing::Parse(printed);
  EXPECT_EQ(PrintModule(again), printed);
  const auto& call = static_cast<const ir::CallNode&>(
      *static_cast<const ir::VarBindingNode&>(
           *testing::Body(testing::GetFunction(again, "f")).blocks()[0]->bindings()[0])
           .value());
  const ir::AttrValue* epsilon = nullptr;
  for (const auto& [name, value] : call.attrs()) {
    if (name == "epsilon") epsilon = &value;
  }
  ASSERT_NE(epsilon, nullptr);
  ASSERT_NE(epsilon->as_float(), nullptr);
  EXPECT_TRUE(std::isinf(*epsilon->as_float()));
}

}  // namespace
}  // namespace pipesplit::script
