// OpenBLAS opened on first use (src/runtime/kernels/blas.h): what a missing or wrong library
// reports, and that the first matmul opens it.
#include "src/runtime/kernels/blas.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pipesplit/runtime/kernels/linalg.h"
#include "tests/runtime/test_util.h"

namespace pipesplit::runtime {
namespace {

using namespace testing;  // NOLINT: the runtime test helpers (F32)
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(BlasTest, AMissingLibraryIsANamedRuntimeError) {
  EXPECT_THAT([] { blas::Load("/nonexistent/libopenblas.so.0"); },
              ThrowsMessage<RuntimeError>(
                  HasSubstr("cannot load the BLAS library /nonexistent/libopenblas.so.0: ")));
}

TEST(BlasTest, ALibraryWithoutCblasIsANamedRuntimeError) {
  EXPECT_THAT([] { blas::Load("libm.so.6"); },
              ThrowsMessage<RuntimeError>(
                  HasSubstr("the BLAS library libm.so.6 has no cblas_sgemm / cblas_dgemm")));
}

TEST(BlasTest, AFloatMatmulOpensTheLibraryAndGivesTheProduct) {
  Tensor c = Matmul(F32({1, 2}, {1, 2}), F32({2, 1}, {3, 4}));
  EXPECT_TRUE(blas::Loaded());
  ASSERT_EQ(c.numel(), 1);
  EXPECT_EQ(c.data<float>()[0], 11.0f);
  EXPECT_NE(blas::Get().sgemm, nullptr);
  EXPECT_NE(blas::Get().dgemm, nullptr);
}

}  // namespace
}  // namespace pipesplit::runtime
