// relax.matmul: shapes, batching, transposition, dtypes, errors.
#include <random>

#include "pipesplit/runtime/kernels/elementwise.h"
#include "pipesplit/runtime/kernels/linalg.h"
#include "tests/runtime/test_util.h"

namespace pipesplit::runtime {
namespace {

using namespace testing;  // NOLINT

const Tensor& A23() {
  static const Tensor t = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  return t;
}
const Tensor& B32() {
  static const Tensor t = F32({3, 2}, {7, 8, 9, 10, 11, 12});
  return t;
}

TEST(MatmulTest, TwoByThreeTimesThreeByTwo) {
  ExpectTensor(Matmul(A23(), B32()), kF32, {2, 2}, {58, 64, 139, 154});
}

TEST(MatmulTest, VectorOperands) {
  ExpectTensor(Matmul(F32({3}, {1, 2, 3}), B32()), kF32, {2}, {58, 64});
  ExpectTensor(Matmul(A23(), F32({3}, {1, 1, 1})), kF32, {2}, {6, 15});
  ExpectTensor(Matmul(F32({3}, {1, 2, 3}), F32({3}, {4, 5, 6})), kF32, {}, {32});
  // A vector against a batch of matrices.
  ExpectTensor(Matmul(F32({2}, {1, 1}), Iota(kF32, {2, 2, 2})), kF32, {2, 2}, {2, 4, 10, 12});
}

TEST(MatmulTest, BatchedLeftWithSharedRight) {
  const Tensor a = F32({2, 2, 2}, {1, 0, 0, 1, 1, 2, 3, 4});
  const Tensor b = F32({2, 2}, {5, 6, 7, 8});
  ExpectTensor(Matmul(a, b), kF32, {2, 2, 2}, {5, 6, 7, 8, 19, 22, 43, 50});
  // A right operand with leading size-1 batch dims is still shared.
  ExpectTensor(Matmul(a, b.WithShape({1, 2, 2})), kF32, {2, 2, 2}, {5, 6, 7, 8, 19, 22, 43, 50});
}

TEST(MatmulTest, BroadcastsBatchDims) {
  // a: [2, 1, 2, 2] = {I, 2I}; b: [3, 2, 2]; out[i][j] = (i + 1) * b[j].
  const Tensor a = F32({2, 1, 2, 2}, {1, 0, 0, 1, 2, 0, 0, 2});
  const Tensor b = F32({3, 2, 2}, {1, 2, 3, 4, 0, 1, 1, 0, 2, 0, 0, 2});
  ExpectTensor(Matmul(a, b), kF32, {2, 3, 2, 2},
               {1, 2, 3, 4, 0, 1, 1, 0, 2, 0, 0, 2, 2, 4, 6, 8, 0, 2, 2, 0, 4, 0, 0, 4});
}

TEST(MatmulTest, Transposed) {
  const Tensor b_t = F32({2, 3}, {7, 9, 11, 8, 10, 12});
  ExpectTensor(Matmul(A23(), b_t, DataType::Void(), false, true), kF32, {2, 2}, {58, 64, 139, 154});
  const Tensor a_t = F32({3, 2}, {1, 4, 2, 5, 3, 6});
  ExpectTensor(Matmul(a_t, B32(), DataType::Void(), true, false), kF32, {2, 2}, {58, 64, 139, 154});
  ExpectTensor(Matmul(a_t, b_t, DataType::Void(), true, true), kF32, {2, 2}, {58, 64, 139, 154});
  // Batched with a transposed left operand: [2, 2, 2]^T(last two) @ [2, 2].
  const Tensor a = F32({2, 2, 2}, {1, 0, 0, 1, 1, 3, 2, 4});
  ExpectTensor(Matmul(a, F32({2, 2}, {5, 6, 7, 8}), DataType::Void(), true, false), kF32, {2, 2, 2},
               {5, 6, 7, 8, 19, 22, 43, 50});
}

TEST(MatmulTest, IntegerAndHalfDTypes) {
  ExpectTensor(Matmul(I32({2, 3}, {1, 2, 3, 4, 5, 6}), I32({3, 2}, {7, 8, 9, 10, 11, 12})), kI32,
               {2, 2}, {58, 64, 139, 154});
  ExpectTensor(Matmul(I64({1, 2}, {1, 2}), I64({1, 2}, {3, 4}), DataType::Void(), false, true),
               kI64, {1, 1}, {11});
  ExpectTensor(Matmul(Astype(A23(), kF16), Astype(B32(), kF16)), kF16, {2, 2}, {58, 64, 139, 154});
  ExpectTensor(Matmul(Astype(A23(), kBF16), Astype(B32(), kBF16)), kBF16, {2, 2},
               {58, 64, 139, 154});
  ExpectTensor(Matmul(Astype(A23(), kF64), Astype(B32(), kF64)), kF64, {2, 2}, {58, 64, 139, 154});
  // float16 products summed in float32 and rounded once: 2049 is a tie and becomes 2048.
  ExpectTensor(Matmul(MakeTensor(kF16, {1, 2}, {2048, 1}), MakeTensor(kF16, {2, 1}, {1, 1})), kF16,
               {1, 1}, {2048});
}

TEST(MatmulTest, OutDType) {
  const Tensor a = MakeTensor(kI8, {1, 2}, {100, 100});
  const Tensor b = MakeTensor(kI8, {2, 1}, {100, 100});
  ExpectTensor(Matmul(a, b, kI32), kI32, {1, 1}, {20000});
  ExpectTensor(Matmul(a, b), kI8, {1, 1}, {32});  // 20000 wraps in int8
  ExpectTensor(Matmul(MakeTensor(kF16, {1, 2}, {2048, 1}), MakeTensor(kF16, {2, 1}, {1, 1}), kF32),
               kF32, {1, 1}, {2049});
  // With out_dtype, operands of different dtypes are both converted.
  ExpectTensor(Matmul(I32({1, 1}, {3}), F32({1, 1}, {0.5}), kF32), kF32, {1, 1}, {1.5});
}

TEST(MatmulTest, EmptyDims) {
  ExpectTensor(Matmul(F32({2, 0}, {}), F32({0, 3}, {})), kF32, {2, 3}, {0, 0, 0, 0, 0, 0});
  ExpectTensor(Matmul(F32({0, 2}, {}), F32({2, 3}, {1, 2, 3, 4, 5, 6})), kF32, {0, 3}, {});
  ExpectTensor(Matmul(I32({2, 0}, {}), I32({0, 1}, {})), kI32, {2, 1}, {0, 0});
}

TEST(MatmulTest, Errors) {
  EXPECT_RUNTIME_ERROR(Matmul(A23(), Iota(kF32, {4, 5})),
                       "matmul: reduction dims 3 and 4 differ (shapes [2, 3] and [4, 5])");
  EXPECT_RUNTIME_ERROR(Matmul(Iota(kF32, {2, 2, 2}), Iota(kF32, {3, 2, 2})),
                       "matmul: batch dims cannot be broadcast (shapes [2, 2, 2] and [3, 2, 2])");
  EXPECT_RUNTIME_ERROR(Matmul(MakeScalar(kF32, 1), F32({2}, {1, 2})),
                       "matmul: operands must have at least one dim (shapes [] and [2])");
  EXPECT_RUNTIME_ERROR(Matmul(F32({3}, {1, 2, 3}), B32(), DataType::Void(), true, false),
                       "matmul: a transposed operand must have at least two dims (shapes [3] and "
                       "[3, 2])");
  EXPECT_RUNTIME_ERROR(Matmul(A23(), Astype(B32(), kF16)),
                       "matmul: dtypes float32 and float16 do not match");
  EXPECT_RUNTIME_ERROR(Matmul(Bools({1, 1}, {1}), Bools({1, 1}, {1})),
                       "matmul: unsupported dtype bool");
  EXPECT_RUNTIME_ERROR(Matmul(A23(), B32(), kBool), "matmul: unsupported dtype bool");
}

// Reference: the textbook triple loop in double precision.
std::vector<double> NaiveMatmul(const std::vector<double>& a, const std::vector<double>& b, int m,
                                int k, int n) {
  std::vector<double> c(static_cast<size_t>(m * n), 0.0);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      for (int p = 0; p < k; ++p) c[i * n + j] += a[i * k + p] * b[p * n + j];
    }
  }
  return c;
}

TEST(MatmulTest, MatchesNaiveReferenceOnOddSizes) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> dist(-1, 1);
  const int m = 37, k = 53, n = 29;
  std::vector<double> a(m * k), b(k * n);
  for (double& v : a) v = static_cast<float>(dist(rng));
  for (double& v : b) v = static_cast<float>(dist(rng));
  const Tensor out = Matmul(MakeTensor(kF32, {m, k}, a), MakeTensor(kF32, {k, n}, b));
  const Tensor expected = MakeTensor(kF64, {m, n}, NaiveMatmul(a, b, m, k, n));
  EXPECT_LT(MaxAbsDiff(out, expected), 1e-4);
  // Batched operands (one gemm per batch) give the same values in each batch.
  std::vector<double> a2 = a, b2 = b;
  a2.insert(a2.end(), a.begin(), a.end());
  b2.insert(b2.end(), b.begin(), b.end());
  const Tensor batched = Matmul(MakeTensor(kF32, {2, m, k}, a2), MakeTensor(kF32, {2, k, n}, b2));
  ASSERT_EQ(ShapeToString(batched.shape()), "[2, 37, 29]");
  const std::vector<double> values = ToDoubleVector(batched);
  const std::vector<double> first(values.begin(), values.begin() + m * n);
  const std::vector<double> second(values.begin() + m * n, values.end());
  EXPECT_LT(MaxAbsDiff(MakeTensor(kF64, {m, n}, first), expected), 1e-4);
  EXPECT_EQ(first, second);
}

TEST(MatmulTest, BlasThreadsSetting) {
  EXPECT_EQ(GetBlasThreads(), 1);
  SetBlasThreads(0);
  EXPECT_EQ(GetBlasThreads(), 1);
}

}  // namespace
}  // namespace pipesplit::runtime
