// Inference rules of reductions, scans, sorting and set ops.
#include <gtest/gtest.h>

#include "tests/ir/op_test_util.h"

namespace pipesplit::ir::optest {
namespace {

TEST(OpReductionTest, StatisticalAxesAndKeepdims) {
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(Infer(C("sum", {T("x", {2, n, 4})})), "R.Tensor((), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("sum", {T("x", {2, n, 4})}, {{"keepdims", true}})),
            "R.Tensor((1, 1, 1), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("mean", {T("x", {2, n, 4})}, {{"axis", Ints({-1})}})),
            "R.Tensor((2, n), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("max", {T("x", {2, n, 4})}, {{"axis", Ints({2, 0})}, {"keepdims", true}})),
            "R.Tensor((1, n, 1), dtype=\"float32\")");
  // An integer axis stands for a list of one.
  EXPECT_EQ(Infer(C("min", {T("x", {2, 3})}, {{"axis", 1}})), "R.Tensor((2,), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("prod", {TN("x", 3)}, {{"axis", Ints({1})}})),
            "R.Tensor(dtype=\"float32\", ndim=2)");
  EXPECT_EQ(Infer(C("variance", {TN("x", 3)}, {{"keepdims", true}})),
            "R.Tensor((1, 1, 1), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("std", {TN("x", -1)}, {{"axis", Ints({0})}})), "R.Tensor(dtype=\"float32\")");
  EXPECT_EQ(Infer(C("sum", {TN("x", -1)})), "R.Tensor((), dtype=\"float32\")");
}

TEST(OpReductionTest, StatisticalErrors) {
  EXPECT_EQ(InferError(C("sum", {T("x", {2, 3})}, {{"axis", Ints({2})}})),
            "op_test.py:1:6: R.sum: axis 2 is out of range for a tensor of 2 dimensions");
  EXPECT_EQ(InferError(C("sum", {T("x", {2, 3})}, {{"axis", Ints({1, -1})}})),
            "op_test.py:1:6: R.sum: axis 1 is given more than once");
  EXPECT_EQ(InferError(C("mean", {T("x", {2, 3})}, {{"axis", "a"}})),
            "op_test.py:1:6: R.mean: attribute axis must be a list of integers");
  EXPECT_EQ(InferError(C("mean", {T("x", {2, 3})}, {{"keepdims", "yes"}})),
            "op_test.py:1:6: R.mean: attribute keepdims must be a boolean");
}

TEST(OpReductionTest, MedianReturnsIndicesForOneAxis) {
  EXPECT_EQ(Infer(C("median", {T("x", {4, 5})}, {{"axis", Ints({1})}})),
            "R.Tuple(R.Tensor((4,), dtype=\"float32\"), R.Tensor((4,), dtype=\"int64\"))");
  EXPECT_EQ(Infer(C("median", {T("x", {4, 5})})), "R.Tensor((), dtype=\"float32\")");
}

TEST(OpReductionTest, ArgmaxArgmin) {
  EXPECT_EQ(Infer(C("argmax", {T("x", {256, 10})}, {{"axis", -1}})),
            "R.Tensor((256,), dtype=\"int64\")");
  EXPECT_EQ(Infer(C("argmin", {T("x", {256, 10})}, {{"axis", -1}, {"keepdims", true}})),
            "R.Tensor((256, 1), dtype=\"int64\")");
  EXPECT_EQ(Infer(C("argmax", {T("x", {256, 10})})), "R.Tensor((), dtype=\"int64\")");
}

TEST(OpReductionTest, Scans) {
  EXPECT_EQ(Infer(C("cumsum", {T("x", {2, 3})}, {{"axis", 1}, {"dtype", "float64"}})),
            "R.Tensor((2, 3), dtype=\"float64\")");
  EXPECT_EQ(Infer(C("cumprod", {T("x", {2, 3}, "int32")})), "R.Tensor((6,), dtype=\"int32\")");
  EXPECT_EQ(Infer(C("cumsum", {TN("x", 2)})), "R.Tensor(dtype=\"float32\", ndim=2)");
}

TEST(OpReductionTest, Sorting) {
  EXPECT_EQ(Infer(C("sort", {T("x", {2, 3})})), "R.Tensor((2, 3), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("argsort", {T("x", {2, 3})})), "R.Tensor((2, 3), dtype=\"int32\")");
  EXPECT_EQ(Infer(C("topk", {T("x", {2, 5})}, {{"k", 2}, {"axis", 1}})),
            "R.Tuple(R.Tensor((2, 2), dtype=\"float32\"), R.Tensor((2, 2), dtype=\"int32\"))");
  EXPECT_EQ(Infer(C("topk", {T("x", {2, 5})}, {{"k", 7}, {"ret_type", "values"}})),
            "R.Tensor((2, 5), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("topk", {T("x", {2, 5})}, {{"ret_type", "all"}})),
            "op_test.py:1:6: R.topk: ret_type must be \"both\", \"values\" or \"indices\", got "
            "\"all\"");
}

TEST(OpReductionTest, BucketizeUniqueNonzero) {
  EXPECT_EQ(Infer(C("bucketize", {T("x", {3, 4}), T("b", {5})})),
            "R.Tensor((3, 4), dtype=\"int64\")");
  EXPECT_EQ(Infer(C("bucketize", {T("x", {3, 4}), T("b", {5})}, {{"out_int32", true}})),
            "R.Tensor((3, 4), dtype=\"int32\")");
  EXPECT_EQ(InferError(C("bucketize", {T("x", {3, 4}), T("b", {5, 1})})),
            "op_test.py:1:6: R.bucketize: boundaries must be a 1-d tensor, got 2 dimensions");
  EXPECT_EQ(Infer(C("unique", {T("x", {3, 4}, "int64"), PrimI(1), PrimI(0), PrimI(0), PrimI(0)})),
            "R.Tensor(dtype=\"int64\", ndim=1)");
  EXPECT_EQ(Infer(C("unique", {T("x", {3, 4}, "int64"), PrimI(1), PrimI(1), PrimI(0), PrimI(1)})),
            "R.Tuple(R.Tensor(dtype=\"int64\", ndim=1), R.Tensor(dtype=\"int64\", ndim=1), "
            "R.Tensor(dtype=\"int64\", ndim=1))");
  EXPECT_EQ(Infer(C("nonzero", {T("x", {3, 4})})), "R.Tensor(dtype=\"int64\", ndim=2)");
}

}  // namespace
}  // namespace pipesplit::ir::optest
