// Helpers for the runtime tests: building small tensors and checking values and errors.
#ifndef PIPESPLIT_TESTS_RUNTIME_TEST_UTIL_H_
#define PIPESPLIT_TESTS_RUNTIME_TEST_UTIL_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <string>
#include <vector>

#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::runtime::testing {

inline const DataType kF16 = DataType::Float(16);
inline const DataType kBF16 = DataType::BFloat16();
inline const DataType kF32 = DataType::Float(32);
inline const DataType kF64 = DataType::Float(64);
inline const DataType kI8 = DataType::Int(8);
inline const DataType kI32 = DataType::Int(32);
inline const DataType kI64 = DataType::Int(64);
inline const DataType kU8 = DataType::UInt(8);
inline const DataType kU64 = DataType::UInt(64);
inline const DataType kBool = DataType::Bool();

inline Tensor F32(Shape shape, std::initializer_list<double> values) {
  return MakeTensor(kF32, std::move(shape), values);
}
inline Tensor I32(Shape shape, std::initializer_list<int64_t> values) {
  return MakeIntTensor(kI32, std::move(shape), values);
}
inline Tensor I64(Shape shape, std::initializer_list<int64_t> values) {
  return MakeIntTensor(kI64, std::move(shape), values);
}
inline Tensor Bools(Shape shape, std::initializer_list<int64_t> values) {
  return MakeIntTensor(kBool, std::move(shape), values);
}
// 0, 1, 2, ... as `dtype`.
inline Tensor Iota(DataType dtype, Shape shape) {
  std::vector<double> values(static_cast<size_t>(ShapeNumel(shape)));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i);
  return MakeTensor(dtype, std::move(shape), values);
}

// Exact dtype, shape and values (NaN matches NaN).
inline void ExpectTensor(const Tensor& t, DataType dtype, const Shape& shape,
                         const std::vector<double>& values) {
  ASSERT_TRUE(t.defined());
  EXPECT_EQ(t.dtype().ToString(), dtype.ToString());
  ASSERT_EQ(ShapeToString(t.shape()), ShapeToString(shape));
  const std::vector<double> got = ToDoubleVector(t);
  ASSERT_EQ(got.size(), values.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(values[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << " is " << got[i];
    } else {
      EXPECT_EQ(got[i], values[i]) << "element " << i;
    }
  }
}

// Values within `tolerance` (absolute).
inline void ExpectNear(const Tensor& t, DataType dtype, const Shape& shape,
                       const std::vector<double>& values, double tolerance) {
  ASSERT_TRUE(t.defined());
  EXPECT_EQ(t.dtype().ToString(), dtype.ToString());
  ASSERT_EQ(ShapeToString(t.shape()), ShapeToString(shape));
  const std::vector<double> got = ToDoubleVector(t);
  ASSERT_EQ(got.size(), values.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], values[i], tolerance) << "element " << i;
  }
}

}  // namespace pipesplit::runtime::testing

// Expects `statement` to throw a RuntimeError whose message is exactly `message`.
#define EXPECT_RUNTIME_ERROR(statement, message) \
  EXPECT_THAT(                                   \
      [&] { (void)(statement); },                \
      ::testing::ThrowsMessage<::pipesplit::runtime::RuntimeError>(::testing::StrEq(message)))

#endif  // PIPESPLIT_TESTS_RUNTIME_TEST_UTIL_H_
