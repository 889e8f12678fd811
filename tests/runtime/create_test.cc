// Creation kernels and triangular masks.
#include "pipesplit/runtime/kernels/create.h"

#include <cstring>
#include <limits>

#include "tests/runtime/test_util.h"

namespace pipesplit::runtime {
namespace {

using namespace testing;  // NOLINT

using ShapeList = std::vector<int64_t>;
const DataType kF8 = DataType(DataType::Code::kFloat8E4M3FN, 8);

TEST(CreateTest, ZerosOnesFull) {
  ExpectTensor(Zeros(ShapeList{2, 2}, kF32), kF32, {2, 2}, {0, 0, 0, 0});
  ExpectTensor(Zeros(ShapeList{2}, kBool), kBool, {2}, {0, 0});
  ExpectTensor(Ones(ShapeList{3}, kI64), kI64, {3}, {1, 1, 1});
  ExpectTensor(Ones(ShapeList{}, kBF16), kBF16, {}, {1});
  ExpectTensor(Full(ShapeList{2}, MakeScalar(kF32, 2.5)), kF32, {2}, {2.5, 2.5});
  ExpectTensor(Full(ShapeList{2}, MakeScalar(kF32, 2.5), kI32), kI32, {2}, {2, 2});
  ExpectTensor(Full(ShapeList{0, 4}, MakeScalar(kF32, 1)), kF32, {0, 4}, {});
  const Tensor h = FullValue(ShapeList{2}, 0.1, kF16);
  uint16_t bits[2];
  std::memcpy(bits, h.raw_data(), 4);
  EXPECT_EQ(bits[0], 0x2e66);
  EXPECT_EQ(bits[1], 0x2e66);
  EXPECT_EQ(Zeros(ShapeList{1}, kF8).ToString(), "float8_e4m3fn[1]");
}

TEST(CreateTest, Errors) {
  EXPECT_RUNTIME_ERROR(Full(ShapeList{2}, F32({2}, {1, 2})),
                       "full: fill_value must be a scalar, not shape [2]");
  EXPECT_RUNTIME_ERROR(Zeros(ShapeList{-1}, kF32), "zeros: negative dimension in shape [-1]");
  EXPECT_RUNTIME_ERROR(Ones(ShapeList{2, -3}, kF32), "full: negative dimension in shape [2, -3]");
  EXPECT_RUNTIME_ERROR(Zeros(ShapeList{1}, DataType::Int(4)), "zeros: unsupported dtype int4");
  EXPECT_RUNTIME_ERROR(Ones(ShapeList{1}, kF8), "full: unsupported dtype float8_e4m3fn");
  EXPECT_RUNTIME_ERROR(Full(ShapeList{1}, MakeScalar(kF32, 1), DataType::Handle()),
                       "full: unsupported dtype handle");
}

TEST(ArangeTest, Ranges) {
  ExpectTensor(Arange(0, 5, 1, kI64), kI64, {5}, {0, 1, 2, 3, 4});
  ExpectTensor(Arange(1, 2, 0.25, kF32), kF32, {4}, {1, 1.25, 1.5, 1.75});
  ExpectTensor(Arange(5, 0, -2, kI32), kI32, {3}, {5, 3, 1});
  ExpectTensor(Arange(0, 0, 1, kF32), kF32, {0}, {});
  ExpectTensor(Arange(3, 0, 1, kF32), kF32, {0}, {});
  EXPECT_RUNTIME_ERROR(Arange(0, 1, 0, kF32), "arange: step must not be 0");
  EXPECT_RUNTIME_ERROR(Arange(0, std::numeric_limits<double>::infinity(), 1, kF32),
                       "arange: start, end and step must be finite");
  EXPECT_RUNTIME_ERROR(Arange(0, 1e18, 1, kF32), "arange: too many elements");
}

TEST(TriangleTest, TriuAndTril) {
  const Tensor x = F32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  ExpectTensor(Triu(x), kF32, {3, 3}, {1, 2, 3, 0, 5, 6, 0, 0, 9});
  ExpectTensor(Triu(x, 1), kF32, {3, 3}, {0, 2, 3, 0, 0, 6, 0, 0, 0});
  ExpectTensor(Triu(x, -1), kF32, {3, 3}, {1, 2, 3, 4, 5, 6, 0, 8, 9});
  ExpectTensor(Tril(x), kF32, {3, 3}, {1, 0, 0, 4, 5, 0, 7, 8, 9});
  ExpectTensor(Tril(x, -1), kF32, {3, 3}, {0, 0, 0, 4, 0, 0, 7, 8, 0});
  ExpectTensor(Tril(x, 1), kF32, {3, 3}, {1, 2, 0, 4, 5, 6, 7, 8, 9});
}

TEST(TriangleTest, BatchedNonSquareAndExtremeK) {
  ExpectTensor(Tril(Iota(kI32, {2, 2, 3})), kI32, {2, 2, 3}, {0, 0, 0, 3, 4, 0, 6, 0, 0, 9, 10, 0});
  const Tensor x = F32({2, 2}, {1, 2, 3, 4});
  ExpectTensor(Triu(x, std::numeric_limits<int64_t>::max()), kF32, {2, 2}, {0, 0, 0, 0});
  ExpectTensor(Triu(x, std::numeric_limits<int64_t>::min()), kF32, {2, 2}, {1, 2, 3, 4});
  ExpectTensor(Tril(x, std::numeric_limits<int64_t>::min()), kF32, {2, 2}, {0, 0, 0, 0});
  ExpectTensor(Tril(x, std::numeric_limits<int64_t>::max()), kF32, {2, 2}, {1, 2, 3, 4});
  ExpectTensor(Triu(MakeTensor(kF16, {2, 2}, {1, 2, 3, 4})), kF16, {2, 2}, {1, 2, 0, 4});
  ExpectTensor(Triu(F32({0, 2}, {})), kF32, {0, 2}, {});
}

TEST(TriangleTest, Errors) {
  EXPECT_RUNTIME_ERROR(Triu(F32({3}, {1, 2, 3})), "triu: needs at least 2 dims, got shape [3]");
  EXPECT_RUNTIME_ERROR(Tril(MakeScalar(kF32, 1)), "tril: needs at least 2 dims, got shape []");
}

}  // namespace
}  // namespace pipesplit::runtime
