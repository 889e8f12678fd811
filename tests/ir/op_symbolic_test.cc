// The symbolic arithmetic behind the inference rules: constant differences of dims, the
// normal form used for computed dims, and axis normalization helpers.
#include <gtest/gtest.h>

#include "src/ir/op/op_families.h"

namespace pipesplit::ir {
namespace {

PrimExpr Bin(BinaryOp op, PrimExpr a, PrimExpr b) { return MakeBinary(op, a, b); }

TEST(OpSymbolicTest, ConstDifference) {
  TirVar n = MakeTirVar("n"), m = MakeTirVar("m");
  EXPECT_EQ(ConstDifference(Bin(BinaryOp::kAdd, n, IntImm(3)), n), 3);
  EXPECT_EQ(ConstDifference(Bin(BinaryOp::kMul, n, IntImm(4)),
                            Bin(BinaryOp::kMul, Bin(BinaryOp::kMul, IntImm(2), n), IntImm(2))),
            0);
  // (n + 1) * (n - 1) == n * n - 1
  EXPECT_EQ(ConstDifference(Bin(BinaryOp::kMul, Bin(BinaryOp::kAdd, n, IntImm(1)),
                                Bin(BinaryOp::kSub, n, IntImm(1))),
                            Bin(BinaryOp::kMul, n, n)),
            -1);
  EXPECT_EQ(ConstDifference(n, m), std::nullopt);
  // Same-named vars are different vars.
  EXPECT_EQ(ConstDifference(n, MakeTirVar("n")), std::nullopt);
  // Opaque subexpressions compare by structure.
  EXPECT_EQ(ConstDifference(Bin(BinaryOp::kMin, n, m), Bin(BinaryOp::kMin, n, m)), 0);
  EXPECT_TRUE(ProvablyNe(IntImm(3), IntImm(4)));
  EXPECT_FALSE(ProvablyNe(n, m));
  EXPECT_TRUE(ProvablyEq(Bin(BinaryOp::kFloorDiv, Bin(BinaryOp::kMul, n, IntImm(6)), IntImm(3)),
                         Bin(BinaryOp::kMul, IntImm(2), n)));
}

TEST(OpSymbolicTest, NormalizeArithFollowsTVMsCanonicalOrder) {
  TirVar h = MakeTirVar("h"), k = MakeTirVar("k"), c = MakeTirVar("c");
  // Positive terms, then a positive constant, then negative terms, then a negative constant.
  PrimExpr e =
      Bin(BinaryOp::kAdd, Bin(BinaryOp::kSub, Bin(BinaryOp::kSub, h, k), IntImm(1)), IntImm(2));
  EXPECT_EQ(ToString(NormalizeArith(e)), "h + 1 - k");
  EXPECT_EQ(ToString(NormalizeArith(Bin(BinaryOp::kSub, h, IntImm(2)))), "h - 2");
  EXPECT_EQ(ToString(NormalizeArith(Bin(BinaryOp::kSub, IntImm(0), h))), "0 - h");
  EXPECT_EQ(ToString(NormalizeArith(Bin(BinaryOp::kMul, Bin(BinaryOp::kAdd, h, h), IntImm(2)))),
            "h * 4");
  // (c * 16 + 15) // 16 == c; a division that is not exact stays, with its operands normalized.
  EXPECT_EQ(ToString(NormalizeArith(Bin(
                BinaryOp::kFloorDiv,
                Bin(BinaryOp::kAdd, Bin(BinaryOp::kMul, c, IntImm(16)), IntImm(15)), IntImm(16)))),
            "c");
  EXPECT_EQ(ToString(NormalizeArith(
                Bin(BinaryOp::kFloorDiv,
                    Bin(BinaryOp::kAdd, Bin(BinaryOp::kSub, h, IntImm(1)), IntImm(2)), IntImm(2)))),
            "(h + 1) // 2");
  EXPECT_EQ(ToString(NormalizeArith(Bin(BinaryOp::kSub, IntImm(7), IntImm(9)))), "-2");
}

TEST(OpSymbolicTest, KnownNonNegative) {
  TirVar n = MakeTirVar("n"), m = MakeTirVar("m");
  EXPECT_TRUE(KnownNonNegative(Bin(BinaryOp::kAdd, Bin(BinaryOp::kMul, n, m), IntImm(1))));
  EXPECT_FALSE(KnownNonNegative(Bin(BinaryOp::kSub, n, m)));
  EXPECT_FALSE(KnownNonNegative(IntImm(-1)));
  EXPECT_FALSE(KnownNonNegative(Bin(BinaryOp::kMin, n, m)));
}

TEST(OpSymbolicTest, ShapeHelpers) {
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(ToString(ShapeProduct({IntImm(2), n, IntImm(4)})), "2 * n * 4");
  EXPECT_EQ(ToString(ShapeProduct({})), "1");
  EXPECT_EQ(ToString(CeilDiv(IntImm(10), 4)), "3");
  EXPECT_EQ(ToString(CeilDiv(n, 1)), "n");
}

}  // namespace
}  // namespace pipesplit::ir
