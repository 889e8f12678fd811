// TIR as TVM prints it since 2026 (`with T.sblock(...)`, `T.sblock_alloc_buffer`,
// `T.sblock_attr`, `@T.prim_func(s_tir=True)`) beside the 2023 spelling (`T.block`): each parses
// and prints back in its own spelling, PrintOptions::tir_syntax converts, and a block written
// without T.reads / T.writes gets the regions TVM's parser infers.
#include <gtest/gtest.h>

#include <string>

#include "pipesplit/ir/tir.h"
#include "pipesplit/script/printer.h"
#include "tests/script/parser/parser_test_util.h"

namespace pipesplit::script {
namespace {

using testing::Parse;
using testing::ParseError;

// The same module in both spellings, as TVM prints each.
constexpr const char* kBlockSpelling =
    "# from tvm.script import ir as I\n"
    "# from tvm.script import tir as T\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func(private=True)\n"
    "    def add(A: T.Buffer((16, 16), \"float32\"), B: T.Buffer((16, 16), \"float32\")):\n"
    "        # with T.block(\"root\"):\n"
    "        C = T.alloc_buffer((16, 16))\n"
    "        for i, j in T.grid(16, 16):\n"
    "            with T.block(\"C\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                T.reads(A[vi, vj])\n"
    "                T.writes(C[vi, vj])\n"
    "                T.block_attr({\"schedule_rule\": \"none\"})\n"
    "                D = T.alloc_buffer((1,))\n"
    "                D[0] = A[vi, vj] + T.float32(1)\n"
    "                C[vi, vj] = D[0]\n"
    "        for i, j in T.grid(16, 16):\n"
    "            with T.block(\"B\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                T.reads(C[vi, vj])\n"
    "                T.writes(B[vi, vj])\n"
    "                x: T.float32 = C[vi, vj] * T.float32(0.5)\n"
    "                B[vi, vj] = x\n";

// The header and class line TVM prints above a module in the 2026 TIR spelling.
#define PS_TEST_SBLOCK_HEADER            \
  "# from tvm.script import ir as I\n"   \
  "# from tvm.script import tirx as T\n" \
  "# from tvm.tirx.layout import Axis\n" \
  "\n"                                   \
  "@I.ir_module\n"                       \
  "class Module:\n"

constexpr const char* kSBlockSpelling = PS_TEST_SBLOCK_HEADER
    "    @T.prim_func(private=True, s_tir=True)\n"
    "    def add(A: T.Buffer((16, 16), \"float32\"), B: T.Buffer((16, 16), \"float32\")):\n"
    "        # with T.sblock(\"root\"):\n"
    "        C = T.sblock_alloc_buffer((16, 16))\n"
    "        for i, j in T.grid(16, 16):\n"
    "            with T.sblock(\"C\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                T.reads(A[vi, vj])\n"
    "                T.writes(C[vi, vj])\n"
    "                T.sblock_attr({\"schedule_rule\": \"none\"})\n"
    "                D = T.sblock_alloc_buffer((1,))\n"
    "                D[0] = A[vi, vj] + T.float32(1.0)\n"
    "                C[vi, vj] = D[0]\n"
    "        for i, j in T.grid(16, 16):\n"
    "            with T.sblock(\"B\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                T.reads(C[vi, vj])\n"
    "                T.writes(B[vi, vj])\n"
    "                x: T.let[T.float32] = C[vi, vj] * T.float32(0.5)\n"
    "                B[vi, vj] = x\n";

TEST(ParserTirSBlock, BlockSpellingPrintsBack) {
  ir::IRModule mod = Parse(kBlockSpelling);
  EXPECT_EQ(mod.script_style().tir_syntax, ir::TirSyntax::kBlock);
  EXPECT_EQ(PrintModule(mod), kBlockSpelling);
}

TEST(ParserTirSBlock, SBlockSpellingPrintsBack) {
  ir::IRModule mod = Parse(kSBlockSpelling);
  EXPECT_EQ(mod.script_style().tir_syntax, ir::TirSyntax::kSBlock);
  const auto* add = ir::As<ir::PrimFuncNode>(mod.Lookup("add"));
  ASSERT_NE(add, nullptr);
  EXPECT_TRUE(add->s_tir());
  EXPECT_EQ(PrintModule(mod), kSBlockSpelling);
}

TEST(ParserTirSBlock, TirSyntaxOptionConvertsBothWays) {
  PrintOptions to_sblock;
  to_sblock.tir_syntax = ir::TirSyntax::kSBlock;
  EXPECT_EQ(PrintModule(Parse(kBlockSpelling), to_sblock), kSBlockSpelling);
  PrintOptions to_block;
  to_block.tir_syntax = ir::TirSyntax::kBlock;
  EXPECT_EQ(PrintModule(Parse(kSBlockSpelling), to_block), kBlockSpelling);
}

TEST(ParserTirSBlock, SpellingIsPerModuleNotPerRelaxSyntax) {
  // A module marked s_tir=True with no block at all still reads as the 2026 spelling.
  std::string text = PS_TEST_SBLOCK_HEADER
      "    @T.prim_func(s_tir=True)\n"
      "    def copy(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
      "        for i in range(4):\n"
      "            B[i] = A[i]\n";
  ir::IRModule mod = Parse(text);
  EXPECT_EQ(mod.script_style().tir_syntax, ir::TirSyntax::kSBlock);
  EXPECT_EQ(mod.syntax(), ir::Syntax::kClassic);
  EXPECT_EQ(PrintModule(mod), text);
  // @I.ir_module(s_tir=True) says it for the whole module; TVM does not print it back.
  std::string marked = text;
  marked.replace(marked.find("@I.ir_module"), 12, "@I.ir_module(s_tir=True)");
  EXPECT_EQ(Parse(marked).script_style().tir_syntax, ir::TirSyntax::kSBlock);
  EXPECT_EQ(PrintModule(Parse(marked)), text);
}

TEST(ParserTirSBlock, NoRealizeBlockPrintsBack) {
  std::string text = PS_TEST_SBLOCK_HEADER
      "    @T.prim_func(s_tir=True)\n"
      "    def k(A: T.Buffer((16,), \"float32\")):\n"
      "        with T.sblock(\"B\", no_realize=True):\n"
      "            vi = T.axis.spatial(16)\n"
      "            T.reads()\n"
      "            T.writes(A[vi])\n"
      "            A[vi] = T.float32(0.0)\n";
  EXPECT_EQ(PrintModule(Parse(text)), text);
}

// A module with one s_tir kernel over A: (16,) and B: (16,) whose block body is `body`.
std::string Kernel(const std::string& loops_and_block) {
  return PS_TEST_SBLOCK_HEADER
         "    @T.prim_func(s_tir=True)\n"
         "    def k(A: T.Buffer((16,), \"float32\"), B: T.Buffer((16,), \"float32\")):\n"
         "        # with T.sblock(\"root\"):\n" +
         loops_and_block;
}

// The printed text of a kernel, from its "for" line on.
std::string PrintedBody(const std::string& text) {
  std::string printed = PrintModule(Parse(text));
  size_t at = printed.find("        for ");
  return at == std::string::npos ? printed : printed.substr(at);
}

TEST(ParserTirSBlock, InfersElementwiseRegions) {
  EXPECT_EQ(PrintedBody(Kernel("        for i in range(16):\n"
                               "            with T.sblock(\"B\"):\n"
                               "                vi = T.axis.spatial(16, i)\n"
                               "                B[vi] = A[vi] + T.float32(1.0)\n")),
            "        for i in range(16):\n"
            "            with T.sblock(\"B\"):\n"
            "                vi = T.axis.spatial(16, i)\n"
            "                T.reads(A[vi])\n"
            "                T.writes(B[vi])\n"
            "                B[vi] = A[vi] + T.float32(1.0)\n");
}

TEST(ParserTirSBlock, ReductionWithInitDoesNotReadItsOutput) {
  std::string text = PS_TEST_SBLOCK_HEADER
      "    @T.prim_func(s_tir=True)\n"
      "    def k(A: T.Buffer((4, 8), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
      "        # with T.sblock(\"root\"):\n"
      "        for i, k in T.grid(4, 8):\n"
      "            with T.sblock(\"sum\"):\n"
      "                vi, vk = T.axis.remap(\"SR\", [i, k])\n"
      "                with T.init():\n"
      "                    B[vi] = T.float32(0.0)\n"
      "                B[vi] = B[vi] + A[vi, vk]\n";
  EXPECT_EQ(PrintedBody(text),
            "        for i, k in T.grid(4, 8):\n"
            "            with T.sblock(\"sum\"):\n"
            "                vi, vk = T.axis.remap(\"SR\", [i, k])\n"
            "                T.reads(A[vi, vk])\n"
            "                T.writes(B[vi])\n"
            "                with T.init():\n"
            "                    B[vi] = T.float32(0.0)\n"
            "                B[vi] = B[vi] + A[vi, vk]\n");
}

TEST(ParserTirSBlock, InfersARangeReadInsideAnInnerLoop) {
  EXPECT_EQ(PrintedBody(Kernel("        for i in range(4):\n"
                               "            with T.sblock(\"B\"):\n"
                               "                vi = T.axis.spatial(4, i)\n"
                               "                for k in range(4):\n"
                               "                    B[vi] = B[vi] + A[vi * 4 + k]\n")),
            "        for i in range(4):\n"
            "            with T.sblock(\"B\"):\n"
            "                vi = T.axis.spatial(4, i)\n"
            "                T.reads(B[vi], A[vi * 4:vi * 4 + 4])\n"
            "                T.writes(B[vi])\n"
            "                for k in range(4):\n"
            "                    B[vi] = B[vi] + A[vi * 4 + k]\n");
}

TEST(ParserTirSBlock, ExplicitRegionsStayAsWritten) {
  std::string text = Kernel(
      "        for i in range(16):\n"
      "            with T.sblock(\"B\"):\n"
      "                vi = T.axis.spatial(16, i)\n"
      "                T.reads(A[0:16])\n"
      "                T.writes(B[vi])\n"
      "                B[vi] = A[vi]\n");
  EXPECT_EQ(PrintModule(Parse(text)), text);
  // Only the missing one is inferred.
  std::string only_writes = Kernel(
      "        for i in range(16):\n"
      "            with T.sblock(\"B\"):\n"
      "                vi = T.axis.spatial(16, i)\n"
      "                T.writes(B[0:16])\n"
      "                B[vi] = A[vi]\n");
  EXPECT_EQ(PrintedBody(only_writes),
            "        for i in range(16):\n"
            "            with T.sblock(\"B\"):\n"
            "                vi = T.axis.spatial(16, i)\n"
            "                T.reads(A[vi])\n"
            "                T.writes(B[0:16])\n"
            "                B[vi] = A[vi]\n");
}

TEST(ParserTirSBlock, OpaqueAccessWithRegionsPrintsBack) {
  std::string text = Kernel(
      "        for i in range(16):\n"
      "            with T.sblock(\"B\"):\n"
      "                vi = T.axis.spatial(16, i)\n"
      "                T.reads(A[0:16])\n"
      "                T.writes(B[vi])\n"
      "                T.evaluate(A.data)\n"
      "                B[vi] = A[vi]\n");
  EXPECT_EQ(PrintModule(Parse(text)), text);
}

TEST(ParserTirSBlock, OpaqueAccessWithoutRegionsIsAnError) {
  // TVM's parser refuses to guess the regions of an access through a data pointer.
  EXPECT_EQ(ParseError(Kernel("        for i in range(16):\n"
                              "            with T.sblock(\"B\"):\n"
                              "                vi = T.axis.spatial(16, i)\n"
                              "                T.evaluate(A.data)\n"
                              "                B[vi] = A[vi]\n")),
            "test.py:11:18: error: cannot infer the access regions of block \"B\": it uses the "
            "data pointer of buffer 'A'; write T.reads and T.writes");
}

TEST(ParserTirSBlock, BlockArgumentErrors) {
  EXPECT_EQ(ParseError(Kernel("        with T.sblock(\"B\", scope=1):\n"
                              "            T.evaluate(0)\n")),
            "test.py:10:28: error: unsupported argument 'scope' of T.sblock");
  EXPECT_EQ(ParseError(Kernel("        with T.sblock(\"B\", no_realize=True):\n"
                              "            vi = T.axis.spatial(16, 0)\n"
                              "            T.evaluate(0)\n")),
            "test.py:11:18: error: T.axis.spatial of a block with no_realize=True expects a "
            "domain");
  EXPECT_EQ(ParseError(Kernel("        with T.sblock(\"B\", no_realize=True):\n"
                              "            T.where(True)\n"
                              "            T.evaluate(0)\n")),
            "test.py:10:14: error: a block with no_realize=True takes no T.where");
}

TEST(ParserTirSBlock, UnnamedBlockAndIntrinsicDType) {
  std::string text = Kernel(
      "        for i in range(16):\n"
      "            with T.sblock():\n"
      "                vi = T.axis.spatial(16, i)\n"
      "                B[vi] = T.exp(A[vi], dtype=\"float32\")\n");
  EXPECT_EQ(PrintedBody(text),
            "        for i in range(16):\n"
            "            with T.sblock(\"\"):\n"
            "                vi = T.axis.spatial(16, i)\n"
            "                T.reads(A[vi])\n"
            "                T.writes(B[vi])\n"
            "                B[vi] = T.exp(A[vi])\n");
  EXPECT_EQ(ParseError(Kernel("        B[0] = T.exp(A[0], dtype=\"float16\")\n")),
            "test.py:10:16: error: T.exp of a float32 operand cannot have dtype float16");
  EXPECT_EQ(ParseError(Kernel("        B[0] = T.exp(A[0], span=None)\n")),
            "test.py:10:16: error: T.exp takes no keyword arguments but dtype");
}

}  // namespace
}  // namespace pipesplit::script
