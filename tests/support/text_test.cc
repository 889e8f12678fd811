#include "pipesplit/support/text.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

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

std::filesystem::path TempPath(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("pipesplit_text_test_" + std::to_string(getpid()) + "_" + name);
}

TEST(ReadFileTest, ReadsEveryByteOfFilesOfAnySize) {
  // Around the first read's size (the file's size + 1) and past the 1 MiB read chunk.
  for (size_t size : {size_t{0}, size_t{1}, size_t{4095}, size_t{1} << 20, (size_t{3} << 20) + 7}) {
    std::string bytes(size, '\0');
    for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>((i * 131 + size) % 251);
    std::filesystem::path path = TempPath(std::to_string(size));
    std::ofstream(path, std::ios::binary) << bytes;
    std::string text = "stale", error;
    ASSERT_TRUE(ReadFile(path.string(), &text, &error)) << error;
    EXPECT_EQ(text.size(), size);
    EXPECT_TRUE(text == bytes) << "size " << size;
    std::filesystem::remove(path);
  }
}

TEST(ReadFileTest, ReadsFilesWithoutASizeToTheirEnd) {
  // /proc files report size 0; the string grows as they are read.
  std::string text, error;
  ASSERT_TRUE(ReadFile("/proc/self/status", &text, &error)) << error;
  EXPECT_NE(text.find("VmRSS:"), std::string::npos);
  EXPECT_EQ(text.back(), '\n');
}

TEST(ReadFileTest, ReportsWhatCannotBeOpenedOrRead) {
  std::string text, error;
  EXPECT_FALSE(ReadFile("/nonexistent/file.py", &text, &error));
  EXPECT_EQ(error, "cannot open '/nonexistent/file.py': No such file or directory");
  std::filesystem::path dir = TempPath("dir");
  std::filesystem::create_directory(dir);
  EXPECT_FALSE(ReadFile(dir.string(), &text, &error));
  EXPECT_EQ(error, "cannot read '" + dir.string() + "': Is a directory");
  std::filesystem::remove(dir);
}

}  // namespace
}  // namespace pipesplit
