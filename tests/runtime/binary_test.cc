// Binary elementwise kernels: arithmetic, broadcasting, dtypes, comparisons, logical ops.
#include <limits>

#include "pipesplit/runtime/kernels/elementwise.h"
#include "tests/runtime/test_util.h"

namespace pipesplit::runtime {
namespace {

using namespace testing;  // NOLINT

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

TEST(BinaryTest, AddSameShape) {
  ExpectTensor(Add(F32({3}, {1, 2, 3}), F32({3}, {10, 20, 30})), kF32, {3}, {11, 22, 33});
}

TEST(BinaryTest, BroadcastsTrailingDims) {
  ExpectTensor(Add(F32({2, 3}, {1, 2, 3, 4, 5, 6}), F32({3}, {10, 20, 30})), kF32, {2, 3},
               {11, 22, 33, 14, 25, 36});
  ExpectTensor(Add(F32({3}, {10, 20, 30}), F32({2, 3}, {1, 2, 3, 4, 5, 6})), kF32, {2, 3},
               {11, 22, 33, 14, 25, 36});
}

TEST(BinaryTest, BroadcastsBothOperands) {
  // Outer product of [1, 2] and [3, 4, 5].
  ExpectTensor(Multiply(F32({2, 1}, {1, 2}), F32({1, 3}, {3, 4, 5})), kF32, {2, 3},
               {3, 4, 5, 6, 8, 10});
  // a[i, 0, k] + b[0, j, 0]
  ExpectTensor(Add(F32({2, 1, 3}, {1, 2, 3, 4, 5, 6}), F32({1, 2, 1}, {10, 20})), kF32, {2, 2, 3},
               {11, 12, 13, 21, 22, 23, 14, 15, 16, 24, 25, 26});
}

TEST(BinaryTest, BroadcastsScalars) {
  ExpectTensor(Subtract(F32({2, 2}, {1, 2, 3, 4}), MakeScalar(kF32, 1)), kF32, {2, 2},
               {0, 1, 2, 3});
  ExpectTensor(Subtract(MakeScalar(kF32, 1), F32({2, 2}, {1, 2, 3, 4})), kF32, {2, 2},
               {0, -1, -2, -3});
  ExpectTensor(Multiply(MakeScalar(kF32, 3), MakeScalar(kF32, 4)), kF32, {}, {12});
  ExpectTensor(Add(F32({1, 1}, {2}), F32({1}, {3})), kF32, {1, 1}, {5});
}

TEST(BinaryTest, BroadcastsMaskShapes) {
  // [2, 2, 2] + [1, 2, 2]: the same 2x2 mask added to both batches.
  ExpectTensor(Add(Iota(kF32, {2, 2, 2}), F32({1, 2, 2}, {0, -10, 0, 0})), kF32, {2, 2, 2},
               {0, -9, 2, 3, 4, -5, 6, 7});
  // [2, 2] * [2, 1]: each row scaled.
  ExpectTensor(Multiply(Iota(kF32, {2, 2}), F32({2, 1}, {10, 100})), kF32, {2, 2},
               {0, 10, 200, 300});
}

TEST(BinaryTest, EmptyShapes) {
  ExpectTensor(Add(F32({0, 3}, {}), F32({3}, {1, 2, 3})), kF32, {0, 3}, {});
  ExpectTensor(Add(F32({2, 1}, {1, 2}), F32({0}, {})), kF32, {2, 0}, {});
}

TEST(BinaryTest, Errors) {
  EXPECT_RUNTIME_ERROR(Add(F32({2, 3}, {1, 2, 3, 4, 5, 6}), F32({4}, {1, 2, 3, 4})),
                       "add: shapes [2, 3] and [4] cannot be broadcast");
  EXPECT_RUNTIME_ERROR(Multiply(F32({2}, {1, 2}), I32({2}, {1, 2})),
                       "multiply: dtypes float32 and int32 do not match");
  EXPECT_RUNTIME_ERROR(Add(Bools({1}, {1}), Bools({1}, {1})), "add: unsupported dtype bool");
  EXPECT_RUNTIME_ERROR(Subtract(F32({2}, {1, 2}), F32({3}, {1, 2, 3})),
                       "subtract: shapes [2] and [3] cannot be broadcast");
}

TEST(BinaryTest, IntegersWrap) {
  ExpectTensor(Add(I32({1}, {2147483647}), I32({1}, {1})), kI32, {1}, {-2147483648.0});
  ExpectTensor(Multiply(MakeTensor(kI8, {1}, {100}), MakeTensor(kI8, {1}, {3})), kI8, {1}, {44});
  ExpectTensor(Subtract(MakeTensor(kU8, {1}, {1}), MakeTensor(kU8, {1}, {2})), kU8, {1}, {255});
  ExpectTensor(Multiply(I64({1}, {int64_t{1} << 62}), I64({1}, {4})), kI64, {1}, {0});
}

TEST(BinaryTest, IntegerDivisionFamilies) {
  const Tensor a = I32({4}, {7, -7, 7, -7});
  const Tensor b = I32({4}, {2, 2, -2, -2});
  ExpectTensor(Divide(a, b), kI32, {4}, {3, -3, -3, 3});
  ExpectTensor(FloorDivide(a, b), kI32, {4}, {3, -4, -4, 3});
  ExpectTensor(FloorMod(a, b), kI32, {4}, {1, 1, -1, -1});
  ExpectTensor(Mod(a, b), kI32, {4}, {1, -1, 1, -1});
  ExpectTensor(FloorDivide(I32({2}, {6, -6}), I32({2}, {3, 3})), kI32, {2}, {2, -2});
  // The one overflowing quotient wraps.
  ExpectTensor(Divide(I32({1}, {-2147483648}), I32({1}, {-1})), kI32, {1}, {-2147483648.0});
  ExpectTensor(FloorDivide(I32({1}, {-2147483648}), I32({1}, {-1})), kI32, {1}, {-2147483648.0});
  ExpectTensor(FloorMod(I32({1}, {-2147483648}), I32({1}, {-1})), kI32, {1}, {0});
  ExpectTensor(Mod(I32({1}, {-2147483648}), I32({1}, {-1})), kI32, {1}, {0});
  ExpectTensor(Divide(MakeTensor(kU8, {1}, {200}), MakeTensor(kU8, {1}, {7})), kU8, {1}, {28});
}

TEST(BinaryTest, IntegerDivisionByZero) {
  EXPECT_RUNTIME_ERROR(Divide(I32({2}, {1, 2}), I32({2}, {1, 0})),
                       "divide: integer division by zero");
  EXPECT_RUNTIME_ERROR(FloorDivide(I64({1}, {1}), I64({1}, {0})),
                       "floor_divide: integer division by zero");
  EXPECT_RUNTIME_ERROR(FloorMod(I64({1}, {1}), I64({1}, {0})),
                       "floor_mod: integer division by zero");
  EXPECT_RUNTIME_ERROR(Mod(I64({1}, {1}), I64({1}, {0})), "mod: integer division by zero");
  // The dtype check comes first.
  EXPECT_RUNTIME_ERROR(Divide(F32({1}, {1}), I32({1}, {0})),
                       "divide: dtypes float32 and int32 do not match");
}

TEST(BinaryTest, FloatDivisionFamilies) {
  ExpectTensor(Divide(F32({3}, {1, -1, 0}), F32({3}, {0, 0, 0})), kF32, {3}, {kInf, -kInf, kNaN});
  ExpectTensor(Divide(F32({2}, {1, 7}), F32({2}, {4, -2})), kF32, {2}, {0.25, -3.5});
  ExpectTensor(FloorDivide(F32({2}, {7, -7}), F32({2}, {2, 2})), kF32, {2}, {3, -4});
  ExpectTensor(FloorMod(F32({2}, {7, -7}), F32({2}, {2, 2})), kF32, {2}, {1, 1});
  ExpectTensor(Mod(F32({2}, {7, -7}), F32({2}, {2, 2})), kF32, {2}, {1, -1});
}

TEST(BinaryTest, Power) {
  ExpectTensor(Power(F32({3}, {2, 4, 2}), F32({3}, {3, 0.5, -1})), kF32, {3}, {8, 2, 0.5});
  ExpectTensor(Power(I32({4}, {2, 3, -2, 5}), I32({4}, {10, 3, 3, 0})), kI32, {4},
               {1024, 27, -8, 1});
  ExpectTensor(Power(MakeTensor(kI8, {1}, {2}), MakeTensor(kI8, {1}, {8})), kI8, {1}, {0});
  EXPECT_RUNTIME_ERROR(Power(I32({1}, {2}), I32({1}, {-1})),
                       "power: integers to negative integer powers are not allowed");
}

TEST(BinaryTest, MaximumMinimumPropagateNaN) {
  ExpectTensor(Maximum(F32({3}, {1, 5, kNaN}), F32({3}, {3, 2, 1})), kF32, {3}, {3, 5, kNaN});
  ExpectTensor(Minimum(F32({3}, {1, 5, 1}), F32({3}, {3, 2, kNaN})), kF32, {3}, {1, 2, kNaN});
  ExpectTensor(Maximum(I64({2}, {-1, 4}), I64({1}, {0})), kI64, {2}, {0, 4});
}

TEST(BinaryTest, HalfTypesComputeInFloatAndRoundOnce) {
  // 1 + 0.0005 (itself rounded to float16) is above the midpoint below 1 + 2^-10;
  // 2048 + 1 is a tie and rounds to the even 2048.
  ExpectTensor(Add(MakeTensor(kF16, {2}, {1, 2048}), MakeTensor(kF16, {2}, {0.0005, 1})), kF16, {2},
               {1.0009765625, 2048});
  // bfloat16 keeps 8 significant bits: 256 + 1 ties to 256, 256 + 3 rounds to 260.
  ExpectTensor(Add(MakeTensor(kBF16, {2}, {256, 256}), MakeTensor(kBF16, {2}, {1, 3})), kBF16, {2},
               {256, 260});
  EXPECT_RUNTIME_ERROR(Add(MakeTensor(kF16, {1}, {1}), MakeTensor(kBF16, {1}, {1})),
                       "add: dtypes float16 and bfloat16 do not match");
}

TEST(BinaryTest, Float64) {
  ExpectTensor(Add(MakeTensor(kF64, {1}, {0.1}), MakeTensor(kF64, {1}, {0.2})), kF64, {1},
               {0.30000000000000004});
}

TEST(CompareTest, ProduceBool) {
  ExpectTensor(Less(F32({3}, {1, 2, 3}), F32({1}, {2})), kBool, {3}, {1, 0, 0});
  ExpectTensor(LessEqual(F32({3}, {1, 2, 3}), F32({1}, {2})), kBool, {3}, {1, 1, 0});
  ExpectTensor(Greater(F32({3}, {1, 2, 3}), F32({1}, {2})), kBool, {3}, {0, 0, 1});
  ExpectTensor(GreaterEqual(F32({3}, {1, 2, 3}), F32({1}, {2})), kBool, {3}, {0, 1, 1});
  ExpectTensor(Equal(I64({2, 2}, {1, 2, 3, 4}), I64({2}, {1, 4})), kBool, {2, 2}, {1, 0, 0, 1});
  ExpectTensor(NotEqual(I64({2}, {1, 2}), I64({2}, {1, 3})), kBool, {2}, {0, 1});
}

TEST(CompareTest, NaNAndBoolAndHalf) {
  ExpectTensor(Equal(F32({2}, {kNaN, 1}), F32({2}, {kNaN, 1})), kBool, {2}, {0, 1});
  ExpectTensor(NotEqual(F32({1}, {kNaN}), F32({1}, {kNaN})), kBool, {1}, {1});
  ExpectTensor(Less(F32({1}, {kNaN}), F32({1}, {1})), kBool, {1}, {0});
  ExpectTensor(Equal(Bools({2}, {1, 0}), Bools({2}, {1, 1})), kBool, {2}, {1, 0});
  ExpectTensor(Less(MakeTensor(kF16, {2}, {1, 2}), MakeTensor(kF16, {2}, {1.5, 1.5})), kBool, {2},
               {1, 0});
  EXPECT_RUNTIME_ERROR(Less(F32({1}, {1}), I64({1}, {1})),
                       "less: dtypes float32 and int64 do not match");
}

TEST(LogicalTest, OnBools) {
  const Tensor a = Bools({4}, {0, 0, 1, 1});
  const Tensor b = Bools({4}, {0, 1, 0, 1});
  ExpectTensor(LogicalAnd(a, b), kBool, {4}, {0, 0, 0, 1});
  ExpectTensor(LogicalOr(a, b), kBool, {4}, {0, 1, 1, 1});
  ExpectTensor(LogicalXor(a, b), kBool, {4}, {0, 1, 1, 0});
  ExpectTensor(LogicalAnd(a, Bools({}, {1})), kBool, {4}, {0, 0, 1, 1});
  EXPECT_RUNTIME_ERROR(LogicalAnd(F32({1}, {1}), F32({1}, {1})),
                       "logical_and: unsupported dtype float32");
  EXPECT_RUNTIME_ERROR(LogicalOr(a, Bools({3}, {1, 1, 1})),
                       "logical_or: shapes [4] and [3] cannot be broadcast");
}

TEST(BinaryTest, LargeBroadcastMatchesElementwiseDefinition) {
  // [5, 1, 7] + [1, 6, 7] against the definition out[i, j, k] = a[i, 0, k] + b[0, j, k].
  const Tensor a = Iota(kF32, {5, 1, 7});
  const Tensor b = Multiply(Iota(kF32, {1, 6, 7}), MakeScalar(kF32, 1000));
  const Tensor out = Add(a, b);
  ASSERT_EQ(ShapeToString(out.shape()), "[5, 6, 7]");
  const float* o = out.data<float>();
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 6; ++j) {
      for (int k = 0; k < 7; ++k) {
        EXPECT_EQ(o[(i * 6 + j) * 7 + k], static_cast<float>(i * 7 + k + 1000 * (j * 7 + k)));
      }
    }
  }
}

TEST(BinaryTest, ManyRowsRunInChunks) {
  // 10000 rows of 4: the loop is cut into chunks that start mid-tensor.
  const Tensor a = Iota(kF32, {200, 50, 4});
  const Tensor b = Multiply(Iota(kF32, {200, 1, 4}), MakeScalar(kF32, -1));
  const Tensor out = Subtract(a, b);  // a[i, j, k] + b'[i, k]
  const float* o = out.data<float>();
  for (int i = 0; i < 200; ++i) {
    for (int j = 0; j < 50; ++j) {
      for (int k = 0; k < 4; ++k) {
        ASSERT_EQ(o[(i * 50 + j) * 4 + k], static_cast<float>((i * 50 + j) * 4 + k + i * 4 + k));
      }
    }
  }
  const Tensor c = Less(Iota(kI32, {40000, 3}), I32({3}, {0, 60000, 120000}));
  const bool* p = c.data<bool>();
  for (int r = 0; r < 40000; ++r) {
    ASSERT_EQ(p[r * 3], false);
    ASSERT_EQ(p[r * 3 + 1], r * 3 + 1 < 60000);
    ASSERT_EQ(p[r * 3 + 2], r * 3 + 2 < 120000);
  }
}

}  // namespace
}  // namespace pipesplit::runtime
