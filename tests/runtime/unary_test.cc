// Unary elementwise kernels, activations, clip, where and astype.
#include <cstring>
#include <limits>

#include "pipesplit/runtime/kernels/elementwise.h"
#include "tests/runtime/test_util.h"

namespace pipesplit::runtime {
namespace {

using namespace testing;  // NOLINT

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();
constexpr double kTol = 1e-6;

uint16_t Bits16(const Tensor& t, int64_t i) {
  uint16_t bits = 0;
  std::memcpy(&bits, static_cast<const char*>(t.raw_data()) + 2 * i, 2);
  return bits;
}

TEST(UnaryTest, NumericOps) {
  ExpectTensor(Negative(F32({2}, {1, -2})), kF32, {2}, {-1, 2});
  ExpectTensor(Negative(I32({2}, {-2147483648, 5})), kI32, {2}, {-2147483648.0, -5});
  ExpectTensor(Abs(F32({3}, {-1.5, 2, -0.0})), kF32, {3}, {1.5, 2, 0});
  ExpectTensor(Abs(I32({2}, {-2147483648, -3})), kI32, {2}, {-2147483648.0, 3});
  ExpectTensor(Abs(MakeTensor(kU8, {1}, {200})), kU8, {1}, {200});
  ExpectTensor(Square(F32({2}, {-3, 0.5})), kF32, {2}, {9, 0.25});
  ExpectTensor(Square(MakeTensor(kI8, {1}, {16})), kI8, {1}, {0});
  ExpectTensor(Relu(F32({4}, {-1, 0, 2, kNaN})), kF32, {4}, {0, 0, 2, kNaN});
  ExpectTensor(Relu(I64({2}, {-7, 7})), kI64, {2}, {0, 7});
  EXPECT_RUNTIME_ERROR(Negative(Bools({1}, {1})), "negative: unsupported dtype bool");
}

TEST(UnaryTest, Clip) {
  ExpectTensor(Clip(F32({4}, {-2, 0.5, 3, kNaN}), -1, 1), kF32, {4}, {-1, 0.5, 1, kNaN});
  ExpectTensor(Clip(I32({3}, {-5, 2, 9}), 0, 4), kI32, {3}, {0, 2, 4});
  // Bounds are rounded to the input dtype first: 0.1 becomes 0.0999755859375 in float16.
  ExpectTensor(Clip(MakeTensor(kF16, {2}, {0, 1}), 0.1, 0.5), kF16, {2}, {0.0999755859375, 0.5});
  EXPECT_RUNTIME_ERROR(Clip(Bools({1}, {1}), 0, 1), "clip: unsupported dtype bool");
}

TEST(UnaryTest, ExpLogSqrt) {
  ExpectNear(Exp(F32({3}, {0, 1, -1})), kF32, {3}, {1, 2.718281828459045, 0.36787944117144233},
             kTol);
  ExpectTensor(Exp(F32({2}, {-kInf, 1000})), kF32, {2}, {0, kInf});
  ExpectNear(Log(F32({3}, {1, 2.718281828459045, 0.5})), kF32, {3}, {0, 1, -0.6931471805599453},
             kTol);
  ExpectTensor(Log(F32({2}, {0, -1})), kF32, {2}, {-kInf, kNaN});
  ExpectTensor(Sqrt(F32({3}, {4, 0.25, -1})), kF32, {3}, {2, 0.5, kNaN});
  ExpectTensor(Rsqrt(F32({3}, {4, 0.25, 0})), kF32, {3}, {0.5, 2, kInf});
  ExpectTensor(Sqrt(MakeTensor(kF64, {1}, {2})), kF64, {1}, {1.4142135623730951});
}

TEST(UnaryTest, Trigonometry) {
  ExpectNear(Tanh(F32({3}, {0, 1, -1})), kF32, {3}, {0, 0.7615941559557649, -0.7615941559557649},
             kTol);
  ExpectTensor(Tanh(F32({2}, {100, -100})), kF32, {2}, {1, -1});
  ExpectNear(Erf(F32({2}, {0, 0.5})), kF32, {2}, {0, 0.5204998778130465}, kTol);
  ExpectNear(Sin(F32({2}, {0, 1})), kF32, {2}, {0, 0.8414709848078965}, kTol);
  ExpectNear(Cos(F32({2}, {0, 1})), kF32, {2}, {1, 0.5403023058681398}, kTol);
  ExpectTensor(Floor(F32({3}, {1.5, -1.5, 2})), kF32, {3}, {1, -2, 2});
  ExpectTensor(Ceil(F32({3}, {1.5, -1.5, 2})), kF32, {3}, {2, -1, 2});
}

TEST(UnaryTest, Activations) {
  ExpectNear(Sigmoid(F32({3}, {0, 2, -2})), kF32, {3},
             {0.5, 0.8807970779778823, 0.11920292202211755}, kTol);
  ExpectTensor(Sigmoid(F32({2}, {-1000, 1000})), kF32, {2}, {0, 1});
  ExpectNear(Silu(F32({3}, {1, -1, 0})), kF32, {3}, {0.7310585786300049, -0.2689414213699951, 0},
             kTol);
  ExpectNear(Gelu(F32({3}, {1, -1, 0})), kF32, {3}, {0.8413447460685429, -0.15865525393145707, 0},
             kTol);
  ExpectNear(GeluTanh(F32({3}, {1, -1, 0})), kF32, {3},
             {0.8411919906082768, -0.15880800939172324, 0}, kTol);
  ExpectTensor(Gelu(F32({2}, {-100, 100})), kF32, {2}, {-0.0, 100});
}

TEST(UnaryTest, FloatOnlyOpsRejectIntegers) {
  EXPECT_RUNTIME_ERROR(Exp(I32({1}, {1})), "exp: unsupported dtype int32");
  EXPECT_RUNTIME_ERROR(Sigmoid(I64({1}, {1})), "sigmoid: unsupported dtype int64");
  EXPECT_RUNTIME_ERROR(Gelu(Bools({1}, {1})), "nn.gelu: unsupported dtype bool");
  EXPECT_RUNTIME_ERROR(Silu(I32({1}, {1})), "nn.silu: unsupported dtype int32");
}

TEST(UnaryTest, HalfTypesRoundOnStore) {
  // e in float16 is 2.71875 (spacing 2^-9 in [2, 4)); in bfloat16 2.71875 too (spacing 2^-6).
  const Tensor h = Exp(MakeTensor(kF16, {1}, {1}));
  ExpectTensor(h, kF16, {1}, {2.71875});
  EXPECT_EQ(Bits16(h, 0), 0x4170);
  ExpectTensor(Exp(MakeTensor(kBF16, {1}, {1})), kBF16, {1}, {2.71875});
  ExpectTensor(Sqrt(MakeTensor(kF16, {1}, {2})), kF16, {1}, {1.4140625});
}

TEST(UnaryTest, LogicalNot) {
  ExpectTensor(LogicalNot(Bools({2}, {1, 0})), kBool, {2}, {0, 1});
  EXPECT_RUNTIME_ERROR(LogicalNot(F32({1}, {1})), "logical_not: unsupported dtype float32");
}

TEST(WhereTest, SelectsAndBroadcasts) {
  ExpectTensor(Where(Bools({3}, {1, 0, 1}), F32({3}, {1, 2, 3}), MakeScalar(kF32, 0)), kF32, {3},
               {1, 0, 3});
  // cond [2, 1], x [1, 3], y [2, 3]
  ExpectTensor(
      Where(Bools({2, 1}, {1, 0}), F32({1, 3}, {1, 2, 3}), F32({2, 3}, {10, 20, 30, 40, 50, 60})),
      kF32, {2, 3}, {1, 2, 3, 40, 50, 60});
  ExpectTensor(Where(Bools({}, {0}), I64({2}, {1, 2}), I64({2}, {3, 4})), kI64, {2}, {3, 4});
  ExpectTensor(
      Where(Bools({2}, {0, 1}), MakeTensor(kF16, {2}, {1, 2}), MakeTensor(kF16, {2}, {3, 4})), kF16,
      {2}, {3, 2});
}

TEST(WhereTest, Errors) {
  EXPECT_RUNTIME_ERROR(Where(F32({1}, {1}), F32({1}, {1}), F32({1}, {1})),
                       "where: condition must be bool, not float32");
  EXPECT_RUNTIME_ERROR(Where(Bools({1}, {1}), F32({1}, {1}), I64({1}, {1})),
                       "where: dtypes float32 and int64 do not match");
  EXPECT_RUNTIME_ERROR(Where(Bools({3}, {1, 1, 1}), F32({2}, {1, 2}), F32({2}, {1, 2})),
                       "where: shapes [3] and [2] cannot be broadcast");
  EXPECT_RUNTIME_ERROR(Where(Bools({1}, {1}), F32({2}, {1, 2}), F32({3}, {1, 2, 3})),
                       "where: shapes [2] and [3] cannot be broadcast");
}

TEST(AstypeTest, FloatToInteger) {
  ExpectTensor(Astype(F32({5}, {1.7, -1.7, kNaN, 3e9, -3e9}), kI32), kI32, {5},
               {1, -1, 0, 2147483647, -2147483648.0});
  ExpectTensor(Astype(F32({4}, {-1, 300, 255.9, -0.5}), kU8), kU8, {4}, {0, 255, 255, 0});
  ExpectTensor(Astype(F32({2}, {kInf, -kInf}), kI64), kI64, {2},
               {9223372036854775807.0, -9223372036854775808.0});
}

TEST(AstypeTest, IntegerAndBool) {
  ExpectTensor(Astype(I64({3}, {300, -129, 127}), kI8), kI8, {3}, {44, 127, 127});
  ExpectTensor(Astype(I32({1}, {-1}), kU8), kU8, {1}, {255});
  ExpectTensor(Astype(F32({4}, {0, -0.0, 0.5, kNaN}), kBool), kBool, {4}, {0, 0, 1, 1});
  ExpectTensor(Astype(I32({2}, {0, -3}), kBool), kBool, {2}, {0, 1});
  ExpectTensor(Astype(Bools({2}, {1, 0}), kF32), kF32, {2}, {1, 0});
  ExpectTensor(Astype(Bools({2}, {1, 0}), kF16), kF16, {2}, {1, 0});
  ExpectTensor(Astype(Bools({2}, {1, 0}), kBF16), kBF16, {2}, {1, 0});
}

TEST(AstypeTest, ToSixteenBitFloats) {
  const Tensor h = Astype(F32({4}, {65520, 0.1, -0.0, kNaN}), kF16);
  EXPECT_EQ(Bits16(h, 0), 0x7c00);
  EXPECT_EQ(Bits16(h, 1), 0x2e66);
  EXPECT_EQ(Bits16(h, 2), 0x8000);
  EXPECT_EQ(Bits16(h, 3), 0x7e00);
  // float64 narrows without double rounding; integers go through exact doubles.
  EXPECT_EQ(Bits16(Astype(MakeTensor(kF64, {1}, {1.0 + 0x1p-11 + 0x1p-40}), kF16), 0), 0x3c01);
  ExpectTensor(Astype(I32({2}, {2049, 2051}), kF16), kF16, {2}, {2048, 2052});
  const Tensor b = Astype(F32({1}, {3.14159265}), kBF16);
  EXPECT_EQ(Bits16(b, 0), 0x4049);
  ExpectTensor(Astype(b, kF32), kF32, {1}, {3.140625});
  ExpectTensor(Astype(MakeTensor(kF16, {1}, {0.1}), kBF16), kBF16, {1}, {0.10009765625});
}

TEST(AstypeTest, SameDTypeSharesAndErrors) {
  const Tensor t = F32({2}, {1, 2});
  EXPECT_EQ(Astype(t, kF32).raw_data(), t.raw_data());
  EXPECT_RUNTIME_ERROR(Astype(t, DataType::Int(4)), "astype: unsupported dtype int4");
  const uint8_t raw = 0;
  const Tensor f8 = FromBytes(DataType(DataType::Code::kFloat8E5M2, 8), {1}, &raw, 1);
  EXPECT_RUNTIME_ERROR(Astype(f8, kF32), "astype: unsupported dtype float8_e5m2");
}

}  // namespace
}  // namespace pipesplit::runtime
