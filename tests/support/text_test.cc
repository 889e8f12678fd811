#include "pipesplit/support/text.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pipesplit {
namespace {

TEST(QuoteStringTest, EscapesAsTvmPrints) {
  EXPECT_EQ(QuoteString("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(QuoteString("\t\r\n"), "\"\\t\\r\\n\"");
  // Upper-case hex digits, as the printer (and TVM's StrEscape) writes them.
  EXPECT_EQ(QuoteString("\x01\xc3\xa9"), "\"\\x01\\xC3\\xA9\"");
  EXPECT_EQ(QuoteString("x: {}"), "\"x: {}\"");
}

TEST(FormatFloatTest, MatchesTvmPrinting) {
  EXPECT_EQ(FormatFloat(1.0), "1.0");
  EXPECT_EQ(FormatFloat(-2.0), "-2.0");
  EXPECT_EQ(FormatFloat(0.5), "0.5");
  EXPECT_EQ(FormatFloat(1e-6), "9.9999999999999995e-07");
  EXPECT_EQ(FormatFloat(0.000244140625), "0.000244140625");
  EXPECT_EQ(FormatFloat(INFINITY), "inf");
  EXPECT_EQ(FormatFloat(NAN), "nan");
  EXPECT_EQ(FormatFloat(-INFINITY), "-inf");
  // Integral values in fixed notation at any magnitude.
  EXPECT_EQ(FormatFloat(1e20), "100000000000000000000.0");
  EXPECT_EQ(FormatFloat(-1e16), "-10000000000000000.0");
}

TEST(FloatLiteralTest, QuotesWhatPythonCannotSpell) {
  EXPECT_EQ(FloatLiteral(1.0), "1.0");
  EXPECT_EQ(FloatLiteral(1e20), "100000000000000000000.0");
  EXPECT_EQ(FloatLiteral(0.1), "0.10000000000000001");
  EXPECT_EQ(FloatLiteral(INFINITY), "\"inf\"");
  EXPECT_EQ(FloatLiteral(-INFINITY), "\"-inf\"");
  EXPECT_EQ(FloatLiteral(NAN), "\"nan\"");
}

}  // namespace
}  // namespace pipesplit
