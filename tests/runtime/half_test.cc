// float16 / bfloat16 conversions: rounding, specials, subnormals, bit patterns.
#include "pipesplit/runtime/tensor/half.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace pipesplit::runtime {
namespace {

float FromBits(uint32_t bits) { return std::bit_cast<float>(bits); }

TEST(HalfTest, NarrowsCommonValues) {
  EXPECT_EQ(FloatToHalfBits(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalfBits(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalfBits(0.5f), 0x3800);
  EXPECT_EQ(FloatToHalfBits(0.1f), 0x2e66);
  EXPECT_EQ(FloatToHalfBits(65504.0f), 0x7bff);  // largest finite
  EXPECT_EQ(FloatToHalfBits(0.0f), 0x0000);
  EXPECT_EQ(FloatToHalfBits(-0.0f), 0x8000);
}

TEST(HalfTest, RoundsToNearestEven) {
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties go to the even mantissa.
  EXPECT_EQ(FloatToHalfBits(1.0f + 0x1p-11f), 0x3c00);
  EXPECT_EQ(FloatToHalfBits(1.0f + 3 * 0x1p-11f), 0x3c02);
  EXPECT_EQ(FloatToHalfBits(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);  // just above the tie
  EXPECT_EQ(FloatToHalfBits(2049.0f), 0x6800);                     // 2048
  EXPECT_EQ(FloatToHalfBits(2051.0f), 0x6802);                     // 2052
}

TEST(HalfTest, OverflowsToInfinity) {
  EXPECT_EQ(FloatToHalfBits(65519.0f), 0x7bff);
  EXPECT_EQ(FloatToHalfBits(65520.0f), 0x7c00);  // the tie rounds up to infinity
  EXPECT_EQ(FloatToHalfBits(1e10f), 0x7c00);
  EXPECT_EQ(FloatToHalfBits(-1e10f), 0xfc00);
  EXPECT_EQ(FloatToHalfBits(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(FloatToHalfBits(-std::numeric_limits<float>::infinity()), 0xfc00);
}

TEST(HalfTest, ProducesSubnormals) {
  EXPECT_EQ(FloatToHalfBits(0x1p-14f), 0x0400);         // smallest normal
  EXPECT_EQ(FloatToHalfBits(0x1p-24f), 0x0001);         // smallest subnormal
  EXPECT_EQ(FloatToHalfBits(1023 * 0x1p-24f), 0x03ff);  // largest subnormal
  EXPECT_EQ(FloatToHalfBits(0x1p-25f), 0x0000);         // tie between 0 and 2^-24: even
  EXPECT_EQ(FloatToHalfBits(3 * 0x1p-26f), 0x0001);     // above the tie
  EXPECT_EQ(FloatToHalfBits(3 * 0x1p-25f), 0x0002);     // 1.5 * 2^-24: tie to even (2)
  EXPECT_EQ(FloatToHalfBits(-0x1p-24f), 0x8001);
  EXPECT_EQ(FloatToHalfBits(1e-30f), 0x0000);
  EXPECT_EQ(FloatToHalfBits(FromBits(0x00000001)), 0x0000);  // float subnormal
}

TEST(HalfTest, KeepsNaNsQuiet) {
  EXPECT_EQ(FloatToHalfBits(std::numeric_limits<float>::quiet_NaN()), 0x7e00);
  EXPECT_EQ(FloatToHalfBits(FromBits(0xffc00000)), 0xfe00);
  // A signalling NaN whose payload sits below half's mantissa stays a NaN (not infinity).
  EXPECT_EQ(FloatToHalfBits(FromBits(0x7f800001)), 0x7e00);
  EXPECT_EQ(FloatToHalfBits(FromBits(0x7fa02000)), 0x7f01);
}

TEST(HalfTest, WidensExactly) {
  EXPECT_EQ(HalfBitsToFloat(0x3c00), 1.0f);
  EXPECT_EQ(HalfBitsToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(HalfBitsToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(HalfBitsToFloat(0x0001), 0x1p-24f);
  EXPECT_EQ(HalfBitsToFloat(0x03ff), 1023 * 0x1p-24f);
  EXPECT_EQ(HalfBitsToFloat(0x8001), -0x1p-24f);
  EXPECT_EQ(std::bit_cast<uint32_t>(HalfBitsToFloat(0x8000)), 0x80000000u);
  EXPECT_EQ(HalfBitsToFloat(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(HalfBitsToFloat(0xfc00), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(std::bit_cast<uint32_t>(HalfBitsToFloat(0x7e00)), 0x7fc00000u);
  EXPECT_EQ(std::bit_cast<uint32_t>(HalfBitsToFloat(0x7d01)), 0x7fa02000u);
}

TEST(HalfTest, EveryHalfRoundTrips) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    const uint16_t bits = static_cast<uint16_t>(h);
    const float f = HalfBitsToFloat(bits);
    const bool is_nan = (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff) != 0;
    if (is_nan) {
      EXPECT_TRUE(std::isnan(f)) << h;
      // Quiet NaNs come back unchanged; signalling ones come back quiet.
      EXPECT_EQ(FloatToHalfBits(f), bits | 0x0200) << h;
    } else {
      EXPECT_EQ(FloatToHalfBits(f), bits) << h;
    }
  }
}

TEST(BFloat16Test, RoundsToNearestEven) {
  EXPECT_EQ(FloatToBFloat16Bits(1.0f), 0x3f80);
  EXPECT_EQ(FloatToBFloat16Bits(3.14159265f), 0x4049);
  EXPECT_EQ(FloatToBFloat16Bits(FromBits(0x3f808000)), 0x3f80);  // tie, even below
  EXPECT_EQ(FloatToBFloat16Bits(FromBits(0x3f818000)), 0x3f82);  // tie, even above
  EXPECT_EQ(FloatToBFloat16Bits(FromBits(0x3f808001)), 0x3f81);
  EXPECT_EQ(FloatToBFloat16Bits(-0.0f), 0x8000);
  EXPECT_EQ(FloatToBFloat16Bits(std::numeric_limits<float>::max()), 0x7f80);  // overflows
  EXPECT_EQ(FloatToBFloat16Bits(FromBits(0x00010000)), 0x0001);               // subnormal kept
}

TEST(BFloat16Test, KeepsNaNsNaN) {
  EXPECT_EQ(FloatToBFloat16Bits(std::numeric_limits<float>::quiet_NaN()), 0x7fc0);
  // Truncating 0x7f800001 would give infinity; it must stay a NaN.
  EXPECT_EQ(FloatToBFloat16Bits(FromBits(0x7f800001)), 0x7fc0);
  EXPECT_EQ(FloatToBFloat16Bits(FromBits(0xff810000)), 0xffc1);
  EXPECT_EQ(FloatToBFloat16Bits(std::numeric_limits<float>::infinity()), 0x7f80);
}

TEST(BFloat16Test, WidensExactly) {
  EXPECT_EQ(BFloat16BitsToFloat(0x3f80), 1.0f);
  EXPECT_EQ(BFloat16BitsToFloat(0x4049), 3.140625f);
  EXPECT_EQ(BFloat16BitsToFloat(0xff80), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(BFloat16BitsToFloat(0x7fc0)));
}

TEST(DoubleNarrowingTest, AvoidsDoubleRounding) {
  // Rounding this to float first lands exactly on a float16 tie and would round down.
  const double above_tie = 1.0 + 0x1p-11 + 0x1p-40;
  EXPECT_EQ(DoubleToHalfBits(above_tie), 0x3c01);
  EXPECT_EQ(DoubleToHalfBits(1.0 + 0x1p-11), 0x3c00);  // the exact tie stays even
  EXPECT_EQ(DoubleToHalfBits(-(1.0 + 0x1p-11 + 0x1p-40)), 0xbc01);
  EXPECT_EQ(DoubleToHalfBits(0.1), 0x2e66);
  EXPECT_EQ(DoubleToHalfBits(1e300), 0x7c00);
  EXPECT_EQ(DoubleToHalfBits(1e-300), 0x0000);
  EXPECT_EQ(DoubleToHalfBits(std::numeric_limits<double>::quiet_NaN()), 0x7e00);
  // Same for bfloat16: 1 + 2^-8 is a bfloat16 tie.
  EXPECT_EQ(DoubleToBFloat16Bits(1.0 + 0x1p-8 + 0x1p-40), 0x3f81);
  EXPECT_EQ(DoubleToBFloat16Bits(1.0 + 0x1p-8), 0x3f80);
}

}  // namespace
}  // namespace pipesplit::runtime
