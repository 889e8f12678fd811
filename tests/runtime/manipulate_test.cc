// Shape kernels: permute_dims, reshape, expand_dims, squeeze, flatten, broadcast_to.
#include "pipesplit/runtime/kernels/manipulate.h"

#include "tests/runtime/test_util.h"

namespace pipesplit::runtime {
namespace {

using namespace testing;  // NOLINT

using AxisList = std::vector<int64_t>;

TEST(PermuteDimsTest, Transpose2D) {
  ExpectTensor(PermuteDims(F32({2, 3}, {1, 2, 3, 4, 5, 6}), std::nullopt), kF32, {3, 2},
               {1, 4, 2, 5, 3, 6});
  ExpectTensor(PermuteDims(F32({2, 3}, {1, 2, 3, 4, 5, 6}), AxisList{1, 0}), kF32, {3, 2},
               {1, 4, 2, 5, 3, 6});
}

TEST(PermuteDimsTest, ContiguousInnerDim) {
  // out[j][i][k] = x[i][j][k]
  ExpectTensor(PermuteDims(Iota(kI32, {2, 2, 2}), AxisList{1, 0, 2}), kI32, {2, 2, 2},
               {0, 1, 4, 5, 2, 3, 6, 7});
  // out[a][c][b][d] = x[a][b][c][d] = 8a + 4b + 2c + d
  ExpectTensor(PermuteDims(Iota(kI32, {2, 2, 2, 2}), AxisList{0, 2, 1, 3}), kI32, {2, 2, 2, 2},
               {0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15});
}

TEST(PermuteDimsTest, RotationAndReversal) {
  // out[k][i][j] = x[i][j][k] = 6i + 3j + k
  ExpectTensor(PermuteDims(Iota(kF32, {2, 2, 3}), AxisList{2, 0, 1}), kF32, {3, 2, 2},
               {0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11});
  // out[k][j][i] = x[i][j][k] = 4i + 2j + k
  ExpectTensor(PermuteDims(Iota(kF32, {2, 2, 2}), std::nullopt), kF32, {2, 2, 2},
               {0, 4, 2, 6, 1, 5, 3, 7});
  ExpectTensor(PermuteDims(Iota(kF32, {2, 2, 2}), AxisList{-1, 1, -3}), kF32, {2, 2, 2},
               {0, 4, 2, 6, 1, 5, 3, 7});
}

TEST(PermuteDimsTest, SharesStorageWhenNothingMoves) {
  const Tensor x = Iota(kF32, {1, 3});
  const Tensor t = PermuteDims(x, AxisList{1, 0});
  EXPECT_EQ(t.raw_data(), x.raw_data());
  EXPECT_EQ(ShapeToString(t.shape()), "[3, 1]");
  EXPECT_EQ(PermuteDims(Iota(kF32, {2, 3}), AxisList{0, 1}).ToString(), "float32[2, 3]");
  const Tensor y = Iota(kF32, {2, 1, 3});
  EXPECT_EQ(PermuteDims(y, AxisList{1, 0, 2}).raw_data(), y.raw_data());
}

TEST(PermuteDimsTest, LargeMatchesDefinition) {
  for (const auto& shape : {Shape{70, 45}, Shape{3, 33, 40}}) {
    const Tensor x = Iota(kI64, shape);
    const int n = static_cast<int>(shape.size());
    const Tensor t = PermuteDims(x, std::nullopt);
    const int64_t* out = t.data<int64_t>();
    if (n == 2) {
      for (int64_t i = 0; i < shape[0]; ++i) {
        for (int64_t j = 0; j < shape[1]; ++j) EXPECT_EQ(out[j * shape[0] + i], i * shape[1] + j);
      }
    } else {
      for (int64_t i = 0; i < shape[0]; ++i) {
        for (int64_t j = 0; j < shape[1]; ++j) {
          for (int64_t k = 0; k < shape[2]; ++k) {
            EXPECT_EQ(out[(k * shape[1] + j) * shape[0] + i], (i * shape[1] + j) * shape[2] + k);
          }
        }
      }
    }
  }
}

TEST(PermuteDimsTest, HalfAndBoolElements) {
  ExpectTensor(PermuteDims(MakeTensor(kF16, {2, 2}, {1, 2, 3, 4}), std::nullopt), kF16, {2, 2},
               {1, 3, 2, 4});
  ExpectTensor(PermuteDims(Bools({2, 2}, {1, 1, 0, 0}), std::nullopt), kBool, {2, 2}, {1, 0, 1, 0});
}

TEST(PermuteDimsTest, Errors) {
  const Tensor x = Iota(kF32, {2, 3});
  EXPECT_RUNTIME_ERROR(PermuteDims(x, AxisList{0}),
                       "permute_dims: axes [0] do not match shape [2, 3]");
  EXPECT_RUNTIME_ERROR(PermuteDims(x, AxisList{0, 0}),
                       "permute_dims: axis 0 is repeated in [0, 0]");
  EXPECT_RUNTIME_ERROR(PermuteDims(x, AxisList{0, 2}),
                       "permute_dims: axis 2 is out of range for shape [2, 3]");
}

TEST(ReshapeTest, SharesStorage) {
  const Tensor x = Iota(kF32, {2, 3});
  const Tensor r = Reshape(x, AxisList{3, 2});
  EXPECT_EQ(r.raw_data(), x.raw_data());
  ExpectTensor(r, kF32, {3, 2}, {0, 1, 2, 3, 4, 5});
  ExpectTensor(Reshape(x, AxisList{-1, 2}), kF32, {3, 2}, {0, 1, 2, 3, 4, 5});
  ExpectTensor(Reshape(x, AxisList{6, -1}), kF32, {6, 1}, {0, 1, 2, 3, 4, 5});
  ExpectTensor(Reshape(MakeScalar(kF32, 5), AxisList{1, 1}), kF32, {1, 1}, {5});
  ExpectTensor(Reshape(F32({0, 3}, {}), AxisList{3, 0}), kF32, {3, 0}, {});
}

TEST(ReshapeTest, Errors) {
  const Tensor x = Iota(kF32, {2, 3});
  EXPECT_RUNTIME_ERROR(Reshape(x, AxisList{4, 2}),
                       "reshape: cannot reshape [2, 3] (6 elements) into [4, 2]");
  EXPECT_RUNTIME_ERROR(Reshape(x, AxisList{4, -1}),
                       "reshape: cannot reshape [2, 3] (6 elements) into [4, -1]");
  EXPECT_RUNTIME_ERROR(Reshape(x, AxisList{-1, -1}), "reshape: more than one -1 in [-1, -1]");
  EXPECT_RUNTIME_ERROR(Reshape(x, AxisList{-2, 3}), "reshape: negative dim -2 in [-2, 3]");
  EXPECT_RUNTIME_ERROR(Reshape(F32({0}, {}), AxisList{-1, 0}),
                       "reshape: cannot reshape [0] (0 elements) into [-1, 0]");
  EXPECT_RUNTIME_ERROR(Reshape(x, AxisList{int64_t{1} << 62, 4, -1}),
                       "reshape: shape [4611686018427387904, 4] has too many elements");
}

TEST(ExpandDimsTest, InsertsUnitDims) {
  const Tensor x = Iota(kF32, {2, 3});
  EXPECT_EQ(ExpandDims(x, AxisList{0, -1}).ToString(), "float32[1, 2, 3, 1]");
  EXPECT_EQ(ExpandDims(x, AxisList{1}).ToString(), "float32[2, 1, 3]");
  EXPECT_EQ(ExpandDims(x, AxisList{-1}).ToString(), "float32[2, 3, 1]");
  EXPECT_EQ(ExpandDims(x, AxisList{}).ToString(), "float32[2, 3]");
  EXPECT_EQ(ExpandDims(x, AxisList{1}).raw_data(), x.raw_data());
  EXPECT_RUNTIME_ERROR(
      ExpandDims(x, AxisList{3}),
      "expand_dims: axis 3 is out of range for 3 result dims (input shape [2, 3])");
  EXPECT_RUNTIME_ERROR(ExpandDims(x, AxisList{1, -3}),
                       "expand_dims: axis -3 is repeated in [1, -3]");
}

TEST(SqueezeTest, RemovesUnitDims) {
  const Tensor x = Iota(kF32, {1, 2, 1});
  EXPECT_EQ(Squeeze(x, std::nullopt).ToString(), "float32[2]");
  EXPECT_EQ(Squeeze(x, AxisList{0}).ToString(), "float32[2, 1]");
  EXPECT_EQ(Squeeze(x, AxisList{-1, 0}).ToString(), "float32[2]");
  EXPECT_EQ(Squeeze(x, AxisList{0}).raw_data(), x.raw_data());
  EXPECT_EQ(Squeeze(Iota(kF32, {1, 1}), std::nullopt).ToString(), "float32[]");
  EXPECT_RUNTIME_ERROR(Squeeze(x, AxisList{1}),
                       "squeeze: axis 1 of shape [1, 2, 1] has size 2, not 1");
  EXPECT_RUNTIME_ERROR(Squeeze(x, AxisList{0, -3}), "squeeze: axis -3 is repeated in [0, -3]");
  EXPECT_RUNTIME_ERROR(Squeeze(x, AxisList{3}),
                       "squeeze: axis 3 is out of range for shape [1, 2, 1]");
}

TEST(FlattenTest, MakesOneDim) {
  const Tensor x = Iota(kF32, {2, 3});
  ExpectTensor(Flatten(x), kF32, {6}, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(Flatten(MakeScalar(kF32, 1)).ToString(), "float32[1]");
}

TEST(BroadcastToTest, Broadcasts) {
  ExpectTensor(BroadcastTo(F32({3}, {1, 2, 3}), AxisList{2, 3}), kF32, {2, 3}, {1, 2, 3, 1, 2, 3});
  ExpectTensor(BroadcastTo(F32({2, 1}, {1, 2}), AxisList{2, 3}), kF32, {2, 3}, {1, 1, 1, 2, 2, 2});
  ExpectTensor(BroadcastTo(F32({1}, {7}), AxisList{2, 2}), kF32, {2, 2}, {7, 7, 7, 7});
  ExpectTensor(BroadcastTo(MakeTensor(kF16, {2, 1, 1}, {1, 2}), AxisList{2, 2, 1}), kF16, {2, 2, 1},
               {1, 1, 2, 2});
  const Tensor x = Iota(kF32, {2, 3});
  EXPECT_EQ(BroadcastTo(x, AxisList{2, 3}).raw_data(), x.raw_data());
  ExpectTensor(BroadcastTo(x, AxisList{0, 2, 3}), kF32, {0, 2, 3}, {});
}

TEST(BroadcastToTest, Errors) {
  EXPECT_RUNTIME_ERROR(BroadcastTo(Iota(kF32, {2, 3}), AxisList{3}),
                       "broadcast_to: cannot broadcast [2, 3] to [3]");
  EXPECT_RUNTIME_ERROR(BroadcastTo(Iota(kF32, {2}), AxisList{3}),
                       "broadcast_to: cannot broadcast [2] to [3]");
  EXPECT_RUNTIME_ERROR(BroadcastTo(Iota(kF32, {1}), AxisList{-1}),
                       "broadcast_to: negative dimension in shape [-1]");
}

}  // namespace
}  // namespace pipesplit::runtime
