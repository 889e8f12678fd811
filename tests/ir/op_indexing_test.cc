// Inference rules of the indexing ops: take, strided_slice, gather/scatter, one_hot.
#include <gtest/gtest.h>

#include "tests/ir/op_test_util.h"

namespace pipesplit::ir::optest {
namespace {

Expr Ints64(std::vector<int64_t> values) {
  std::vector<Expr> fields;
  for (int64_t v : values) fields.push_back(PrimI(v));
  return Tup(fields);
}

TEST(OpIndexingTest, Take) {
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(
      Infer(C("take", {T("w", {32000, 4096}, "float16"), T("i", {1, n}, "int32")}, {{"axis", 0}})),
      "R.Tensor((1, n, 4096), dtype=\"float16\")");
  EXPECT_EQ(Infer(C("take", {T("x", {5}), T("i", {3}, "int64")})),
            "R.Tensor((3,), dtype=\"float32\")");
  // A scalar prim index drops the axis.
  Var p = V("p", ir::Make<PrimSInfoNode>(DataType::Int(64)));
  EXPECT_EQ(Infer(C("take", {T("x", {4, 5}), p}, {{"axis", 1}})),
            "R.Tensor((4,), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("take", {TN("x", 2), T("i", {3}, "int64")}, {{"axis", 1}})),
            "R.Tensor(dtype=\"float32\", ndim=2)");
  EXPECT_EQ(InferError(C("take", {T("x", {4, 5}), T("i", {3}, "int64")})),
            "op_test.py:1:6: R.take: needs an axis unless the data is 1-d (it has 2 dimensions)");
  EXPECT_EQ(InferError(C("take", {T("x", {4}), T("i", {3}, "float32")})),
            "op_test.py:1:6: R.take: indices must have an integer dtype, got float32");
  EXPECT_EQ(InferError(C("take", {T("x", {4}), Shape({3})})),
            "op_test.py:1:6: R.take: indices must be a tensor or an R.Prim value, got R.Shape");
}

TEST(OpIndexingTest, StridedSliceStatic) {
  EXPECT_EQ(Infer(C("strided_slice", {T("x", {8, 9, 10, 10}), Ints64({0, 1, 3}), Ints64({1, 0, 8}),
                                      Ints64({8, 9, 0}), Ints64({2, 1, -3})})),
            "R.Tensor((4, 9, 10, 3), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("strided_slice",
                    {T("x", {4, 9}), Ints64({0}), Ints64({4}), Ints64({-5}), Ints64({-1})})),
            "R.Tensor((4, 9), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("strided_slice", {T("x", {8, 9, 3}), Ints64({-1}), Ints64({2}), Ints64({5})})),
            "R.Tensor((8, 9, 1), dtype=\"float32\")");
}

TEST(OpIndexingTest, StridedSliceSymbolic) {
  TirVar rank = MakeTirVar("rank"), n1 = MakeTirVar("N1"), n2 = MakeTirVar("N2");
  Expr begin = Tup({Prim(MakeBinary(BinaryOp::kMul, rank, IntImm(8)))});
  Expr end = Tup(
      {Prim(MakeBinary(BinaryOp::kMul, MakeBinary(BinaryOp::kAdd, rank, IntImm(1)), IntImm(8)))});
  EXPECT_EQ(Infer(C("strided_slice", {T("A", {16, 16}), Ints64({0}), begin, end},
                    {{"assume_inbound", true}})),
            "R.Tensor((8, 16), dtype=\"float32\")");
  // Without assume_inbound the end is clamped to the extent.
  EXPECT_EQ(Infer(C("strided_slice", {T("p", {MakeBinary(BinaryOp::kAdd, n1, n2)}), Ints64({0}),
                                      Ints64({0}), Tup({Prim(n1)})})),
            "R.Tensor((T.min(N1, N1 + N2),), dtype=\"float32\")");
  // Unknown begin values: only the rank is known.
  Var b = V("b", TupleSInfo({ir::Make<PrimSInfoNode>(DataType::Int(64))}));
  EXPECT_EQ(Infer(C("strided_slice", {T("x", {4}), Ints64({0}), b, Ints64({2})})),
            "R.Tensor(dtype=\"float32\", ndim=1)");
}

TEST(OpIndexingTest, StridedSliceErrors) {
  EXPECT_EQ(InferError(C("strided_slice", {T("x", {4}), Ints64({0}), Ints64({0, 1}), Ints64({2})})),
            "op_test.py:1:6: R.strided_slice: begin has 2 entries but axes has 1");
  EXPECT_EQ(InferError(C("strided_slice", {T("x", {4}), Ints64({1}), Ints64({0}), Ints64({2})})),
            "op_test.py:1:6: R.strided_slice: axis 1 is out of range for a tensor of 1 dimension");
  EXPECT_EQ(InferError(C("strided_slice", {T("x", {4}), Shape({0}), Ints64({0}), Ints64({2})})),
            "op_test.py:1:6: R.strided_slice: axes must be a tuple of R.Prim values, got R.Shape");
  EXPECT_EQ(InferError(C("strided_slice", {T("x", {4}), Ints64({0})})),
            "op_test.py:1:6: R.strided_slice: expects 4 to 5 arguments, got 2");
}

TEST(OpIndexingTest, DynamicStridedSlice) {
  EXPECT_EQ(Infer(C("dynamic_strided_slice", {T("x", {4, 5}), T("b", {2}, "int64"),
                                              T("e", {2}, "int64"), T("s", {2}, "int64")})),
            "R.Tensor(dtype=\"float32\", ndim=2)");
  EXPECT_EQ(InferError(C("dynamic_strided_slice", {T("x", {4, 5}), T("b", {3}, "int64"),
                                                   T("e", {2}, "int64"), T("s", {2}, "int64")})),
            "op_test.py:1:6: R.dynamic_strided_slice: begin has 3 entries but the data has 2 "
            "dimensions");
}

TEST(OpIndexingTest, GatherAndScatter) {
  EXPECT_EQ(Infer(C("gather_elements", {T("x", {3, 4}), T("i", {2, 4}, "int64")}, {{"axis", 0}})),
            "R.Tensor((2, 4), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("gather_elements", {T("x", {3, 4}), T("i", {2}, "int64")})),
            "op_test.py:1:6: R.gather_elements: data and indices must have the same rank, got 2 "
            "and 1");
  EXPECT_EQ(Infer(C("gather_nd", {T("x", {2, 3, 4}), T("i", {5, 2}, "int64")})),
            "R.Tensor((5, 4), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("gather_nd", {T("x", {2, 3}), T("i", {5, 2}, "int32")})),
            "op_test.py:1:6: R.gather_nd: indices must have dtype int64, got int32");
  EXPECT_EQ(Infer(C("scatter_elements", {T("x", {3, 4}), T("i", {2, 4}, "int64"), T("u", {2, 4})})),
            "R.Tensor((3, 4), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("scatter_elements",
                         {T("x", {3, 4}), T("i", {2, 4}, "int64"), T("u", {2, 4}, "int32")})),
            "op_test.py:1:6: R.scatter_elements: updates must have the dtype of data (float32), "
            "got int32");
  EXPECT_EQ(Infer(C("scatter_nd", {T("x", {3, 4}), T("i", {2, 1}, "int64"), T("u", {2, 4})})),
            "R.Tensor((3, 4), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("index_put", {T("x", {3, 4}), Tup({T("i", {2}, "int64")}), T("v", {2, 4})})),
            "R.Tensor((3, 4), dtype=\"float32\")");
  EXPECT_EQ(
      Infer(C("slice_scatter", {T("x", {8, 4}), T("s", {3, 4}), PrimI(1), PrimI(7), PrimI(2)})),
      "R.Tensor((8, 4), dtype=\"float32\")");
}

TEST(OpIndexingTest, OneHot) {
  Expr on = Prim(FloatImm(1.0)), off = Prim(FloatImm(0.0));
  EXPECT_EQ(Infer(C("one_hot", {T("i", {3}, "int64"), on, off}, {{"depth", 4}})),
            "R.Tensor((3, 4), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("one_hot", {T("i", {3}, "int64"), on, off}, {{"depth", 4}, {"axis", 0}})),
            "R.Tensor((4, 3), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("one_hot", {T("i", {3}, "int64"), on, PrimI(0)}, {{"depth", 4}})),
            "op_test.py:1:6: R.one_hot: on_value and off_value have different dtypes float32 and "
            "int64");
  EXPECT_EQ(InferError(C("one_hot", {T("i", {3}, "int64"), on, off})),
            "op_test.py:1:6: R.one_hot: missing attribute depth");
}

}  // namespace
}  // namespace pipesplit::ir::optest
