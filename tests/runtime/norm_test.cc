// Normalizing nn kernels: softmax, log_softmax, rms_norm, layer_norm.
#include <limits>

#include "pipesplit/runtime/kernels/reduce.h"
#include "tests/runtime/test_util.h"

namespace pipesplit::runtime {
namespace {

using namespace testing;  // NOLINT

using AxisList = std::vector<int64_t>;
const double kInf = std::numeric_limits<double>::infinity();
constexpr double kTol = 1e-6;

TEST(SoftmaxTest, LastAxis) {
  ExpectNear(Softmax(F32({3}, {1, 2, 3})), kF32, {3},
             {0.09003057317038046, 0.24472847105479767, 0.6652409557748219}, kTol);
  ExpectNear(Softmax(F32({2, 2}, {0, 0, 1000, 1000}), -1), kF32, {2, 2}, {0.5, 0.5, 0.5, 0.5},
             kTol);
  ExpectTensor(Softmax(F32({2}, {-kInf, 0})), kF32, {2}, {0, 1});
}

TEST(SoftmaxTest, InnerAxisUsesColumns) {
  // Columns: softmax(1, 2) and softmax(1, 3).
  ExpectNear(Softmax(F32({2, 2}, {1, 1, 2, 3}), 0), kF32, {2, 2},
             {0.2689414213699951, 0.11920292202211755, 0.7310585786300049, 0.8807970779778823},
             kTol);
  ExpectNear(LogSoftmax(F32({2, 2}, {1, 1, 2, 3}), 0), kF32, {2, 2},
             {-1.3132616875182228, -2.1269280110429727, -0.31326168751822286, -0.12692801104297263},
             kTol);
}

TEST(SoftmaxTest, LongRowsSumToOne) {
  std::vector<double> values(100);
  for (int i = 0; i < 100; ++i) values[i] = (i % 7) * 0.5;
  const Tensor s = Softmax(MakeTensor(kF32, {100}, values));
  double total = 0;
  for (double v : ToDoubleVector(s)) total += v;
  EXPECT_NEAR(total, 1.0, 1e-5);
}

TEST(SoftmaxTest, LogSoftmax) {
  ExpectNear(LogSoftmax(F32({3}, {1, 2, 3})), kF32, {3},
             {-2.4076059644443806, -1.4076059644443804, -0.4076059644443804}, kTol);
}

TEST(SoftmaxTest, HalfAndErrors) {
  ExpectTensor(Softmax(MakeTensor(kF16, {2}, {0, 0})), kF16, {2}, {0.5, 0.5});
  ExpectTensor(Softmax(F32({0, 3}, {}), 0), kF32, {0, 3}, {});
  EXPECT_RUNTIME_ERROR(Softmax(I32({2}, {1, 2})), "nn.softmax: unsupported dtype int32");
  EXPECT_RUNTIME_ERROR(LogSoftmax(F32({2}, {1, 2}), 1),
                       "nn.log_softmax: axis 1 is out of range for shape [2]");
}

TEST(RmsNormTest, LastAxis) {
  // mean(x^2) = 12.5 over [3, 4]: 3 / sqrt(12.5) and 4 / sqrt(12.5), times the weight.
  ExpectNear(RmsNorm(F32({1, 2}, {3, 4}), F32({2}, {1, 2}), AxisList{-1}, 0.0), kF32, {1, 2},
             {0.848528137423857, 2.262741699796952}, kTol);
  // epsilon enters under the root: rsqrt(1 + 3) = 0.5.
  ExpectTensor(RmsNorm(F32({1, 4}, {1, 1, 1, 1}), F32({4}, {1, 1, 1, 1}), AxisList{1}, 3.0), kF32,
               {1, 4}, {0.5, 0.5, 0.5, 0.5});
}

TEST(RmsNormTest, LeadingAxis) {
  // Columns normalized: (3, 4) and (1, 1); the weight runs along axis 0.
  ExpectNear(RmsNorm(F32({2, 2}, {3, 1, 4, 1}), F32({2}, {1, 10}), AxisList{0}, 0.0), kF32, {2, 2},
             {0.848528137423857, 1, 11.31370849898476, 10}, 1e-5);
}

TEST(RmsNormTest, HalfComputesInFloat) {
  ExpectTensor(RmsNorm(MakeTensor(kF16, {1, 4}, {2, 2, 2, 2}), MakeTensor(kF16, {4}, {1, 1, 1, 1}),
                       AxisList{-1}, 0.0),
               kF16, {1, 4}, {1, 1, 1, 1});
}

TEST(RmsNormTest, Errors) {
  EXPECT_RUNTIME_ERROR(RmsNorm(F32({1, 2}, {1, 2}), F32({3}, {1, 1, 1}), AxisList{1}),
                       "nn.rms_norm: weight shape [3] does not match [2], the dims of [1, 2] at "
                       "axes [1]");
  EXPECT_RUNTIME_ERROR(RmsNorm(F32({1, 2}, {1, 2}), MakeTensor(kF16, {2}, {1, 1}), AxisList{1}),
                       "nn.rms_norm: dtypes float32 and float16 do not match");
  EXPECT_RUNTIME_ERROR(RmsNorm(I32({1, 2}, {1, 2}), I32({2}, {1, 1}), AxisList{1}),
                       "nn.rms_norm: unsupported dtype int32");
  EXPECT_RUNTIME_ERROR(RmsNorm(F32({1, 2}, {1, 2}), F32({2}, {1, 1}), AxisList{2}),
                       "nn.rms_norm: axis 2 is out of range for shape [1, 2]");
}

TEST(LayerNormTest, Normalizes) {
  const Tensor x = F32({1, 4}, {1, 2, 3, 4});
  // mean 2.5, variance 1.25
  ExpectNear(
      LayerNorm(x, F32({4}, {1, 1, 1, 1}), F32({4}, {0, 0, 0, 0}), AxisList{-1}, 0.0), kF32, {1, 4},
      {-1.3416407864998738, -0.4472135954999579, 0.4472135954999579, 1.3416407864998738}, kTol);
  const Tensor gamma = F32({4}, {2, 2, 2, 2});
  const Tensor beta = F32({4}, {1, 1, 1, 1});
  ExpectNear(LayerNorm(x, gamma, beta, AxisList{-1}, 0.0), kF32, {1, 4},
             {-1.6832815729997476, 0.1055728090000842, 1.8944271909999157, 3.6832815729997476},
             kTol);
  ExpectNear(LayerNorm(x, gamma, beta, AxisList{-1}, 0.0, /*center=*/false), kF32, {1, 4},
             {-2.6832815729997476, -0.8944271909999158, 0.8944271909999158, 2.6832815729997476},
             kTol);
  ExpectNear(LayerNorm(x, gamma, beta, AxisList{-1}, 0.0, true, /*scale=*/false), kF32, {1, 4},
             {-0.3416407864998738, 0.5527864045000421, 1.4472135954999579, 2.3416407864998738},
             kTol);
  // epsilon: variance 0 + 0.25 -> rsqrt 2, so (x - mean) * 2.
  ExpectTensor(LayerNorm(F32({2}, {3, 3}), F32({2}, {1, 1}), F32({2}, {0, 0}), AxisList{0}, 0.25),
               kF32, {2}, {0, 0});
}

TEST(LayerNormTest, SeveralAxes) {
  // Both axes of a 2x2: mean 1.5, variance 1.25 over all four.
  ExpectNear(LayerNorm(Iota(kF32, {2, 2}), F32({2, 2}, {1, 1, 1, 1}), F32({2, 2}, {0, 0, 0, 0}),
                       AxisList{0, 1}, 0.0),
             kF32, {2, 2},
             {-1.3416407864998738, -0.4472135954999579, 0.4472135954999579, 1.3416407864998738},
             kTol);
}

TEST(LayerNormTest, Errors) {
  const Tensor x = F32({1, 2}, {1, 2});
  EXPECT_RUNTIME_ERROR(LayerNorm(x, F32({2}, {1, 1}), F32({1}, {0}), AxisList{1}),
                       "nn.layer_norm: beta shape [1] does not match [2], the dims of [1, 2] at "
                       "axes [1]");
  EXPECT_RUNTIME_ERROR(LayerNorm(x, F32({1}, {1}), F32({2}, {0, 0}), AxisList{1}),
                       "nn.layer_norm: gamma shape [1] does not match [2], the dims of [1, 2] at "
                       "axes [1]");
  EXPECT_RUNTIME_ERROR(
      LayerNorm(I64({1, 2}, {1, 2}), I64({2}, {1, 1}), I64({2}, {0, 0}), AxisList{1}),
      "nn.layer_norm: unsupported dtype int64");
}

}  // namespace
}  // namespace pipesplit::runtime
