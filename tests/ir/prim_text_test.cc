// The one PrimExpr text form: the Relax context is what the script printer prints, the
// diagnostic context (ToString) differs from it only in typed immediates and in not predicting
// TVM's constant folding.
#include "pipesplit/ir/prim_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "pipesplit/ir/expr.h"
#include "pipesplit/ir/tir.h"
#include "pipesplit/script/printer.h"

namespace pipesplit::ir {
namespace {

PrimExpr Bin(BinaryOp op, PrimExpr a, PrimExpr b) { return MakeBinary(op, a, b); }

std::string Relax(const PrimExpr& e) { return FormatPrimExpr(e, PrimTextOptions::Relax()).text; }

// What the script printer prints for `e` as a prim value.
std::string Printed(const PrimExpr& e) {
  std::string out = script::PrintExpr(Make<PrimValueNode>(e));
  const std::string prefix = "R.prim_value(";
  if (out.rfind(prefix, 0) != 0 || out.back() != ')') return "unexpected: " + out;
  return out.substr(prefix.size(), out.size() - prefix.size() - 1);
}

TEST(PrimTextTest, RelaxContextMatchesThePrinter) {
  TirVar n = MakeTirVar("n"), m = MakeTirVar("m");
  PrimExpr lt = Bin(BinaryOp::kLT, n, m);
  std::vector<PrimExpr> cases = {
      Bin(BinaryOp::kAdd, n, IntImm(1)),
      Bin(BinaryOp::kMul, Bin(BinaryOp::kAdd, n, m), IntImm(2)),
      Bin(BinaryOp::kSub, n, Bin(BinaryOp::kSub, m, IntImm(1))),
      Bin(BinaryOp::kFloorMod, n, Bin(BinaryOp::kMul, m, IntImm(2))),
      Bin(BinaryOp::kEQ, lt, Bin(BinaryOp::kLT, m, n)),
      Bin(BinaryOp::kAnd, lt, Bin(BinaryOp::kOr, lt, Bin(BinaryOp::kGE, n, m))),
      Make<NotNode>(lt),
      Bin(BinaryOp::kMin, n, Bin(BinaryOp::kMax, m, IntImm(3))),
      Bin(BinaryOp::kMod, n, IntImm(4)),
      Bin(BinaryOp::kDiv, n, IntImm(4)),
      Bin(BinaryOp::kAdd, IntImm(1), IntImm(2)),  // TVM would fold: T.Add(1, 2)
      Bin(BinaryOp::kMul, n, IntImm(1)),
      Bin(BinaryOp::kFloorDiv, n, IntImm(2, DataType::Int(32))),  // dtypes differ
      Bin(BinaryOp::kDiv, FloatImm(1.5), FloatImm(0.5, DataType::Float(32))),
      Make<CastNode>(DataType::Int(32), n),
      Make<SelectNode>(lt, n, m),
      Make<PrimCallNode>("if_then_else", std::vector<PrimExpr>{lt, n, m}, DataType::Int(64)),
      FloatImm(1e20),
      FloatImm(-INFINITY, DataType::Float(64)),
      IntImm(5, DataType::Int(32)),
      BoolImm(true),
  };
  for (const PrimExpr& e : cases) EXPECT_EQ(Relax(e), Printed(e)) << ToString(e);
}

TEST(PrimTextTest, ContextsDifferInImmediatesAndFolding) {
  TirVar n = MakeTirVar("n");
  PrimExpr i32 = IntImm(5, DataType::Int(32));
  EXPECT_EQ(Relax(i32), "5");
  EXPECT_EQ(ToString(i32), "T.int32(5)");
  EXPECT_EQ(Relax(BoolImm(false)), "False");
  EXPECT_EQ(ToString(BoolImm(false)), "T.bool(False)");
  PrimExpr sum = Bin(BinaryOp::kAdd, IntImm(1), IntImm(2));
  EXPECT_EQ(Relax(sum), "T.Add(1, 2)");
  EXPECT_EQ(ToString(sum), "1 + 2");
  EXPECT_EQ(ToString(Bin(BinaryOp::kFloorDiv, n, i32)), "n // T.int32(5)");
  EXPECT_EQ(ToString(FloatImm(1e20)), "T.float32(100000000000000000000.0)");
  EXPECT_EQ(ToString(FloatImm(NAN)), "T.float32(\"nan\")");
}

TEST(PrimTextTest, ReportsTirUsePrecedenceAndNamesVarsInOrder) {
  TirVar n = MakeTirVar("n"), m = MakeTirVar("m");
  std::vector<std::string> asked;
  PrimTextOptions options = PrimTextOptions::Relax([&](const TirVarNode& v) {
    asked.push_back(v.name());
    return v.name() + "_";
  });
  PrimTextResult r = FormatPrimExpr(Bin(BinaryOp::kAdd, Bin(BinaryOp::kMul, m, n), n), options);
  EXPECT_EQ(r.text, "m_ * n_ + n_");
  EXPECT_EQ(r.prec, kPrimPrecAdd);
  EXPECT_FALSE(r.uses_tir);
  EXPECT_EQ(asked, (std::vector<std::string>{"m", "n", "n"}));
  EXPECT_TRUE(FormatPrimExpr(Bin(BinaryOp::kMin, n, m), options).uses_tir);
}

TEST(PrimTextTest, TirContext) {
  auto tir = [](const PrimExpr& e) { return FormatPrimExpr(e, PrimTextOptions::Tir()).text; };
  TirVar i = MakeTirVar("i");
  Buffer a = MakeBuffer("A", DataType::Float(16), {IntImm(8)});
  PrimExpr load = Make<BufferLoadNode>(a, std::vector<PrimExpr>{i});
  EXPECT_EQ(tir(IntImm(5, DataType::Int(32))), "5");
  EXPECT_EQ(tir(IntImm(5)), "T.int64(5)");
  EXPECT_EQ(tir(BoolImm(true)), "T.bool(True)");
  EXPECT_EQ(tir(FloatImm(7, DataType::Float(16))), "T.float16(7)");
  EXPECT_EQ(tir(FloatImm(1e-06)), "T.float32(9.9999999999999995e-07)");
  // Operators as the node holds them, even where TVM's constructor would fold.
  EXPECT_EQ(tir(Bin(BinaryOp::kAdd, IntImm(1), IntImm(2))), "T.int64(1) + T.int64(2)");
  EXPECT_EQ(tir(Bin(BinaryOp::kFloorDiv, i, IntImm(8))), "i // T.int64(8)");
  EXPECT_EQ(tir(Bin(BinaryOp::kMul, load, FloatImm(2, DataType::Float(16)))),
            "A[i] * T.float16(2)");
  Buffer scalar = MakeBuffer("B", DataType::Float(32), {});
  EXPECT_EQ(tir(Make<BufferLoadNode>(scalar, std::vector<PrimExpr>{})), "B[()]");
}

}  // namespace
}  // namespace pipesplit::ir
