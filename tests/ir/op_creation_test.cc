// Inference rules of the creation ops and of matmul / einsum / outer.
#include <gtest/gtest.h>

#include "tests/ir/op_test_util.h"

namespace pipesplit::ir::optest {
namespace {

TEST(OpCreationTest, FullOnesZeros) {
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(Infer(C("full", {Shape({2, n}), T("v", {}, "int32")})),
            "R.Tensor((2, n), dtype=\"int32\")");
  EXPECT_EQ(Infer(C("full", {Shape({2}), T("v", {}, "int32")}, {{"dtype", "float16"}})),
            "R.Tensor((2,), dtype=\"float16\")");
  Var s = V("s", ir::Make<ShapeSInfoNode>(3));
  EXPECT_EQ(Infer(C("zeros", {s}, {{"dtype", "float32"}})), "R.Tensor(s, dtype=\"float32\")");
  EXPECT_EQ(Infer(C("ones", {Shape({1, 4})}, {{"dtype", "float32"}})),
            "R.Tensor((1, 4), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("full", {Shape({2}), T("v", {1})})),
            "op_test.py:1:6: R.full: fill_value must be a 0-d tensor");
  EXPECT_EQ(InferError(C("zeros", {T("x", {2})}, {{"dtype", "float32"}})),
            "op_test.py:1:6: R.zeros: shape must be a shape, got R.Tensor");
  EXPECT_EQ(InferError(C("ones", {Shape({2})})), "op_test.py:1:6: R.ones: missing attribute dtype");
}

TEST(OpCreationTest, LikeOps) {
  EXPECT_EQ(Infer(C("zeros_like", {T("x", {2, 3}, "int32")})), "R.Tensor((2, 3), dtype=\"int32\")");
  EXPECT_EQ(Infer(C("ones_like", {T("x", {2, 3}, "int32")}, {{"dtype", "float32"}})),
            "R.Tensor((2, 3), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("full_like", {TN("x", 2, "int32"), T("v", {}, "float32")})),
            "R.Tensor(dtype=\"int32\", ndim=2)");
  EXPECT_EQ(InferError(C("full_like", {T("x", {2}), T("v", {2})})),
            "op_test.py:1:6: R.full_like: fill_value must be a 0-d tensor, got 1 dimensions");
}

TEST(OpCreationTest, Arange) {
  TirVar n = MakeTirVar("n");
  Call c = C("arange", {PrimI(1), PrimI(10), PrimI(2)});
  EXPECT_EQ(Infer(c), "R.Tensor((5,), dtype=\"int64\")");
  // dtype defaults from the bounds: int64 for integers, float32 otherwise.
  EXPECT_EQ(*GetAttrOrDefault(*c, "dtype")->as_string(), "int64");
  Call f = C("arange", {PrimI(0), Prim(FloatImm(1.5)), PrimI(1)});
  EXPECT_EQ(*GetAttrOrDefault(*f, "dtype")->as_string(), "float32");
  EXPECT_EQ(Infer(C("arange", {PrimI(0), Prim(n), PrimI(1)}, {{"dtype", "int32"}})),
            "R.Tensor((n,), dtype=\"int32\")");
  EXPECT_EQ(Infer(C("arange", {Prim(FloatImm(0.0)), Prim(FloatImm(1.0)), Prim(FloatImm(0.3))})),
            "R.Tensor((4,), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("arange", {PrimI(0), PrimI(4), PrimI(0)})),
            "op_test.py:1:6: R.arange: step must not be zero");
  EXPECT_EQ(InferError(C("arange", {PrimI(0), T("x", {}), PrimI(1)})),
            "op_test.py:1:6: R.arange: end must be an R.prim_value");
}

TEST(OpCreationTest, EyeHammingTriangular) {
  EXPECT_EQ(Infer(C("eye", {PrimI(3), PrimI(4), PrimI(0)})), "R.Tensor((3, 4), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("eye_like", {T("x", {3, 3}, "int32"), PrimI(1)})),
            "R.Tensor((3, 3), dtype=\"int32\")");
  EXPECT_EQ(
      Infer(C("hamming_window", {PrimI(20), PrimI(1), Prim(FloatImm(0.54)), Prim(FloatImm(0.46))},
              {{"dtype", "float32"}})),
      "R.Tensor((20,), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("hamming_window",
                         {PrimI(0), PrimI(1), Prim(FloatImm(0.54)), Prim(FloatImm(0.46))},
                         {{"dtype", "float32"}})),
            "op_test.py:1:6: R.hamming_window: window_size must be positive, got 0");
  EXPECT_EQ(Infer(C("tril", {T("x", {2, 3, 4}), PrimI(1)})),
            "R.Tensor((2, 3, 4), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("triu", {T("x", {4}), PrimI(0)})),
            "op_test.py:1:6: R.triu: x must have at least 2 dimensions, got 1");
  EXPECT_EQ(InferError(C("triu", {T("x", {4, 4}), T("k", {})})),
            "op_test.py:1:6: R.triu: k must be an R.Prim value, got R.Tensor");
}

TEST(OpLinearAlgebraTest, Matmul) {
  TirVar n = MakeTirVar("n"), m = MakeTirVar("m");
  EXPECT_EQ(Infer(C("matmul", {T("a", {1, n, 4096}, "float16"), T("b", {4096, 11008}, "float16")})),
            "R.Tensor((1, n, 11008), dtype=\"float16\")");
  EXPECT_EQ(Infer(C("matmul", {T("a", {2, 1, 3, 4}), T("b", {5, 4, 6})})),
            "R.Tensor((2, 5, 3, 6), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("matmul", {T("a", {4}), T("b", {2, 4, 6})})),
            "R.Tensor((2, 6), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("matmul", {T("a", {3, 4}), T("b", {4})})), "R.Tensor((3,), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("matmul", {T("a", {4}), T("b", {4})})), "R.Tensor((), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("matmul", {T("a", {3, 4}, "int8"), T("b", {4, 5}, "int8")},
                    {{"out_dtype", "int32"}})),
            "R.Tensor((3, 5), dtype=\"int32\")");
  EXPECT_EQ(Infer(C("matmul", {T("a", {n, 3, 4}), T("b", {m, 4, 5})})),
            "R.Tensor(dtype=\"float32\", ndim=3)");
  EXPECT_EQ(Infer(C("matmul", {TN("a", 3), T("b", {4, 5})})),
            "R.Tensor(dtype=\"float32\", ndim=3)");
}

TEST(OpLinearAlgebraTest, MatmulErrors) {
  EXPECT_EQ(InferError(C("matmul", {T("a", {3, 4}), T("b", {5, 6})})),
            "op_test.py:1:6: R.matmul: the reduction dims differ: 4 (shape (3, 4)) and 5 (shape "
            "(5, 6))");
  EXPECT_EQ(InferError(C("matmul", {T("a", {}), T("b", {5, 6})})),
            "op_test.py:1:6: R.matmul: operands must not be 0-d tensors");
  EXPECT_EQ(InferError(C("matmul", {T("a", {2, 4}, "float16"), T("b", {4, 6})})),
            "op_test.py:1:6: R.matmul: dtypes float16 and float32 do not match");
  EXPECT_EQ(InferError(C("matmul", {T("a", {2, 3, 4}), T("b", {5, 4, 6})})),
            "op_test.py:1:6: R.matmul: cannot broadcast dimension 0 (2) of the first operand with "
            "dimension 0 (5) of the second");
}

TEST(OpLinearAlgebraTest, EinsumAndOuter) {
  EXPECT_EQ(
      Infer(C("einsum", {Tup({T("a", {2, 3}), T("b", {3, 4})})}, {{"subscripts", "ij,jk->ik"}})),
      "R.Tensor((2, 4), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("einsum", {Tup({T("a", {5}), T("b", {7})})}, {{"subscripts", "i,j"}})),
            "R.Tensor((5, 7), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("einsum", {Tup({T("a", {2, 3, 4}), T("b", {4, 5})})},
                    {{"subscripts", "...j,jk->...k"}})),
            "R.Tensor((2, 3, 5), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("einsum", {Tup({T("a", {2, 3}), T("b", {4, 4})})},
                         {{"subscripts", "ij,jk->ik"}})),
            "op_test.py:1:6: R.einsum: label j has extents 3 and 4");
  EXPECT_EQ(InferError(C("einsum", {Tup({T("a", {2, 3})})}, {{"subscripts", "i1->i"}})),
            "op_test.py:1:6: R.einsum: invalid subscripts \"i1->i\"");
  EXPECT_EQ(Infer(C("outer", {T("a", {3}), T("b", {4})})), "R.Tensor((3, 4), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("outer", {T("a", {3, 1}), T("b", {4})})),
            "op_test.py:1:6: R.outer: both operands must be 1-d tensors");
}

}  // namespace
}  // namespace pipesplit::ir::optest
