// The fast path's contractions (runtime/kernels/contraction.h): every instruction set gives
// the portable code's bits; an output depends on its own rows only (not on the batch, the
// thread count or the tiles); the result is within float32 summation error of a float64
// evaluation; the epilogue runs as the kernel writes it; malformed descriptions are errors
// and dtypes without a kernel are declined.
#include "pipesplit/runtime/kernels/contraction.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "pipesplit/runtime/kernels/threading.h"
#include "pipesplit/support/float16_bits.h"

namespace pipesplit::runtime {
namespace {

constexpr PipesplitScalarType kF32{2, 32};
constexpr PipesplitScalarType kF16{2, 16};
constexpr PipesplitScalarType kBF16{4, 16};
constexpr PipesplitScalarType kU32{1, 32};

bool Same(PipesplitScalarType a, PipesplitScalarType b) {
  return a.code == b.code && a.bits == b.bits;
}

// A buffer of `n` elements of type `t` from float values (rounded to nearest even).
std::vector<uint8_t> Encode(PipesplitScalarType t, const std::vector<float>& v) {
  std::vector<uint8_t> out(v.size() * t.bits / 8);
  for (size_t i = 0; i < v.size(); ++i) {
    if (Same(t, kF32)) {
      std::memcpy(out.data() + 4 * i, &v[i], 4);
    } else {
      const uint16_t b = Same(t, kF16) ? f16::FloatToHalf(v[i]) : f16::FloatToBFloat16(v[i]);
      std::memcpy(out.data() + 2 * i, &b, 2);
    }
  }
  return out;
}

double Decode(PipesplitScalarType t, const std::vector<uint8_t>& buf, int64_t i) {
  if (Same(t, kF32)) {
    float f;
    std::memcpy(&f, buf.data() + 4 * i, 4);
    return f;
  }
  uint16_t b;
  std::memcpy(&b, buf.data() + 2 * i, 2);
  return Same(t, kF16) ? f16::HalfToFloat(b) : f16::BFloat16ToFloat(b);
}

// A contraction with its storage.
struct Case {
  bool q4 = false;
  int64_t m = 1, n = 1, k = 16;
  PipesplitScalarType x_type = kF32, w_type = kF32, scale_type = kF16, product = kF32;
  PipesplitScalarType dequant = {0, 0};  // float32
  int64_t group = 32;
  double zero = 7;
  std::vector<uint8_t> x, w, scale, y;
  std::vector<uint32_t> words;
  std::vector<PipesplitEpilogueOp> epilogue;
  std::vector<std::vector<uint8_t>> operands;

  void Fill(uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> xv(static_cast<size_t>(m * k));
    for (float& v : xv) v = u(rng);
    x = Encode(x_type, xv);
    if (q4) {
      words.resize(static_cast<size_t>(n * k / 8));
      for (uint32_t& wd : words) wd = static_cast<uint32_t>(rng());
      std::vector<float> sv(static_cast<size_t>(n * ((k + group - 1) / group)));
      for (float& v : sv) v = 0.01f + 0.05f * std::fabs(u(rng));
      scale = Encode(scale_type, sv);
    } else {
      std::vector<float> wv(static_cast<size_t>(n * k));
      for (float& v : wv) v = u(rng);
      w = Encode(w_type, wv);
    }
  }

  PipesplitScalarType OutType() const { return epilogue.empty() ? product : epilogue.back().dtype; }

  PipesplitContraction Describe() {
    y.assign(static_cast<size_t>(m * n * OutType().bits / 8), 0xAB);
    PipesplitContraction c{};
    c.weight_format = q4 ? PIPESPLIT_WEIGHT_Q4 : PIPESPLIT_WEIGHT_DENSE;
    c.m = m;
    c.n = n;
    c.k = k;
    c.x = x.data();
    c.x_dtype = x_type;
    if (q4) {
      c.w = words.data();
      c.w_dtype = kU32;
      c.scale = scale.data();
      c.scale_dtype = scale_type;
      c.group_size = group;
      c.zero_point = zero;
      c.dequant_dtype = dequant;
    } else {
      c.w = w.data();
      c.w_dtype = w_type;
    }
    c.product = product;
    c.num_epilogue = static_cast<int32_t>(epilogue.size());
    for (size_t i = 0; i < epilogue.size(); ++i) {
      c.epilogue[i] = epilogue[i];
      if (i < operands.size() && !operands[i].empty()) c.epilogue[i].operand = operands[i].data();
    }
    c.y = y.data();
    c.y_dtype = OutType();
    return c;
  }

  // The weight of row r, column kk, exactly (as the fast path widens it).
  double Weight(int64_t r, int64_t kk) const {
    if (!q4) return Decode(w_type, w, r * k + kk);
    const uint32_t q = (words[static_cast<size_t>(r * (k / 8) + kk / 8)] >> (4 * (kk % 8))) & 15;
    const float s =
        static_cast<float>(Decode(scale_type, scale, r * ((k + group - 1) / group) + kk / group));
    const float w = (static_cast<float>(q) - static_cast<float>(zero)) * s;
    return Same(dequant, kF16) ? f16::HalfToFloat(f16::FloatToHalf(w)) : w;
  }

  // Output (i, r) before the epilogue: the float64 sum, and the sum of |terms|.
  std::pair<double, double> Exact(int64_t i, int64_t r) const {
    double sum = 0, mag = 0;
    for (int64_t kk = 0; kk < k; ++kk) {
      const double t = Decode(x_type, x, i * k + kk) * Weight(r, kk);
      sum += t;
      mag += std::fabs(t);
    }
    return {sum, mag};
  }
};

std::vector<uint8_t> RunCase(Case& c) {
  PipesplitContraction desc = c.Describe();
  std::string error;
  EXPECT_EQ(RunContraction(desc, &error), 0) << error;
  return c.y;
}

std::vector<std::string> Isas() {
  std::vector<std::string> isas;
  for (const char* isa : {"portable", "avx2", "avx512"}) {
    if (CpuRunsIsa(isa)) isas.push_back(isa);
  }
  return isas;
}

class ContractionTest : public ::testing::Test {
 protected:
  void TearDown() override {
    SetContractionIsa("");
    SetNumThreads(1);
  }
};

// Shapes with tails in every direction, dense and 4-bit, through every instruction set.
TEST_F(ContractionTest, InstructionSetsAgreeBitForBit) {
  struct Shape {
    bool q4;
    int64_t m, n, k;
    PipesplitScalarType x, w;
    int64_t group;
  };
  const std::vector<Shape> shapes = {
      {false, 1, 7, 16, kF32, kF32, 0},    {false, 3, 13, 37, kF32, kF16, 0},
      {false, 4, 9, 100, kF16, kBF16, 0},  {false, 5, 50, 64, kF16, kF16, 0},
      {false, 9, 20, 129, kBF16, kF32, 0}, {true, 1, 17, 64, kF16, kU32, 32},
      {true, 2, 9, 40, kF16, kU32, 32},    {true, 4, 60, 256, kF32, kU32, 64},
      {true, 6, 13, 96, kF16, kU32, 32},   {true, 17, 49, 128, kF16, kU32, 128},
  };
  for (const Shape& s : shapes) {
    Case c;
    c.q4 = s.q4;
    c.m = s.m;
    c.n = s.n;
    c.k = s.k;
    c.x_type = s.x;
    c.w_type = s.w;
    c.group = s.group ? s.group : 32;
    if (s.q4 && s.m % 2 == 0) c.dequant = kF16;  // the weights rounded to float16 too
    c.product = kF32;
    c.Fill(static_cast<uint32_t>(s.m * 1000 + s.n * 10 + s.k));
    std::vector<uint8_t> reference;
    for (const std::string& isa : Isas()) {
      SetContractionIsa(isa);
      const std::vector<uint8_t> y = RunCase(c);
      if (reference.empty()) {
        reference = y;
      } else {
        EXPECT_EQ(y, reference) << isa << " differs from portable at m=" << s.m << " n=" << s.n
                                << " k=" << s.k << (s.q4 ? " (4-bit)" : "");
      }
    }
  }
}

// Within float32 summation error of the float64 sum of the same (exactly widened) terms; a
// 4-bit weight dequantized in float16 is rounded to float16 first.
TEST_F(ContractionTest, CloseToFloat64) {
  for (int form = 0; form < 3; ++form) {  // float16, 4-bit, 4-bit dequantized in float16
    const bool q4 = form > 0;
    Case c;
    c.q4 = q4;
    if (form == 2) c.dequant = kF16;
    SCOPED_TRACE("form " + std::to_string(form));
    c.m = 6;
    c.n = 40;
    c.k = 2048;
    c.x_type = kF16;
    c.w_type = kF16;
    c.Fill(7 + form);
    const std::vector<uint8_t> y = RunCase(c);
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t r = 0; r < c.n; ++r) {
        const auto [exact, mag] = c.Exact(i, r);
        // 128 fused steps per lane, then 4 additions: well below (k / 16 + 4) ulps of mag.
        const double bound = (static_cast<double>(c.k) / 16 + 4) * std::ldexp(1.0, -24) * mag;
        EXPECT_NEAR(Decode(kF32, y, i * c.n + r), exact, bound) << i << "," << r;
      }
    }
  }
}

// Float32 weights: each output is the kernel's own loop, acc = acc + x * w for k ascending,
// each operation rounded (bit for bit, on every instruction set and thread count).
TEST_F(ContractionTest, Float32WeightsSumInTheKernelsOrder) {
  Case c;
  c.m = 7;
  c.n = 37;
  c.k = 300;
  c.x_type = kF32;
  c.w_type = kF32;
  c.Fill(21);
  for (const std::string& isa : Isas()) {
    SetContractionIsa(isa);
    for (int threads : {1, 2}) {
      SetNumThreads(threads);
      const std::vector<uint8_t> y = RunCase(c);
      for (int64_t i = 0; i < c.m; ++i) {
        for (int64_t r = 0; r < c.n; ++r) {
          float acc = 0.0f;
          for (int64_t k = 0; k < c.k; ++k) {
            // volatile: the product is rounded before the add (no contraction into an FMA)
            volatile float product = static_cast<float>(Decode(kF32, c.x, i * c.k + k)) *
                                     static_cast<float>(Decode(kF32, c.w, r * c.k + k));
            acc = acc + product;
          }
          ASSERT_EQ(static_cast<float>(Decode(kF32, y, i * c.n + r)), acc)
              << isa << " " << threads << " threads, output " << i << "," << r;
        }
      }
    }
  }
}

// Row i of a batch is what a batch of row i alone gives, on the direct path (m <= 4) and the
// panel path alike, and for every thread count.
TEST_F(ContractionTest, OutputsDependOnTheirOwnRowsOnly) {
  for (int form = 0; form < 3; ++form) {  // float16 weights, 4-bit weights, float32 weights
    const bool q4 = form == 1;
    Case all;
    all.q4 = q4;
    all.m = 11;
    all.n = 100;
    all.k = 320;
    all.x_type = kF16;
    all.w_type = form == 2 ? kF32 : kF16;
    all.Fill(3);
    const std::vector<uint8_t> batched = RunCase(all);
    SetNumThreads(2);
    EXPECT_EQ(RunCase(all), batched) << "2 threads";
    SetNumThreads(1);
    for (int64_t i = 0; i < all.m; ++i) {
      Case one = all;
      one.m = 1;
      one.x.assign(all.x.begin() + i * all.k * 2, all.x.begin() + (i + 1) * all.k * 2);
      const std::vector<uint8_t> alone = RunCase(one);
      EXPECT_EQ(0, std::memcmp(alone.data(), batched.data() + i * all.n * 4, alone.size()))
          << "row " << i << (q4 ? " (4-bit)" : "");
    }
  }
}

// The epilogue as a kernel writes it: the sum rounded to the product's type, then each
// operation in float32 rounded to its type.
TEST_F(ContractionTest, EpilogueRoundsAfterEveryOperation) {
  Case c;
  c.q4 = true;
  c.m = 3;
  c.n = 70;
  c.k = 64;
  c.x_type = kF16;
  c.product = kF16;
  c.Fill(11);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  std::vector<float> full(static_cast<size_t>(c.m * c.n)), column(static_cast<size_t>(c.n));
  for (float& v : full) v = u(rng);
  for (float& v : column) v = u(rng);
  c.operands = {Encode(kF16, full), {}, Encode(kF32, column)};
  c.epilogue.resize(3);
  c.epilogue[0] = {PIPESPLIT_EPILOGUE_ADD, kF16, PIPESPLIT_OPERAND_FULL, 0, kF16, nullptr};
  c.epilogue[1] = {PIPESPLIT_EPILOGUE_CAST, kF32, 0, 0, {}, nullptr};
  c.epilogue[2] = {PIPESPLIT_EPILOGUE_MULTIPLY, kF32, PIPESPLIT_OPERAND_COLUMN, 1, kF32, nullptr};
  // The sums alone, rounded to float16 by hand.
  Case sums = c;
  sums.epilogue.clear();
  sums.operands.clear();
  const std::vector<uint8_t> s = RunCase(sums);
  const std::vector<uint8_t> y = RunCase(c);
  auto round16 = [](float v) { return f16::HalfToFloat(f16::FloatToHalf(v)); };
  for (int64_t i = 0; i < c.m * c.n; ++i) {
    float v = static_cast<float>(Decode(kF16, s, i));
    v = round16(v + static_cast<float>(Decode(kF16, c.operands[0], i)));
    v = static_cast<float>(Decode(kF32, c.operands[2], i % c.n)) * v;
    EXPECT_EQ(static_cast<float>(Decode(kF32, y, i)), v) << i;
  }
}

// MLC pads a 4-bit row to whole groups (K = 688, 88 words and 22 scales a row): the padding is
// never read, so the padded weights give the bits of the unpadded ones.
TEST_F(ContractionTest, PaddedRowsGiveTheBitsOfUnpaddedOnes) {
  Case c;
  c.q4 = true;
  c.m = 3;
  c.n = 21;
  c.k = 688;
  c.x_type = kF16;
  c.Fill(9);
  const std::vector<uint8_t> unpadded = RunCase(c);
  Case padded = c;
  const int64_t words = 88, groups = 22, k_groups = (c.k + 31) / 32;
  padded.words.assign(static_cast<size_t>(c.n * words), 0xFFFFFFFFu);
  padded.scale.assign(static_cast<size_t>(c.n * groups * 2), 0x7C);  // huge scales
  for (int64_t r = 0; r < c.n; ++r) {
    std::memcpy(&padded.words[r * words], &c.words[r * (c.k / 8)], c.k / 8 * 4);
    std::memcpy(&padded.scale[r * groups * 2], &c.scale[r * k_groups * 2], k_groups * 2);
  }
  for (const std::string& isa : Isas()) {
    SetContractionIsa(isa);
    PipesplitContraction d = padded.Describe();
    d.w_row_stride = words;
    d.scale_row_stride = groups;
    std::string error;
    ASSERT_EQ(RunContraction(d, &error), 0) << error;
    EXPECT_EQ(padded.y, unpadded) << isa;
  }
}

TEST_F(ContractionTest, MalformedDescriptionsAreErrors) {
  Case c;
  c.q4 = true;
  c.m = 2;
  c.n = 3;
  c.k = 64;
  c.x_type = kF16;
  c.Fill(1);
  std::string error;
  PipesplitContraction d = c.Describe();
  d.k = 60;
  EXPECT_EQ(RunContraction(d, &error), 1);
  EXPECT_EQ(error, "fast contraction: K = 60 is not a multiple of 8");
  d = c.Describe();
  d.m = -1;
  EXPECT_EQ(RunContraction(d, &error), 1);
  EXPECT_EQ(error, "fast contraction: negative size");
  d = c.Describe();
  d.x = nullptr;
  EXPECT_EQ(RunContraction(d, &error), 1);
  EXPECT_EQ(error, "fast contraction: missing data pointer");
  d = c.Describe();
  d.y_dtype = kF16;
  EXPECT_EQ(RunContraction(d, &error), 1);
  EXPECT_EQ(error, "fast contraction: the output's dtype is not the epilogue's");
  d = c.Describe();
  d.w_row_stride = 7;
  EXPECT_EQ(RunContraction(d, &error), 1);
  EXPECT_EQ(error, "fast contraction: weight or scale rows shorter than K needs");
  d = c.Describe();
  d.weight_format = 9;
  EXPECT_EQ(RunContraction(d, &error), 1);
  EXPECT_EQ(error, "fast contraction: unknown weight format 9");
  d = c.Describe();
  d.num_epilogue = PIPESPLIT_MAX_EPILOGUE + 1;
  EXPECT_EQ(RunContraction(d, &error), 1);
  EXPECT_EQ(error, "fast contraction: bad epilogue length 5");
  // Through the ABI entry: the message lands in the caller's buffer.
  d = c.Describe();
  d.n = -3;
  char buffer[128] = {};
  EXPECT_EQ(ContractEntry(&d, buffer, sizeof(buffer)), 1);
  EXPECT_STREQ(buffer, "fast contraction: negative size");
}

TEST_F(ContractionTest, UnsupportedTypesAreDeclined) {
  Case c;
  c.m = 1;
  c.n = 2;
  c.k = 16;
  c.Fill(2);
  std::string error;
  PipesplitContraction d = c.Describe();
  d.x_dtype = {2, 64};
  EXPECT_EQ(RunContraction(d, &error), PIPESPLIT_CONTRACT_DECLINED);
  d = c.Describe();
  d.w_dtype = {0, 8};
  EXPECT_EQ(RunContraction(d, &error), PIPESPLIT_CONTRACT_DECLINED);
  Case q;
  q.q4 = true;
  q.k = 64;
  q.group = 16;
  q.Fill(3);
  d = q.Describe();
  EXPECT_EQ(RunContraction(d, &error), PIPESPLIT_CONTRACT_DECLINED);
  const int64_t before = FastPathCalls();
  EXPECT_EQ(ContractEntry(&d, nullptr, 0), PIPESPLIT_CONTRACT_DECLINED);
  EXPECT_EQ(FastPathCalls(), before);  // only runs that happened count
}

TEST_F(ContractionTest, UnknownInstructionSetIsRefused) {
  EXPECT_THROW(SetContractionIsa("sse9"), std::invalid_argument);
  SetContractionIsa("portable");
  EXPECT_EQ(ContractionIsa(), "portable");
}

}  // namespace
}  // namespace pipesplit::runtime
