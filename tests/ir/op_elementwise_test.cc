// Inference rules of the elementwise ops: unary, binary broadcasting, comparisons, clip,
// ewise_fma, where, astype.
#include <gtest/gtest.h>

#include "tests/ir/op_test_util.h"

namespace pipesplit::ir::optest {
namespace {

TEST(OpElementwiseTest, UnaryKeepsTheInputInfo) {
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(Infer(C("exp", {T("x", {n, 4})})), "R.Tensor((n, 4), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("negative", {T("x", {2}, "int32")})), "R.Tensor((2,), dtype=\"int32\")");
  EXPECT_EQ(Infer(C("nn.silu", {TN("x", 3, "float16")})), "R.Tensor(dtype=\"float16\", ndim=3)");
  EXPECT_EQ(Infer(C("sqrt", {TN("x", -1, "void")})), "R.Tensor");
  EXPECT_EQ(Infer(C("isnan", {T("x", {3})})), "R.Tensor((3,), dtype=\"bool\")");
}

TEST(OpElementwiseTest, UnaryErrors) {
  EXPECT_EQ(InferError(C("exp", {T("x", {2}, "int32")})),
            "op_test.py:1:6: R.exp: requires a float tensor, got int32");
  EXPECT_EQ(InferError(C("tanh", {Shape({2})})),
            "op_test.py:1:6: R.tanh: x must be a tensor, got R.Shape");
  EXPECT_EQ(InferError(C("sigmoid", {T("x", {2}), T("y", {2})})),
            "op_test.py:1:6: R.sigmoid: expects 1 argument, got 2");
}

TEST(OpElementwiseTest, BinaryBroadcastsShapes) {
  TirVar n = MakeTirVar("n"), m = MakeTirVar("m");
  EXPECT_EQ(Infer(C("add", {T("x", {2, 3}), T("y", {3})})), "R.Tensor((2, 3), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("multiply", {T("x", {1, n, 1}), T("y", {4, 1, 5})})),
            "R.Tensor((4, n, 5), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("subtract", {T("x", {n, 4}), T("y", {n, 4})})),
            "R.Tensor((n, 4), dtype=\"float32\")");
  // n + 1 and 1 + n are the same dim.
  PrimExpr a = MakeBinary(BinaryOp::kAdd, n, IntImm(1));
  PrimExpr b = MakeBinary(BinaryOp::kAdd, IntImm(1), n);
  EXPECT_EQ(Infer(C("divide", {T("x", {a}), T("y", {b})})),
            "R.Tensor((n + 1,), dtype=\"float32\")");
  // Unrelated symbolic dims: only the rank is known.
  EXPECT_EQ(Infer(C("add", {T("x", {n, 4}), T("y", {m, 4})})),
            "R.Tensor(dtype=\"float32\", ndim=2)");
  EXPECT_EQ(Infer(C("add", {TN("x", 2), T("y", {3, 1, 1})})),
            "R.Tensor(dtype=\"float32\", ndim=3)");
  EXPECT_EQ(Infer(C("add", {TN("x", -1), T("y", {3})})), "R.Tensor(dtype=\"float32\")");
}

TEST(OpElementwiseTest, BinaryDTypes) {
  EXPECT_EQ(Infer(C("add", {TN("x", 1, "void"), T("y", {3})})), "R.Tensor(ndim=1)");
  // A bool operand is accepted with another dtype; the left one wins.
  EXPECT_EQ(Infer(C("multiply", {T("x", {3}, "int32"), T("y", {3}, "bool")})),
            "R.Tensor((3,), dtype=\"int32\")");
  EXPECT_EQ(Infer(C("less", {T("x", {3}, "int32"), T("y", {3}, "float32")})),
            "R.Tensor((3,), dtype=\"bool\")");
}

TEST(OpElementwiseTest, BinaryWithPrimValues) {
  Var p = V("p", ir::Make<PrimSInfoNode>(DataType::Float(32)));
  // A scalar prim broadcasts like a (1,) tensor.
  EXPECT_EQ(Infer(C("add", {T("x", {2, 3}), p})), "R.Tensor((2, 3), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("add", {T("x", {}), p})), "R.Tensor((1,), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("add", {p, p})), "R.Prim(\"float32\")");
}

TEST(OpElementwiseTest, BinaryErrors) {
  EXPECT_EQ(InferError(C("add", {T("x", {2}), T("y", {2}, "int32")})),
            "op_test.py:1:6: R.add: dtypes float32 and int32 do not match");
  EXPECT_EQ(InferError(C("add", {T("x", {2, 3}), T("y", {4})})),
            "op_test.py:1:6: R.add: cannot broadcast dimension 1 (3) of the first operand with "
            "dimension 0 (4) of the second");
  EXPECT_EQ(InferError(C("maximum", {T("x", {2}), Shape({2})})),
            "op_test.py:1:6: R.maximum: operands must be tensors or R.Prim values, got R.Shape");
  EXPECT_EQ(InferError(C("add", {T("x", {2}, "float32", "cuda:0:global"),
                                 T("y", {2}, "float32", "llvm:0:global")})),
            "op_test.py:1:6: R.add: operands are on different virtual devices "
            "\"cuda:0:global\" and \"llvm:0:global\"");
}

TEST(OpElementwiseTest, VDeviceIsKept) {
  EXPECT_EQ(Infer(C("add", {T("x", {2}, "float32", "cuda:0:global"), T("y", {2})})),
            "R.Tensor((2,), dtype=\"float32\", vdevice=\"cuda:0:global\")");
}

TEST(OpElementwiseTest, ClipReturnsTheData) {
  EXPECT_EQ(Infer(C("clip", {T("x", {2, 2}), PrimI(0), PrimI(6)})),
            "R.Tensor((2, 2), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("clip", {T("x", {2})})),
            "op_test.py:1:6: R.clip: expects 3 arguments, got 1");
}

TEST(OpElementwiseTest, EwiseFMA) {
  EXPECT_EQ(Infer(C("ewise_fma", {T("a", {2, 3}), T("b", {2, 3}), T("c", {2, 3})})),
            "R.Tensor((2, 3), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("ewise_fma", {TN("a", 2), T("b", {2, 3}), T("c", {2, 3})})),
            "R.Tensor(dtype=\"float32\", ndim=2)");
  EXPECT_EQ(InferError(C("ewise_fma", {T("a", {2, 3}), T("b", {2, 4}), T("c", {2, 3})})),
            "op_test.py:1:6: R.ewise_fma: the three operands must have the same shape");
  EXPECT_EQ(InferError(C("ewise_fma", {T("a", {2}), T("b", {2, 4}), T("c", {2, 3})})),
            "op_test.py:1:6: R.ewise_fma: the three operands must have the same number of "
            "dimensions");
  EXPECT_EQ(InferError(C("ewise_fma", {T("a", {2}), T("b", {2}, "int32"), T("c", {2})})),
            "op_test.py:1:6: R.ewise_fma: dtypes float32, int32 and float32 do not match");
}

TEST(OpElementwiseTest, Where) {
  EXPECT_EQ(Infer(C("where", {T("c", {2, 1}, "bool"), T("a", {3}), T("b", {1, 3})})),
            "R.Tensor((2, 3), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("where", {TN("c", 1, "bool"), T("a", {3}), T("b", {3})})),
            "R.Tensor(dtype=\"float32\", ndim=1)");
  EXPECT_EQ(InferError(C("where", {T("c", {3}, "int32"), T("a", {3}), T("b", {3})})),
            "op_test.py:1:6: R.where: condition must have dtype bool, got int32");
  EXPECT_EQ(InferError(C("where", {T("c", {3}, "bool"), T("a", {3}), T("b", {3}, "int64")})),
            "op_test.py:1:6: R.where: dtypes float32 and int64 do not match");
}

TEST(OpElementwiseTest, Astype) {
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(Infer(C("astype", {T("x", {n, 2})}, {{"dtype", "float16"}})),
            "R.Tensor((n, 2), dtype=\"float16\")");
  EXPECT_EQ(InferError(C("astype", {T("x", {2})})),
            "op_test.py:1:6: R.astype: missing attribute dtype");
  EXPECT_EQ(InferError(C("astype", {T("x", {2})}, {{"dtype", "floaty"}})),
            "op_test.py:1:6: R.astype: attribute dtype is not a dtype: \"floaty\"");
  EXPECT_EQ(InferError(C("astype", {T("x", {2})}, {{"dtype", 3}})),
            "op_test.py:1:6: R.astype: attribute dtype must be a dtype string");
  // wrap_param defaults to float32.
  EXPECT_EQ(Infer(C("wrap_param", {T("x", {2}, "float16")})), "R.Tensor((2,), dtype=\"float32\")");
}

}  // namespace
}  // namespace pipesplit::ir::optest
