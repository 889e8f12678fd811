// Structural equality and hashing of TIR functions: modulo renaming of vars and buffers, and
// sensitive to everything else.
#include <gtest/gtest.h>

#include <string>

#include "pipesplit/analysis/structural_equal.h"
#include "pipesplit/script/parser.h"

namespace pipesplit::analysis {
namespace {

// A module with one kernel; `names` replaces the buffer and loop names, `body_value` the
// stored expression.
ir::IRModule Kernel(const std::string& a, const std::string& b, const std::string& i,
                    const std::string& value = "T.float32(2)") {
  std::string text =
      "@I.ir_module\n"
      "class Module:\n"
      "    @T.prim_func\n"
      "    def k(var_" +
      a + ": T.handle, " + b +
      ": T.Buffer((T.int64(8),), \"float32\")):\n"
      "        n = T.int64()\n"
      "        " +
      a + " = T.match_buffer(var_" + a +
      ", (n,))\n"
      "        for " +
      i +
      " in range(T.int64(8)):\n"
      "            with T.block(\"B\"):\n"
      "                v = T.axis.spatial(T.int64(8), " +
      i +
      ")\n"
      "                T.reads(" +
      a +
      "[v])\n"
      "                T.writes(" +
      b +
      "[v])\n"
      "                " +
      b + "[v] = " + a + "[v] * " + value + "\n";
  return script::ParseModule(text, "k.py");
}

TEST(StructuralTirTest, EqualModuloRenaming) {
  ir::IRModule x = Kernel("A", "B", "i");
  ir::IRModule y = Kernel("X", "Y", "j");
  EXPECT_TRUE(StructuralEqual(x, y));
  EXPECT_EQ(StructuralHash(x), StructuralHash(y));
}

TEST(StructuralTirTest, DifferentConstantsDiffer) {
  ir::IRModule x = Kernel("A", "B", "i");
  ir::IRModule y = Kernel("A", "B", "i", "T.float32(3)");
  StructuralDifference diff;
  EXPECT_FALSE(StructuralEqual(x, y, &diff));
  EXPECT_EQ(diff.path, "k.text");
  EXPECT_EQ(diff.lhs, "line 11:             B[v] = A[v] * T.float32(2)");
  EXPECT_EQ(diff.rhs, "line 11:             B[v] = A[v] * T.float32(3)");
  EXPECT_NE(StructuralHash(x), StructuralHash(y));
}

TEST(StructuralTirTest, SwappedBuffersDiffer) {
  // Same names, but the store reads the output buffer: not a renaming of the original.
  ir::IRModule x = Kernel("A", "B", "i");
  ir::IRModule y = Kernel("A", "B", "i", "B[v]");
  EXPECT_FALSE(StructuralEqual(x, y));
  EXPECT_NE(StructuralHash(x), StructuralHash(y));
}

}  // namespace
}  // namespace pipesplit::analysis
