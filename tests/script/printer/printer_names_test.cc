// Printer internals: unique names with freeing (TVM's smallest free suffix), name
// sanitizing, float and string literals as TVM's PythonDocPrinter writes them.
#include <gtest/gtest.h>

#include <cmath>

#include "src/script/printer/printer_internal.h"

namespace pipesplit::script::printer {
namespace {

TEST(PrinterNamesTest, SmallestFreeSuffixIsTaken) {
  NameTable names(std::pmr::new_delete_resource());
  EXPECT_EQ(names.Take("x"), "x");
  EXPECT_EQ(names.Take("x"), "x_1");
  EXPECT_EQ(names.Take("x"), "x_2");
  names.Free("x_1");
  EXPECT_EQ(names.Take("x"), "x_1");
  EXPECT_EQ(names.Take("x"), "x_3");
  names.Free("x");
  EXPECT_EQ(names.Take("x"), "x");
}

TEST(PrinterNamesTest, SuffixedNamesTakenVerbatimAreSkipped) {
  NameTable names(std::pmr::new_delete_resource());
  names.Reserve("R");
  EXPECT_EQ(names.Take("R"), "R_1");
  EXPECT_EQ(names.Take("y_1"), "y_1");
  EXPECT_EQ(names.Take("y"), "y");
  EXPECT_EQ(names.Take("y"), "y_2");
  names.Free("y_2");
  names.Free("y_1");  // taken verbatim, still frees suffix 1 of "y"
  EXPECT_EQ(names.Take("y"), "y_1");
  EXPECT_EQ(names.Take("y_1"), "y_1_1");
  EXPECT_EQ(names.Take("y"), "y_2");
  // A stale queued suffix (taken verbatim meanwhile) is skipped.
  names.Free("y_2");
  EXPECT_EQ(names.Take("y_2"), "y_2");
  EXPECT_EQ(names.Take("y"), "y_3");
  // Names that only look suffixed do not confuse the table.
  names.Free("y_0");
  names.Free("y_01");
  EXPECT_EQ(names.Take("y_0"), "y_0");
}

TEST(PrinterNamesTest, ManyCollisionsStayCorrect) {
  NameTable names(std::pmr::new_delete_resource());
  std::string last;
  for (int i = 0; i < 50000; ++i) last = names.Take("lv");
  EXPECT_EQ(last, "lv_49999");
  for (int i = 1; i < 50000; i += 2) names.Free("lv_" + std::to_string(i));
  EXPECT_EQ(names.Take("lv"), "lv_1");
  EXPECT_EQ(names.Take("lv"), "lv_3");
}

TEST(PrinterNamesTest, SanitizeName) {
  EXPECT_EQ(SanitizeName(""), "v");
  EXPECT_EQ(SanitizeName("lv1_x"), "lv1_x");
  EXPECT_EQ(SanitizeName("a.b-c d"), "a_b_c_d");
  EXPECT_EQ(SanitizeName("\xc3\xa9t\xc3\xa9"), "__t__");
}

TEST(PrinterNamesTest, FloatLiterals) {
  EXPECT_EQ(FloatLiteral(1.0), "1.0");
  EXPECT_EQ(FloatLiteral(-0.0), "-0.0");
  EXPECT_EQ(FloatLiteral(0.5), "0.5");
  EXPECT_EQ(FloatLiteral(0.1), "0.10000000000000001");
  EXPECT_EQ(FloatLiteral(1e-6), "9.9999999999999995e-07");
  EXPECT_EQ(FloatLiteral(1e16), "10000000000000000.0");
  EXPECT_EQ(FloatLiteral(1.5e300).substr(0, 5), "15000");
  EXPECT_EQ(FloatLiteral(INFINITY), "\"inf\"");
  EXPECT_EQ(FloatLiteral(-INFINITY), "\"-inf\"");
  EXPECT_EQ(FloatLiteral(NAN), "\"nan\"");
}

TEST(PrinterNamesTest, StringLiterals) {
  EXPECT_EQ(QuoteString("x: {}"), "\"x: {}\"");
  EXPECT_EQ(QuoteString("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(QuoteString("\t\r\n"), "\"\\t\\r\\n\"");
  // Other bytes outside 0x20..0x7E as \xHH with upper-case digits (TVM's StrEscape).
  EXPECT_EQ(QuoteString("\x01\xc3\xa9\x7f"), "\"\\x01\\xC3\\xA9\\x7F\"");
}

}  // namespace
}  // namespace pipesplit::script::printer
