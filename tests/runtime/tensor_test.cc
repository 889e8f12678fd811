// Tensor storage, builders, construction and inspection helpers.
#include "pipesplit/runtime/tensor/tensor.h"

#include <cstdint>
#include <cstring>
#include <limits>

#include "tests/runtime/test_util.h"

namespace pipesplit::runtime {
namespace {

using namespace testing;  // NOLINT

TEST(TensorTest, BuilderAllocatesAlignedStorage) {
  TensorBuilder builder(kF32, {2, 3});
  EXPECT_EQ(builder.numel(), 6);
  EXPECT_EQ(builder.nbytes(), 24);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(builder.raw_data()) % 64, 0u);
  float* p = builder.data<float>();
  for (int i = 0; i < 6; ++i) p[i] = static_cast<float>(i);
  const Tensor t = std::move(builder).Publish();
  EXPECT_TRUE(t.defined());
  EXPECT_EQ(t.ndim(), 2);
  EXPECT_EQ(t.dim(0), 2);
  EXPECT_EQ(t.dim(-1), 3);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.nbytes(), 24);
  EXPECT_EQ(ShapeToString(t.strides()), "[3, 1]");
  EXPECT_EQ(t.ToString(), "float32[2, 3]");
  ExpectTensor(t, kF32, {2, 3}, {0, 1, 2, 3, 4, 5});
}

TEST(TensorTest, CopiesShareStorage) {
  const Tensor a = F32({2}, {1, 2});
  const Tensor b = a;  // NOLINT(performance-unnecessary-copy-initialization)
  EXPECT_EQ(a.raw_data(), b.raw_data());
  EXPECT_EQ(a.storage().get(), b.storage().get());
  const Tensor c = a.WithShape({2, 1});
  EXPECT_EQ(c.raw_data(), a.raw_data());
  EXPECT_EQ(c.ToString(), "float32[2, 1]");
}

TEST(TensorTest, ScalarsAndEmptyTensors) {
  const Tensor s = MakeScalar(kI64, 7);
  EXPECT_EQ(s.ToString(), "int64[]");
  EXPECT_EQ(s.numel(), 1);
  EXPECT_EQ(ElementAsInt64(s, 0), 7);
  const Tensor e = std::move(TensorBuilder(kF32, {0, 3})).Publish();
  EXPECT_TRUE(e.defined());
  EXPECT_EQ(e.numel(), 0);
  EXPECT_EQ(e.nbytes(), 0);
  EXPECT_NE(e.raw_data(), nullptr);
  EXPECT_FALSE(Tensor().defined());
  EXPECT_EQ(Tensor().ToString(), "undefined");
}

TEST(TensorTest, ViewsKeepTheirOwnerAlive) {
  auto buffer = std::make_shared<std::vector<int32_t>>(std::vector<int32_t>{5, 6, 7, 8});
  const int32_t* raw = buffer->data();
  Tensor view = Tensor::View(kI32, {2, 2}, raw, buffer);
  buffer.reset();
  EXPECT_EQ(view.raw_data(), raw);
  ExpectTensor(view, kI32, {2, 2}, {5, 6, 7, 8});
}

TEST(TensorTest, MakeTensorConvertsValues) {
  ExpectTensor(MakeTensor(kI32, {3}, {1.9, -1.9, 3e10}), kI32, {3}, {1, -1, 2147483647});
  const Tensor h = MakeTensor(kF16, {1}, {0.1});
  uint16_t bits = 0;
  std::memcpy(&bits, h.raw_data(), 2);
  EXPECT_EQ(bits, 0x2e66);
  ExpectTensor(MakeIntTensor(kU64, {1}, {-1}), kU64, {1}, {18446744073709551615.0});
  ExpectTensor(MakeIntTensor(kBool, {3}, {0, 5, -1}), kBool, {3}, {0, 1, 1});
  EXPECT_EQ(ElementAsInt64(MakeIntTensor(kI64, {1}, {std::numeric_limits<int64_t>::max()}), 0),
            std::numeric_limits<int64_t>::max());
}

TEST(TensorTest, FromBytesCopiesAndNormalizesBools) {
  const unsigned char raw[3] = {0, 2, 1};
  const Tensor t = FromBytes(kBool, {3}, raw, 3);
  EXPECT_NE(t.raw_data(), static_cast<const void*>(raw));
  ExpectTensor(t, kBool, {3}, {0, 1, 1});
  EXPECT_EQ(static_cast<const unsigned char*>(t.raw_data())[1], 1);
}

TEST(TensorTest, ConstructionErrors) {
  EXPECT_RUNTIME_ERROR(MakeTensor(kF32, {2, 2}, {1, 2, 3}), "tensor: 3 values for shape [2, 2]");
  EXPECT_RUNTIME_ERROR(TensorBuilder(kF32, {2, -1}), "tensor: negative dimension in shape [2, -1]");
  EXPECT_RUNTIME_ERROR(TensorBuilder(DataType::Int(4), {1}), "tensor: unsupported dtype int4");
  EXPECT_RUNTIME_ERROR(TensorBuilder(DataType(DataType::Code::kFloat, 32, 4), {1}),
                       "tensor: unsupported dtype float32x4");
  EXPECT_RUNTIME_ERROR(TensorBuilder(kF32, {int64_t{1} << 62, 8}),
                       "tensor: shape [4611686018427387904, 8] has too many elements");
  EXPECT_RUNTIME_ERROR(TensorBuilder(kF64, {int64_t{1} << 61}),
                       "tensor: shape [2305843009213693952] has too many bytes");
  const float one = 1;
  EXPECT_RUNTIME_ERROR(FromBytes(kF32, {1}, &one, 3),
                       "tensor: 3 bytes for float32[1] (4 expected)");
}

TEST(TensorTest, BitwiseEqual) {
  EXPECT_TRUE(BitwiseEqual(F32({2}, {1, 2}), F32({2}, {1, 2})));
  EXPECT_FALSE(BitwiseEqual(F32({2}, {1, 2}), F32({2}, {1, 3})));
  EXPECT_FALSE(BitwiseEqual(F32({2}, {0, 2}), F32({2}, {-0.0, 2})));  // -0 differs from 0
  EXPECT_FALSE(BitwiseEqual(F32({2}, {1, 2}), F32({1, 2}, {1, 2})));
  EXPECT_FALSE(BitwiseEqual(F32({1}, {1}), I32({1}, {1})));
  EXPECT_TRUE(BitwiseEqual(Tensor(), Tensor()));
  EXPECT_FALSE(BitwiseEqual(Tensor(), F32({1}, {1})));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(BitwiseEqual(F32({1}, {nan}), F32({1}, {nan})));
}

TEST(TensorTest, MaxAbsDiff) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(MaxAbsDiff(F32({3}, {1, 2, 3}), F32({3}, {1, 2.5, 2})), 1.0);
  EXPECT_EQ(MaxAbsDiff(F32({2}, {nan, inf}), F32({2}, {nan, inf})), 0.0);
  EXPECT_EQ(MaxAbsDiff(F32({2}, {nan, 1}), F32({2}, {0, 1})), inf);
  EXPECT_EQ(MaxAbsDiff(F32({2}, {1, 2}), I64({2}, {1, 5})), 3.0);
  EXPECT_RUNTIME_ERROR(MaxAbsDiff(F32({2}, {1, 2}), F32({3}, {1, 2, 3})),
                       "max_abs_diff: shapes [2] and [3] differ");
}

TEST(TensorTest, FormatValues) {
  EXPECT_EQ(FormatValues(F32({2, 2}, {1, 2.5, 3, 4})), "[[1, 2.5], [3, 4]]");
  EXPECT_EQ(FormatValues(Bools({2}, {1, 0})), "[True, False]");
  EXPECT_EQ(FormatValues(MakeScalar(kI64, -3)), "-3");
  EXPECT_EQ(FormatValues(Iota(kI32, {5}), 3), "[0, 1, 2, ...]");
  EXPECT_EQ(FormatValues(Iota(kI32, {2, 2}), 3), "[[0, 1], [2, ...]]");
  EXPECT_EQ(FormatValues(F32({0, 2}, {})), "[[]]");
  EXPECT_EQ(FormatValues(MakeIntTensor(kU64, {1}, {-1})), "[18446744073709551615]");
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(FormatValues(F32({3}, {inf, -inf, std::nan("")})), "[inf, -inf, nan]");
  EXPECT_EQ(FormatValues(F32({1}, {0.1})), "[0.100000001]");
}

TEST(TensorTest, DescribesItselfAsADLTensor) {
  const Tensor t = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  const DLTensorView dl = t.AsDLTensor();
  EXPECT_EQ(dl.data, t.raw_data());
  EXPECT_EQ(dl.device_type, 1);
  EXPECT_EQ(dl.ndim, 2);
  EXPECT_EQ(dl.dtype_code, 2);
  EXPECT_EQ(dl.dtype_bits, 32);
  EXPECT_EQ(dl.dtype_lanes, 1);
  EXPECT_EQ(dl.shape, t.shape().data());
  EXPECT_EQ(dl.strides, nullptr);
  EXPECT_EQ(dl.byte_offset, 0u);
  EXPECT_EQ(Bools({1}, {1}).AsDLTensor().dtype_bits, 8);
  EXPECT_EQ(Bools({1}, {1}).AsDLTensor().dtype_code, 6);
  EXPECT_EQ(MakeTensor(kBF16, {1}, {1}).AsDLTensor().dtype_code, 4);
}

TEST(TensorTest, StorableDTypes) {
  for (const char* name :
       {"float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
        "uint16", "uint32", "uint64", "bool", "float8_e4m3fn", "float8_e5m2"}) {
    EXPECT_TRUE(IsStorableDType(*DataType::Parse(name))) << name;
  }
  for (const char* name : {"int4", "float32x4", "handle", "void", "float4_e2m1fn", "float128"}) {
    EXPECT_FALSE(IsStorableDType(*DataType::Parse(name))) << name;
  }
  EXPECT_RUNTIME_ERROR(CheckStorableDType(DataType::Handle(), "op"),
                       "op: unsupported dtype handle");
}

TEST(TensorTest, ReadsElementsOfEveryDType) {
  EXPECT_EQ(ElementAsDouble(MakeTensor(kBF16, {1}, {3.14159265}), 0), 3.140625);
  EXPECT_EQ(ElementAsDouble(MakeTensor(kF16, {1}, {-2.5}), 0), -2.5);
  EXPECT_EQ(ElementAsDouble(MakeTensor(kI8, {1}, {-128}), 0), -128);
  EXPECT_EQ(ElementAsInt64(MakeTensor(kF32, {1}, {-2.7}), 0), -2);
  EXPECT_EQ(ToInt64Vector(I32({3}, {4, 5, 6})), (std::vector<int64_t>{4, 5, 6}));
  const uint8_t raw = 0x38;  // float8_e4m3fn bits: storage only
  const Tensor f8 = FromBytes(DataType(DataType::Code::kFloat8E4M3FN, 8), {1}, &raw, 1);
  EXPECT_EQ(f8.ToString(), "float8_e4m3fn[1]");
  EXPECT_RUNTIME_ERROR(ElementAsDouble(f8, 0), "tensor: unsupported dtype float8_e4m3fn");
}

}  // namespace
}  // namespace pipesplit::runtime
