#include "pipesplit/ir/prim_expr.h"

#include <gtest/gtest.h>

namespace pipesplit::ir {
namespace {

PrimExpr Add(PrimExpr a, PrimExpr b) { return MakeBinary(BinaryOp::kAdd, a, b); }
PrimExpr Mul(PrimExpr a, PrimExpr b) { return MakeBinary(BinaryOp::kMul, a, b); }
PrimExpr Sub(PrimExpr a, PrimExpr b) { return MakeBinary(BinaryOp::kSub, a, b); }

TEST(PrimExprTest, PrintsWithPythonPrecedence) {
  TirVar n = MakeTirVar("n"), m = MakeTirVar("m");
  EXPECT_EQ(ToString(Add(n, IntImm(1))), "n + 1");
  EXPECT_EQ(ToString(Mul(Add(n, m), IntImm(2))), "(n + m) * 2");
  EXPECT_EQ(ToString(Sub(n, Sub(m, IntImm(1)))), "n - (m - 1)");
  EXPECT_EQ(ToString(Sub(Sub(n, m), IntImm(1))), "n - m - 1");
  EXPECT_EQ(ToString(MakeBinary(BinaryOp::kFloorDiv, n, IntImm(2))), "n // 2");
  EXPECT_EQ(ToString(MakeBinary(BinaryOp::kMin, n, m)), "T.min(n, m)");
  EXPECT_EQ(ToString(MakeBinary(BinaryOp::kLT, n, m)), "n < m");
  EXPECT_EQ(ToString(MakeBinary(BinaryOp::kAnd, MakeBinary(BinaryOp::kLT, n, m),
                                MakeBinary(BinaryOp::kOr, BoolImm(true), BoolImm(false)))),
            "n < m and (T.bool(True) or T.bool(False))");
  EXPECT_EQ(ToString(IntImm(5, DataType::Int(32))), "T.int32(5)");
  EXPECT_EQ(ToString(FloatImm(1.0)), "T.float32(1.0)");
  EXPECT_EQ(ToString(std::make_shared<const CastNode>(DataType::Int(32), n)),
            "T.Cast(\"int32\", n)");
}

TEST(PrimExprTest, SimplifyFoldsConstantsAndIdentities) {
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(ToString(Simplify(Mul(Add(IntImm(2), IntImm(3)), n))), "5 * n");
  EXPECT_EQ(Simplify(Add(n, IntImm(0))), n);
  EXPECT_EQ(Simplify(Mul(IntImm(1), n)), n);
  EXPECT_EQ(ToString(Simplify(MakeBinary(BinaryOp::kFloorDiv, IntImm(-7), IntImm(2)))), "-4");
  EXPECT_EQ(ToString(Simplify(MakeBinary(BinaryOp::kFloorMod, IntImm(-7), IntImm(2)))), "1");
  // Division by zero is left alone, never folded.
  PrimExpr div0 = MakeBinary(BinaryOp::kFloorDiv, IntImm(1), IntImm(0));
  EXPECT_EQ(Simplify(div0), div0);
  // Unchanged input is returned as the same node.
  PrimExpr e = Add(n, IntImm(1));
  EXPECT_EQ(Simplify(e), e);
}

TEST(PrimExprTest, SubstituteAndFreeVars) {
  TirVar n = MakeTirVar("n"), m = MakeTirVar("m");
  PrimExpr e = Add(Mul(n, m), n);
  auto vars = FreeTirVars(e);
  ASSERT_EQ(vars.size(), 2u);
  EXPECT_EQ(vars[0], n);
  EXPECT_EQ(vars[1], m);
  TirVarMap map{{n.get(), IntImm(4)}};
  EXPECT_EQ(ToString(Substitute(e, map)), "4 * m + 4");
  TirVarMap other{{MakeTirVar("n").get(), IntImm(4)}};  // a different var named n
  EXPECT_EQ(Substitute(e, other), e);
}

TEST(PrimExprTest, ProvablyEqual) {
  TirVar n = MakeTirVar("n");
  EXPECT_TRUE(ProvablyEqual(Add(n, IntImm(0)), n));
  EXPECT_TRUE(ProvablyEqual(Mul(IntImm(2), IntImm(8)), IntImm(16)));
  EXPECT_FALSE(ProvablyEqual(n, MakeTirVar("n")));
}

}  // namespace
}  // namespace pipesplit::ir
