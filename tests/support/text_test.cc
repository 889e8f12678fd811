#include "pipesplit/support/text.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pipesplit {
namespace {

TEST(QuoteStringTest, EscapesAsTvmPrints) {
  EXPECT_EQ(QuoteString("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(QuoteString("\t\r\n"), "\"\\t\\r\\n\"");
  EXPECT_EQ(QuoteString("\x01\xc3\xa9"), "\"\\x01\\xc3\\xa9\"");
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
}

}  // namespace
}  // namespace pipesplit
