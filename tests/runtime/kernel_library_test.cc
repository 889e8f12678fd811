// KernelLibrary on hand-written libraries: loading, the ABI check, names, calls and errors.
#include "pipesplit/runtime/kernels/kernel_library.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

namespace pipesplit::runtime {
namespace {

using testing::HasSubstr;

std::string LoadError(const std::string& path) {
  try {
    KernelLibrary::Load(path);
  } catch (const RuntimeError& e) {
    return e.what();
  }
  return "no error";
}

Tensor F32(Shape shape, std::initializer_list<double> values) {
  return MakeTensor(DataType::Float(32), std::move(shape), values);
}

Tensor Zeros(Shape shape) {
  TensorBuilder b(DataType::Float(32), std::move(shape));
  for (int64_t i = 0; i < b.numel(); ++i) b.data<float>()[i] = 0;
  return std::move(b).Publish();
}

TEST(KernelLibraryTest, LoadsAndListsKernels) {
  auto lib = KernelLibrary::Load(PIPESPLIT_TEST_KERNELS);
  EXPECT_EQ(lib->path(), PIPESPLIT_TEST_KERNELS);
  EXPECT_EQ(lib->names(), (std::vector<std::string>{"add", "scale_shift", "accumulate", "copy_f16",
                                                    "always_fails"}));
  EXPECT_TRUE(lib->Has("add"));
  EXPECT_FALSE(lib->Has("sub"));
  EXPECT_EQ(lib->Find("sub"), nullptr);
}

TEST(KernelLibraryTest, CallsAKernelOnValues) {
  auto lib = KernelLibrary::Load(PIPESPLIT_TEST_KERNELS);
  Tensor out = Zeros({3});
  std::vector<Value> args = {F32({3}, {1, 2, 3}), F32({3}, {10, 20, 30}), out};
  lib->Call("add", args);
  EXPECT_EQ(ToDoubleVector(out), (std::vector<double>{11, 22, 33}));
}

TEST(KernelLibraryTest, PassesScalarsAndHalfStorage) {
  auto lib = KernelLibrary::Load(PIPESPLIT_TEST_KERNELS);
  Tensor y = Zeros({2}), z = Zeros({2});
  std::vector<Value> args = {F32({2}, {1, 2}), y, z,
                             Value::MakePrim(PrimScalar{DataType::Int(64), 5, 0})};
  lib->Call("scale_shift", args);
  EXPECT_EQ(ToDoubleVector(y), (std::vector<double>{5, 10}));
  EXPECT_EQ(ToDoubleVector(z), (std::vector<double>{6, 7}));

  Tensor a = MakeTensor(DataType::Float(16), {3}, {0.5, -2, 65504});
  TensorBuilder b(DataType::Float(16), {3});
  Tensor copy = std::move(b).Publish();
  std::vector<Value> half_args = {a, copy};
  lib->Call("copy_f16", half_args);
  EXPECT_TRUE(BitwiseEqual(a, copy));
}

TEST(KernelLibraryTest, KernelFailureCarriesItsMessage) {
  auto lib = KernelLibrary::Load(PIPESPLIT_TEST_KERNELS);
  std::vector<Value> args = {F32({3}, {1, 2, 3})};
  try {
    lib->Call("always_fails", args);
    FAIL() << "no error";
  } catch (const RuntimeError& e) {
    EXPECT_STREQ(e.what(),
                 "kernel 'always_fails' failed: always_fails: buffer A: dim 0 is 3, expected 4");
  }
  // The kernel's own checks (here a length mismatch) come back the same way.
  std::vector<Value> bad = {F32({3}, {1, 2, 3}), F32({2}, {1, 2}), Zeros({3})};
  EXPECT_THROW(lib->Call("add", bad), RuntimeError);
}

TEST(KernelLibraryTest, UnknownKernelAndBadArgumentsAreErrors) {
  auto lib = KernelLibrary::Load(PIPESPLIT_TEST_KERNELS);
  std::vector<Value> args = {F32({1}, {1})};
  try {
    lib->Call("sub", args);
    FAIL() << "no error";
  } catch (const RuntimeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("has no kernel 'sub'"));
  }
  std::vector<Value> strings = {Value::MakeString("x")};
  try {
    lib->Call("add", strings);
    FAIL() << "no error";
  } catch (const RuntimeError& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("argument 0 of kernel 'add' must be a tensor or a prim value, got"));
  }
}

TEST(KernelLibraryTest, LoadErrorsAreClear) {
  EXPECT_EQ(LoadError("/nonexistent/kernels.so"),
            "kernel library '/nonexistent/kernels.so' does not exist");
  // A file that is not a shared library: the loader's own message follows.
  std::string not_elf = std::string(PIPESPLIT_SOURCE_DIR) + "/CMakeLists.txt";
  EXPECT_THAT(LoadError(not_elf), HasSubstr("cannot load kernel library '" + not_elf + "': "));
  EXPECT_THAT(LoadError(not_elf), HasSubstr("CMakeLists.txt"));
  EXPECT_THAT(LoadError(PIPESPLIT_TEST_KERNELS_WRONG_ABI),
              HasSubstr("has ABI version 3 but this runtime expects version 2: rebuild it"));
}

TEST(KernelLibraryTest, OneLibraryServesManyThreads) {
  auto lib = KernelLibrary::Load(PIPESPLIT_TEST_KERNELS);
  std::vector<Tensor> outs;
  for (int t = 0; t < 4; ++t) outs.push_back(Zeros({1000}));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<double> v(1000, t);
      std::vector<Value> args = {MakeTensor(DataType::Float(32), {1000}, v),
                                 MakeTensor(DataType::Float(32), {1000}, v), outs[t]};
      lib->Call("add", args);
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(ElementAsDouble(outs[t], 999), 2.0 * t);
}

}  // namespace
}  // namespace pipesplit::runtime
