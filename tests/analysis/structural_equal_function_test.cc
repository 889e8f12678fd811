// Structural equality of symbolic vars a Relax function does not bind in its params: they pair
// where they first occur, one-to-one (found by fuzz_roundtrip).
#include <gtest/gtest.h>

#include "pipesplit/analysis/structural_equal.h"
#include "tests/analysis/test_ir.h"

namespace pipesplit::analysis {
namespace {

using namespace testing;  // NOLINT

IRModule OneFunction(const Expr& func) { return Module({{"main", func}}); }

// f(x: R.Tensor((32,))) -> R.Tensor((m,)) where no param defines `m` (found by fuzz_roundtrip:
// two parses of one printed text made two such vars, which compared unequal; the same for a var
// declared `m = T.int64()` in the body and first used in a call). Inside a function such vars
// pair where they first occur; a var of the params keeps its pairing.
Function ReturnsFreshVar(const std::string& prefix, bool reuse_param_var) {
  TirVar n = MakeTirVar(prefix + "n");
  TirVar m = MakeTirVar(prefix + "m");
  Var x = V(prefix + "x", F32({n}));
  return Func({x}, Seq({}, x), F32({reuse_param_var ? n : m}));
}

TEST(StructuralEqualTest, AFunctionsUnboundSymbolicVarsPairWhereTheyFirstOccur) {
  StructuralDifference diff;
  EXPECT_TRUE(StructuralEqual(OneFunction(ReturnsFreshVar("a_", false)),
                              OneFunction(ReturnsFreshVar("b_", false)), &diff))
      << diff.ToString();
  EXPECT_EQ(StructuralHash(OneFunction(ReturnsFreshVar("a_", false))),
            StructuralHash(OneFunction(ReturnsFreshVar("b_", false))));
  EXPECT_FALSE(StructuralEqual(OneFunction(ReturnsFreshVar("a_", false)),
                               OneFunction(ReturnsFreshVar("b_", true)), &diff));
  EXPECT_EQ(diff.path, "main.ret_struct_info.shape[0]");
}

}  // namespace
}  // namespace pipesplit::analysis
