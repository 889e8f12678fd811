// Reductions: sum, mean, max, min, prod, argmax, argmin.
#include "pipesplit/runtime/kernels/reduce.h"

#include <limits>

#include "tests/runtime/test_util.h"

namespace pipesplit::runtime {
namespace {

using namespace testing;  // NOLINT

using AxisList = std::vector<int64_t>;
const double kNaN = std::numeric_limits<double>::quiet_NaN();

const Tensor& X23() {
  static const Tensor t = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  return t;
}

TEST(ReduceTest, SumOverAxes) {
  ExpectTensor(Sum(X23(), std::nullopt), kF32, {}, {21});
  ExpectTensor(Sum(X23(), AxisList{0}), kF32, {3}, {5, 7, 9});
  ExpectTensor(Sum(X23(), AxisList{1}), kF32, {2}, {6, 15});
  ExpectTensor(Sum(X23(), AxisList{-1}, true), kF32, {2, 1}, {6, 15});
  ExpectTensor(Sum(X23(), std::nullopt, true), kF32, {1, 1}, {21});
  ExpectTensor(Sum(X23(), AxisList{}), kF32, {2, 3}, {1, 2, 3, 4, 5, 6});
}

TEST(ReduceTest, NonContiguousAxes) {
  // x[i][j][k] = 4i + 2j + k
  const Tensor x = Iota(kF32, {2, 2, 2});
  ExpectTensor(Sum(x, AxisList{0, 2}), kF32, {2}, {10, 18});
  ExpectTensor(Sum(x, AxisList{2, 0}, true), kF32, {1, 2, 1}, {10, 18});
  ExpectTensor(Sum(x, AxisList{1}), kF32, {2, 2}, {2, 4, 10, 12});  // middle axis
  ExpectTensor(Max(x, AxisList{1}), kF32, {2, 2}, {2, 3, 6, 7});
  ExpectTensor(Sum(Iota(kF32, {1, 3, 1}), AxisList{1}), kF32, {1, 1}, {3});
}

TEST(ReduceTest, OtherReductions) {
  ExpectTensor(Mean(X23(), AxisList{1}), kF32, {2}, {2, 5});
  ExpectTensor(Mean(X23(), std::nullopt), kF32, {}, {3.5});
  ExpectTensor(Max(X23(), AxisList{0}), kF32, {3}, {4, 5, 6});
  ExpectTensor(Min(X23(), AxisList{1}), kF32, {2}, {1, 4});
  ExpectTensor(Prod(X23(), AxisList{1}), kF32, {2}, {6, 120});
  ExpectTensor(Max(F32({3}, {-5, -1, -3}), std::nullopt), kF32, {}, {-1});
}

TEST(ReduceTest, LongRowsUseAllLanes) {
  // 1 + 2 + ... + 37 = 703, exact in float32 whatever the order.
  std::vector<double> values(37);
  for (int i = 0; i < 37; ++i) values[i] = i + 1;
  const Tensor x = MakeTensor(kF32, {37}, values);
  ExpectTensor(Sum(x, std::nullopt), kF32, {}, {703});
  ExpectTensor(Max(x, std::nullopt), kF32, {}, {37});
  ExpectTensor(Min(x, std::nullopt), kF32, {}, {1});
  ExpectTensor(Mean(x, std::nullopt), kF32, {}, {19});
  ExpectTensor(Sum(MakeTensor(kI64, {37}, values), std::nullopt), kI64, {}, {703});
  ExpectTensor(Max(MakeTensor(kI32, {37}, values), std::nullopt), kI32, {}, {37});
}

TEST(ReduceTest, Integers) {
  ExpectTensor(Mean(I32({2}, {1, 2}), std::nullopt), kI32, {}, {1});
  ExpectTensor(Mean(I32({2}, {-3, 0}), std::nullopt), kI32, {}, {-1});
  ExpectTensor(Sum(MakeTensor(kI8, {2}, {100, 100}), std::nullopt), kI8, {}, {-56});
  ExpectTensor(Prod(I64({3}, {2, 3, 4}), std::nullopt), kI64, {}, {24});
  ExpectTensor(Min(I64({2, 2}, {5, -1, 3, 7}), AxisList{0}), kI64, {2}, {3, -1});
}

TEST(ReduceTest, MaxMinPropagateNaN) {
  ExpectTensor(Max(F32({3}, {1, kNaN, 2}), std::nullopt), kF32, {}, {kNaN});
  ExpectTensor(Min(F32({2, 2}, {1, kNaN, 2, 0}), AxisList{0}), kF32, {2}, {1, kNaN});
}

TEST(ReduceTest, EmptyAxes) {
  ExpectTensor(Sum(F32({2, 0}, {}), AxisList{1}), kF32, {2}, {0, 0});
  ExpectTensor(Prod(F32({2, 0}, {}), AxisList{1}), kF32, {2}, {1, 1});
  ExpectTensor(Mean(F32({2, 0}, {}), AxisList{1}), kF32, {2}, {kNaN, kNaN});
  ExpectTensor(Max(F32({0, 2}, {}), AxisList{1}), kF32, {0}, {});
  EXPECT_RUNTIME_ERROR(Max(F32({2, 0}, {}), AxisList{1}),
                       "max: cannot reduce an empty axis of shape [2, 0]");
  EXPECT_RUNTIME_ERROR(Min(F32({0}, {}), std::nullopt),
                       "min: cannot reduce an empty axis of shape [0]");
}

TEST(ReduceTest, HalfTypesAccumulateInFloat) {
  // In float16 arithmetic 1 + 2048 would round back to 2048; in float32 the sum is 2050.
  ExpectTensor(Sum(MakeTensor(kF16, {3}, {1, 2048, 1}), std::nullopt), kF16, {}, {2050});
  ExpectTensor(Mean(MakeTensor(kBF16, {2}, {1, 2}), std::nullopt), kBF16, {}, {1.5});
}

TEST(ReduceTest, Errors) {
  EXPECT_RUNTIME_ERROR(Sum(X23(), AxisList{2}), "sum: axis 2 is out of range for shape [2, 3]");
  EXPECT_RUNTIME_ERROR(Mean(X23(), AxisList{1, -1}), "mean: axis -1 is repeated in [1, -1]");
  EXPECT_RUNTIME_ERROR(Sum(Bools({2}, {1, 0}), std::nullopt), "sum: unsupported dtype bool");
  EXPECT_RUNTIME_ERROR(Prod(X23(), AxisList{-3}), "prod: axis -3 is out of range for shape [2, 3]");
}

TEST(ArgReduceTest, FirstExtremum) {
  ExpectTensor(Argmax(F32({4}, {1, 5, 5, 2}), std::nullopt), kI64, {}, {1});
  ExpectTensor(Argmin(F32({4}, {3, 0, 7, 0}), std::nullopt), kI64, {}, {1});
  ExpectTensor(Argmax(X23(), 0), kI64, {3}, {1, 1, 1});
  ExpectTensor(Argmax(X23(), 1, true), kI64, {2, 1}, {2, 2});
  ExpectTensor(Argmin(X23(), -1), kI64, {2}, {0, 0});
  ExpectTensor(Argmax(X23(), std::nullopt, true), kI64, {1, 1}, {5});
  ExpectTensor(Argmax(F32({3}, {1, kNaN, 9}), std::nullopt), kI64, {}, {1});
  ExpectTensor(Argmin(F32({3}, {kNaN, kNaN, -9}), std::nullopt), kI64, {}, {0});
  ExpectTensor(Argmax(Iota(kI32, {2, 2, 2}), 1), kI64, {2, 2}, {1, 1, 1, 1});
  ExpectTensor(Argmax(MakeTensor(kF16, {2}, {1, 2}), 0), kI64, {}, {1});
}

TEST(ArgReduceTest, Errors) {
  EXPECT_RUNTIME_ERROR(Argmax(F32({2, 0}, {}), 1),
                       "argmax: cannot reduce an empty axis of shape [2, 0]");
  EXPECT_RUNTIME_ERROR(Argmin(F32({0}, {}), std::nullopt),
                       "argmin: cannot reduce an empty axis of shape [0]");
  EXPECT_RUNTIME_ERROR(Argmax(X23(), 2), "argmax: axis 2 is out of range for shape [2, 3]");
  EXPECT_RUNTIME_ERROR(Argmax(Bools({1}, {1}), 0), "argmax: unsupported dtype bool");
}

}  // namespace
}  // namespace pipesplit::runtime
