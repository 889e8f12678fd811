// ir/arith: constant folding (one int64 semantics), Simplify and ProvablyEqual. The polynomial
// normal form and the folding constructors are covered by op_symbolic_test.cc.
#include "pipesplit/ir/arith.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "pipesplit/ir/prim_text.h"

namespace pipesplit::ir {
namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// Unfolded construction (the arith constructors Add, Mul, ... fold).
PrimExpr RawAdd(PrimExpr a, PrimExpr b) { return MakeBinary(BinaryOp::kAdd, a, b); }
PrimExpr RawMul(PrimExpr a, PrimExpr b) { return MakeBinary(BinaryOp::kMul, a, b); }

TEST(ArithTest, SimplifyFoldsConstantsAndIdentities) {
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(ToString(Simplify(RawMul(RawAdd(IntImm(2), IntImm(3)), n))), "5 * n");
  EXPECT_EQ(Simplify(RawAdd(n, IntImm(0))), n);
  EXPECT_EQ(Simplify(RawMul(IntImm(1), n)), n);
  EXPECT_EQ(ToString(Simplify(MakeBinary(BinaryOp::kFloorDiv, IntImm(-7), IntImm(2)))), "-4");
  EXPECT_EQ(ToString(Simplify(MakeBinary(BinaryOp::kFloorMod, IntImm(-7), IntImm(2)))), "1");
  // Division by zero is left alone, never folded.
  PrimExpr div0 = MakeBinary(BinaryOp::kFloorDiv, IntImm(1), IntImm(0));
  EXPECT_EQ(Simplify(div0), div0);
  // Unchanged input is returned as the same node.
  PrimExpr e = RawAdd(n, IntImm(1));
  EXPECT_EQ(Simplify(e), e);
}

TEST(ArithTest, ProvablyEqual) {
  TirVar n = MakeTirVar("n");
  EXPECT_TRUE(ProvablyEqual(RawAdd(n, IntImm(0)), n));
  EXPECT_TRUE(ProvablyEqual(RawMul(IntImm(2), IntImm(8)), IntImm(16)));
  EXPECT_FALSE(ProvablyEqual(n, MakeTirVar("n")));
}

TEST(ArithTest, FoldIntBinaryWrapsOnOverflow) {
  EXPECT_EQ(FoldIntBinary(BinaryOp::kAdd, kMax, 1), kMin);
  EXPECT_EQ(FoldIntBinary(BinaryOp::kSub, kMin, 1), kMax);
  EXPECT_EQ(FoldIntBinary(BinaryOp::kMul, kMax, 2), -2);
  EXPECT_EQ(FoldIntBinary(BinaryOp::kMul, kMin, -1), kMin);
}

TEST(ArithTest, FoldIntBinaryDivision) {
  // Floor and truncating division and remainder.
  EXPECT_EQ(FoldIntBinary(BinaryOp::kFloorDiv, -7, 2), -4);
  EXPECT_EQ(FoldIntBinary(BinaryOp::kFloorMod, -7, 2), 1);
  EXPECT_EQ(FoldIntBinary(BinaryOp::kDiv, -7, 2), -3);
  EXPECT_EQ(FoldIntBinary(BinaryOp::kMod, -7, 2), -1);
  EXPECT_EQ(FoldIntBinary(BinaryOp::kFloorDiv, 7, -1), -7);
  // Not foldable: a zero divisor, and a quotient that does not fit (INT64_MIN / -1).
  for (BinaryOp op : {BinaryOp::kDiv, BinaryOp::kMod, BinaryOp::kFloorDiv, BinaryOp::kFloorMod}) {
    EXPECT_EQ(FoldIntBinary(op, 1, 0), std::nullopt) << BinaryOpName(op);
  }
  EXPECT_EQ(FoldIntBinary(BinaryOp::kDiv, kMin, -1), std::nullopt);
  EXPECT_EQ(FoldIntBinary(BinaryOp::kFloorDiv, kMin, -1), std::nullopt);
  // The remainders exist.
  EXPECT_EQ(FoldIntBinary(BinaryOp::kMod, kMin, -1), 0);
  EXPECT_EQ(FoldIntBinary(BinaryOp::kFloorMod, kMin, -1), 0);
  // Simplify leaves what is not foldable alone.
  PrimExpr overflow = MakeBinary(BinaryOp::kFloorDiv, IntImm(kMin), IntImm(-1));
  EXPECT_EQ(Simplify(overflow), overflow);
}

TEST(ArithTest, FoldIntBinaryComparisonsAndLogic) {
  EXPECT_EQ(FoldIntBinary(BinaryOp::kLT, 1, 2), 1);
  EXPECT_EQ(FoldIntBinary(BinaryOp::kGE, 1, 2), 0);
  EXPECT_EQ(FoldIntBinary(BinaryOp::kAnd, 3, 5), 1);
  EXPECT_EQ(FoldIntBinary(BinaryOp::kOr, 0, 0), 0);
  EXPECT_EQ(FoldIntBinary(BinaryOp::kMin, -1, 2), -1);
  EXPECT_EQ(FoldIntBinary(BinaryOp::kMax, -1, 2), 2);
}

TEST(ArithTest, ConstructorsFold) {
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(ToString(Add(Int64(2), Int64(3))), "5");
  EXPECT_EQ(Mul(n, Int64(1)), n);
  EXPECT_EQ(ToString(FloorDiv(Int64(kMin), Int64(-1))), "-9223372036854775808 // -1");
  EXPECT_EQ(ToString(CanonicalSimplify(Sub(Add(n, n), Int64(1)))), "n * 2 - 1");
}

}  // namespace
}  // namespace pipesplit::ir
