// PrimExpr nodes, traversals and their diagnostic text (ToString).
#include "pipesplit/ir/prim_expr.h"

#include <gtest/gtest.h>

#include <vector>

#include "pipesplit/ir/prim_text.h"

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

TEST(PrimExprTest, ChildTraversals) {
  TirVar n = MakeTirVar("n"), m = MakeTirVar("m");
  PrimExpr sel = std::make_shared<const SelectNode>(MakeBinary(BinaryOp::kLT, n, m), n, m);
  std::vector<PrimExpr> children;
  ForEachChild(sel, [&](const PrimExpr& c) { children.push_back(c); });
  ASSERT_EQ(children.size(), 3u);
  EXPECT_EQ(children[1], n);
  EXPECT_EQ(children[2], m);
  // Unchanged children give back the same node; a changed one rebuilds it.
  EXPECT_EQ(MapChildren(sel, [](const PrimExpr& c) { return c; }), sel);
  PrimExpr swapped = MapChildren(sel, [&](const PrimExpr& c) -> PrimExpr {
    if (c == n) return m;
    return c;
  });
  EXPECT_EQ(ToString(swapped), "T.Select(n < m, m, m)");
  ForEachChild(IntImm(1), [](const PrimExpr&) { FAIL() << "an immediate has no children"; });
}

}  // namespace
}  // namespace pipesplit::ir
