// Indexing kernels: concat, split, strided_slice, take.
#include <limits>

#include "pipesplit/runtime/kernels/manipulate.h"
#include "tests/runtime/test_util.h"

namespace pipesplit::runtime {
namespace {

using namespace testing;  // NOLINT

using AxisList = std::vector<int64_t>;
const int64_t kMax = std::numeric_limits<int64_t>::max();
const int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(ConcatTest, JoinsAlongAxes) {
  const std::vector<Tensor> rows = {F32({1, 2}, {1, 2}), F32({2, 2}, {3, 4, 5, 6})};
  ExpectTensor(Concat(rows, 0), kF32, {3, 2}, {1, 2, 3, 4, 5, 6});
  const std::vector<Tensor> cols = {F32({2, 1}, {1, 2}), F32({2, 2}, {3, 4, 5, 6})};
  ExpectTensor(Concat(cols, 1), kF32, {2, 3}, {1, 3, 4, 2, 5, 6});
  ExpectTensor(Concat(cols, -1), kF32, {2, 3}, {1, 3, 4, 2, 5, 6});
  const std::vector<Tensor> mixed = {F32({1, 2}, {1, 2}), F32({1}, {3})};
  ExpectTensor(Concat(mixed, std::nullopt), kF32, {3}, {1, 2, 3});
  const std::vector<Tensor> with_empty = {F32({0, 2}, {}), F32({1, 2}, {7, 8}), F32({0, 2}, {})};
  ExpectTensor(Concat(with_empty, 0), kF32, {1, 2}, {7, 8});
  const std::vector<Tensor> one = {F32({2}, {1, 2})};
  EXPECT_EQ(Concat(one, 0).raw_data(), one[0].raw_data());
  const std::vector<Tensor> halves = {MakeTensor(kF16, {1}, {1}), MakeTensor(kF16, {2}, {2, 3})};
  ExpectTensor(Concat(halves, 0), kF16, {3}, {1, 2, 3});
}

TEST(ConcatTest, Errors) {
  EXPECT_RUNTIME_ERROR(Concat(std::vector<Tensor>{}, 0), "concat: no tensors to join");
  const std::vector<Tensor> shapes = {F32({1, 2}, {1, 2}), F32({2, 3}, {1, 2, 3, 4, 5, 6})};
  EXPECT_RUNTIME_ERROR(Concat(shapes, 0),
                       "concat: shapes [1, 2] and [2, 3] cannot be joined along axis 0");
  const std::vector<Tensor> ranks = {F32({1, 2}, {1, 2}), F32({2}, {1, 2})};
  EXPECT_RUNTIME_ERROR(Concat(ranks, 1),
                       "concat: shapes [1, 2] and [2] cannot be joined along axis 1");
  const std::vector<Tensor> dtypes = {F32({1}, {1}), I32({1}, {1})};
  EXPECT_RUNTIME_ERROR(Concat(dtypes, 0), "concat: dtypes float32 and int32 do not match");
  EXPECT_RUNTIME_ERROR(Concat(dtypes, 1), "concat: axis 1 is out of range for shape [1]");
}

TEST(SplitTest, Sections) {
  const Tensor x = Iota(kF32, {6});
  std::vector<Tensor> parts = Split(x, int64_t{3}, 0);
  ASSERT_EQ(parts.size(), 3u);
  ExpectTensor(parts[0], kF32, {2}, {0, 1});
  ExpectTensor(parts[1], kF32, {2}, {2, 3});
  ExpectTensor(parts[2], kF32, {2}, {4, 5});
  // ceil(6 / 4) = 2 per part: the last part is empty.
  parts = Split(x, int64_t{4}, 0);
  ASSERT_EQ(parts.size(), 4u);
  ExpectTensor(parts[2], kF32, {2}, {4, 5});
  ExpectTensor(parts[3], kF32, {0}, {});
  parts = Split(Iota(kF32, {5}), int64_t{2}, -1);
  ASSERT_EQ(parts.size(), 2u);
  ExpectTensor(parts[0], kF32, {3}, {0, 1, 2});
  ExpectTensor(parts[1], kF32, {2}, {3, 4});
  parts = Split(x, int64_t{1}, 0);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].raw_data(), x.raw_data());
}

TEST(SplitTest, Indices) {
  const Tensor x = Iota(kF32, {6});
  std::vector<Tensor> parts = Split(x, AxisList{1, 4}, 0);
  ASSERT_EQ(parts.size(), 3u);
  ExpectTensor(parts[0], kF32, {1}, {0});
  ExpectTensor(parts[1], kF32, {3}, {1, 2, 3});
  ExpectTensor(parts[2], kF32, {2}, {4, 5});
  parts = Split(x, AxisList{2, 10}, 0);  // clamped to the dim
  ASSERT_EQ(parts.size(), 3u);
  ExpectTensor(parts[1], kF32, {4}, {2, 3, 4, 5});
  ExpectTensor(parts[2], kF32, {0}, {});
  parts = Split(x, AxisList{4, 2}, 0);  // descending: an empty middle part
  ASSERT_EQ(parts.size(), 3u);
  ExpectTensor(parts[0], kF32, {4}, {0, 1, 2, 3});
  ExpectTensor(parts[1], kF32, {0}, {});
  ExpectTensor(parts[2], kF32, {4}, {2, 3, 4, 5});
  EXPECT_EQ(Split(x, AxisList{}, 0).size(), 1u);
}

TEST(SplitTest, InnerAxis) {
  const std::vector<Tensor> parts = Split(Iota(kI32, {2, 3}), int64_t{3}, 1);
  ASSERT_EQ(parts.size(), 3u);
  ExpectTensor(parts[0], kI32, {2, 1}, {0, 3});
  ExpectTensor(parts[1], kI32, {2, 1}, {1, 4});
  ExpectTensor(parts[2], kI32, {2, 1}, {2, 5});
}

TEST(SplitTest, Errors) {
  EXPECT_RUNTIME_ERROR(Split(Iota(kF32, {6}), int64_t{0}, 0),
                       "split: the number of sections must be positive, not 0");
  EXPECT_RUNTIME_ERROR(Split(Iota(kF32, {6}), int64_t{2}, 1),
                       "split: axis 1 is out of range for shape [6]");
}

TEST(StridedSliceTest, OneAxis) {
  const Tensor x = Iota(kF32, {10});
  ExpectTensor(StridedSlice(x, AxisList{0}, AxisList{2}, AxisList{8}, AxisList{2}), kF32, {3},
               {2, 4, 6});
  ExpectTensor(StridedSlice(x, AxisList{0}, AxisList{-3}, AxisList{10000}), kF32, {3}, {7, 8, 9});
  ExpectTensor(StridedSlice(x, AxisList{0}, AxisList{8}, AxisList{2}, AxisList{-2}), kF32, {3},
               {8, 6, 4});
  ExpectTensor(StridedSlice(x, AxisList{0}, AxisList{-1}, AxisList{-100}, AxisList{-3}), kF32, {4},
               {9, 6, 3, 0});
  ExpectTensor(StridedSlice(x, AxisList{0}, AxisList{kMax}, AxisList{kMin}, AxisList{-4}), kF32,
               {3}, {9, 5, 1});
  ExpectTensor(StridedSlice(x, AxisList{0}, AxisList{5}, AxisList{2}), kF32, {0}, {});
  ExpectTensor(StridedSlice(x, AxisList{0}, AxisList{-100}, AxisList{2}, AxisList{kMax}), kF32, {1},
               {0});
  const Tensor same = StridedSlice(x, AxisList{0}, AxisList{0}, AxisList{10});
  EXPECT_EQ(same.raw_data(), x.raw_data());
}

TEST(StridedSliceTest, SeveralAxes) {
  const Tensor x = Iota(kF32, {3, 4});
  // rows 0 and 2, columns 1 and 2
  ExpectTensor(StridedSlice(x, AxisList{1, 0}, AxisList{1, 0}, AxisList{3, 3}, AxisList{1, 2}),
               kF32, {2, 2}, {1, 2, 9, 10});
  // reversed columns of row 1 only
  ExpectTensor(StridedSlice(x, AxisList{-2, -1}, AxisList{1, -1}, AxisList{2, -5}, AxisList{1, -1}),
               kF32, {1, 4}, {7, 6, 5, 4});
  ExpectTensor(StridedSlice(x, AxisList{}, AxisList{}, AxisList{}), kF32, {3, 4},
               {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
}

TEST(StridedSliceTest, Errors) {
  const Tensor x = Iota(kF32, {3, 4});
  EXPECT_RUNTIME_ERROR(StridedSlice(x, AxisList{0, 1}, AxisList{0}, AxisList{1, 1}),
                       "strided_slice: axes, begin, end and strides must have the same length, got "
                       "2, 1, 2 and 2");
  EXPECT_RUNTIME_ERROR(StridedSlice(x, AxisList{0}, AxisList{0}, AxisList{1}, AxisList{1, 1}),
                       "strided_slice: axes, begin, end and strides must have the same length, got "
                       "1, 1, 1 and 2");
  EXPECT_RUNTIME_ERROR(StridedSlice(x, AxisList{1}, AxisList{0}, AxisList{1}, AxisList{0}),
                       "strided_slice: stride of axis 1 is 0");
  EXPECT_RUNTIME_ERROR(StridedSlice(x, AxisList{0, -2}, AxisList{0, 0}, AxisList{1, 1}),
                       "strided_slice: axis -2 is repeated in [0, -2]");
  EXPECT_RUNTIME_ERROR(StridedSlice(x, AxisList{2}, AxisList{0}, AxisList{1}),
                       "strided_slice: axis 2 is out of range for shape [3, 4]");
}

TEST(TakeTest, AlongAxes) {
  const Tensor x = F32({3, 2}, {1, 2, 3, 4, 5, 6});
  ExpectTensor(Take(x, I64({2}, {2, 0}), 0), kF32, {2, 2}, {5, 6, 1, 2});
  ExpectTensor(Take(x, I32({2, 1}, {1, 0}), 1), kF32, {3, 2, 1}, {2, 1, 4, 3, 6, 5});
  ExpectTensor(Take(x, I64({2}, {5, 0}), std::nullopt), kF32, {2}, {6, 1});
  ExpectTensor(Take(x, MakeScalar(kI64, 1), 0), kF32, {2}, {3, 4});
  ExpectTensor(Take(x, I64({0}, {}), -1), kF32, {3, 0}, {});
  ExpectTensor(Take(MakeTensor(kBF16, {3}, {1, 2, 3}), MakeIntTensor(kU8, {2}, {2, 2}), 0), kBF16,
               {2}, {3, 3});
}

TEST(TakeTest, Modes) {
  const Tensor x = F32({3, 2}, {1, 2, 3, 4, 5, 6});
  EXPECT_RUNTIME_ERROR(Take(x, I64({2}, {0, 3}), 0),
                       "take: index 3 is out of range for axis 0 with size 3");
  EXPECT_RUNTIME_ERROR(Take(x, I64({1}, {-1}), 0, TakeMode::kFast),
                       "take: index -1 is out of range for axis 0 with size 3");
  EXPECT_RUNTIME_ERROR(Take(x, MakeIntTensor(kU64, {1}, {-1}), 1),
                       "take: index 18446744073709551615 is out of range for axis 1 with size 2");
  ExpectTensor(Take(x, I64({2}, {-1, 5}), 0, TakeMode::kClip), kF32, {2, 2}, {1, 2, 5, 6});
  ExpectTensor(Take(x, I64({3}, {-1, 4, -4}), 0, TakeMode::kWrap), kF32, {3, 2},
               {5, 6, 3, 4, 5, 6});
  ExpectTensor(Take(x, MakeIntTensor(kU64, {1}, {-1}), 0, TakeMode::kWrap), kF32, {1, 2}, {1, 2});
  ExpectTensor(Take(x, MakeIntTensor(kU64, {1}, {-1}), 0, TakeMode::kClip), kF32, {1, 2}, {5, 6});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  ExpectTensor(Take(x, I64({2}, {0, 3}), 0, TakeMode::kNan), kF32, {2, 2}, {1, 2, nan, nan});
  ExpectTensor(Take(MakeTensor(kF16, {2}, {1, 2}), I64({2}, {-1, 1}), 0, TakeMode::kNan), kF16, {2},
               {nan, 2});
}

TEST(TakeTest, Errors) {
  const Tensor x = F32({3, 2}, {1, 2, 3, 4, 5, 6});
  EXPECT_RUNTIME_ERROR(Take(x, F32({1}, {0}), 0),
                       "take: indices must have an integer dtype, not float32");
  EXPECT_RUNTIME_ERROR(Take(x, Bools({1}, {0}), 0),
                       "take: indices must have an integer dtype, not bool");
  EXPECT_RUNTIME_ERROR(Take(I32({2}, {1, 2}), I64({1}, {5}), 0, TakeMode::kNan),
                       "take: mode nan needs a float dtype, not int32");
  EXPECT_RUNTIME_ERROR(Take(F32({0, 2}, {}), I64({1}, {0}), 0, TakeMode::kClip),
                       "take: cannot take from axis 0 with size 0");
  EXPECT_RUNTIME_ERROR(Take(F32({0, 2}, {}), I64({1}, {0}), 0, TakeMode::kWrap),
                       "take: cannot take from axis 0 with size 0");
  EXPECT_RUNTIME_ERROR(Take(x, I64({1}, {0}), 2), "take: axis 2 is out of range for shape [3, 2]");
  EXPECT_RUNTIME_ERROR(ParseTakeMode("bogus"), "take: unknown mode 'bogus'");
  EXPECT_EQ(ParseTakeMode("fast"), TakeMode::kFast);
  EXPECT_EQ(ParseTakeMode("clip"), TakeMode::kClip);
  EXPECT_EQ(ParseTakeMode("wrap"), TakeMode::kWrap);
  EXPECT_EQ(ParseTakeMode("nan"), TakeMode::kNan);
}

}  // namespace
}  // namespace pipesplit::runtime
