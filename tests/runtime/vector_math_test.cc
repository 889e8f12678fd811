// The vectorized float32 exp and its users (exp, sigmoid, silu, softmax): every result is
// compared with exp evaluated in long double and rounded once to float, bit for bit.
#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "pipesplit/runtime/kernels/elementwise.h"
#include "pipesplit/runtime/kernels/reduce.h"
#include "tests/runtime/test_util.h"

namespace pipesplit::runtime {
namespace {

// The correctly rounded float exp (long double has 11 more bits than double; a tie this close
// to a rounding boundary does not occur in the inputs below).
float ReferenceExp(float x) { return static_cast<float>(std::exp(static_cast<long double>(x))); }

Tensor FloatTensor(const std::vector<float>& values) {
  return FromBytes(DataType::Float(32), {static_cast<int64_t>(values.size())}, values.data(),
                   values.size() * sizeof(float));
}

std::vector<float> Floats(const Tensor& t) {
  const float* p = t.data<float>();
  return std::vector<float>(p, p + t.numel());
}

bool SameFloat(float a, float b) {
  return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b) ||
         (std::isnan(a) && std::isnan(b));
}

// Every 4099th float bit pattern with |x| <= 120 (overflow at 88.72, subnormal results below
// -87.34, zero below -103.98), plus the edges and the specials.
std::vector<float> Samples() {
  std::vector<float> xs;
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += 4099) {
    const float x = std::bit_cast<float>(static_cast<uint32_t>(bits));
    if (std::fabs(x) <= 120) xs.push_back(x);
  }
  const float inf = std::numeric_limits<float>::infinity();
  for (float x : {0.0f, -0.0f, 1.0f, -1.0f, 88.72283f, 88.72284f, -87.33654f, -103.97207f,
                  -103.97209f, -1e9f, 1e9f, inf, -inf, std::numeric_limits<float>::quiet_NaN(),
                  std::numeric_limits<float>::min(), std::numeric_limits<float>::denorm_min()}) {
    xs.push_back(x);
  }
  return xs;
}

TEST(VectorMathTest, ExpIsCorrectlyRoundedOnSamples) {
  const std::vector<float> xs = Samples();
  ASSERT_GT(xs.size(), 100000u);
  const std::vector<float> out = Floats(Exp(FloatTensor(xs)));
  int64_t mismatches = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (!SameFloat(out[i], ReferenceExp(xs[i]))) {
      if (++mismatches <= 5) ADD_FAILURE() << "exp(" << xs[i] << ") = " << out[i];
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(VectorMathTest, ExpSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> out = Floats(Exp(FloatTensor({inf, -inf, 100, -200, 0, std::nanf("")})));
  EXPECT_EQ(out[0], inf);
  EXPECT_EQ(out[1], 0.0f);
  EXPECT_EQ(out[2], inf);
  EXPECT_EQ(out[3], 0.0f);
  EXPECT_EQ(out[4], 1.0f);
  EXPECT_TRUE(std::isnan(out[5]));
  // A subnormal result, rounded once.
  const float tiny = Floats(Exp(FloatTensor({-100.0f})))[0];
  EXPECT_GT(tiny, 0.0f);
  EXPECT_LT(tiny, std::numeric_limits<float>::min());
  EXPECT_TRUE(SameFloat(tiny, ReferenceExp(-100.0f)));
}

TEST(VectorMathTest, SigmoidAndSiluUseTheSameFormulaWithTheRoundedExp) {
  std::vector<float> xs;
  for (int i = -2000; i <= 2000; ++i) xs.push_back(static_cast<float>(i) * 0.0437f);
  const std::vector<float> sig = Floats(Sigmoid(FloatTensor(xs)));
  const std::vector<float> silu = Floats(Silu(FloatTensor(xs)));
  for (size_t i = 0; i < xs.size(); ++i) {
    const float e = ReferenceExp(-xs[i]);
    ASSERT_TRUE(SameFloat(sig[i], 1.0f / (1.0f + e))) << xs[i];
    ASSERT_TRUE(SameFloat(silu[i], xs[i] * (1.0f / (1.0f + e)))) << xs[i];
  }
}

// Odd lengths exercise the vector loops' tails; both softmax layouts (rows and columns).
TEST(VectorMathTest, SoftmaxNumeratorsAreRoundedExps) {
  std::vector<float> xs;
  for (int i = 0; i < 3 * 37; ++i) xs.push_back(std::sin(static_cast<float>(i)) * 7.0f);
  const Tensor x = FloatTensor(xs).WithShape({3, 37});
  const std::vector<float> rows = Floats(Softmax(x, -1));
  for (int r = 0; r < 3; ++r) {
    float m = xs[r * 37];
    for (int j = 0; j < 37; ++j) m = std::max(m, xs[r * 37 + j]);
    std::vector<float> e(37);
    for (int j = 0; j < 37; ++j) e[j] = ReferenceExp(xs[r * 37 + j] - m);
    const Tensor sums = Sum(FloatTensor(e), std::vector<int64_t>{0}, false);
    const float s = sums.data<float>()[0];
    for (int j = 0; j < 37; ++j) {
      ASSERT_TRUE(SameFloat(rows[r * 37 + j], e[j] / s)) << r << ", " << j;
    }
  }
  const std::vector<float> columns = Floats(Softmax(x, 0));
  for (int j = 0; j < 37; ++j) {
    const float m = std::max({xs[j], xs[37 + j], xs[74 + j]});
    float e[3];
    for (int r = 0; r < 3; ++r) e[r] = ReferenceExp(xs[r * 37 + j] - m);
    const float s = (e[0] + e[1]) + e[2];
    for (int r = 0; r < 3; ++r) ASSERT_TRUE(SameFloat(columns[r * 37 + j], e[r] / s)) << j;
  }
}

}  // namespace
}  // namespace pipesplit::runtime
