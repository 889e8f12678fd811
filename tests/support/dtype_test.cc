#include "pipesplit/support/dtype.h"

#include <gtest/gtest.h>

namespace pipesplit {
namespace {

TEST(DataTypeTest, RoundTripsCommonSpellings) {
  for (const char* s : {"float32", "float16", "bfloat16", "int64", "int32", "uint8", "bool",
                        "handle", "void", "float16x4", "float8_e4m3fn", "float8_e5m2", "int4"}) {
    auto t = DataType::Parse(s);
    ASSERT_TRUE(t.has_value()) << s;
    EXPECT_EQ(t->ToString(), s);
  }
}

TEST(DataTypeTest, RejectsGarbage) {
  for (const char* s : {"float", "int", "floaty", "x", "int-3", "float32x", "uint0", "int99999"}) {
    EXPECT_FALSE(DataType::Parse(s).has_value()) << s;
  }
}

TEST(DataTypeTest, Bytes) {
  EXPECT_EQ(DataType::Parse("float16")->bytes(), 2);
  EXPECT_EQ(DataType::Parse("bool")->bytes(), 1);
  EXPECT_EQ(DataType::Parse("int64")->bytes(), 8);
  EXPECT_EQ(DataType::Parse("float32x4")->bytes(), 16);
}

}  // namespace
}  // namespace pipesplit
