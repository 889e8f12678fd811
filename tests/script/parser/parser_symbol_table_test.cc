// The lowering's scoped symbol table: shadowing, and popping a frame both ways (erasing each
// name of a small frame; rebuilding from the rest when the frame is big).
#include <gtest/gtest.h>

#include <string>

#include "src/script/relax/parser_lower.h"

namespace pipesplit::script {
namespace {

Value Int(int64_t i) {
  Value v;
  v.kind = Value::Kind::kInt;
  v.i = i;
  return v;
}

int64_t IntOf(const SymbolTable& table, const std::string& name) {
  const Value* v = table.Lookup(name);
  return v == nullptr ? -1 : v->i;
}

// Outer names, some shadowed by a frame of `inner_names` names, then popped.
void CheckShadowingSurvivesPop(int inner_names) {
  SCOPED_TRACE("frame of " + std::to_string(inner_names) + " names");
  SymbolTable table;
  table.PushFrame();
  table.Define("n", Int(1));
  table.Define("x", Int(2));
  table.Define("R", Int(3));
  table.PushFrame();
  table.Define("n", Int(10));  // shadows
  table.Define("R", Int(30));  // shadows a one-letter name
  for (int i = 0; i < inner_names; ++i) table.Define("v" + std::to_string(i), Int(100 + i));
  table.Define("n", Int(11));  // redefined in the same frame: replaces
  EXPECT_EQ(IntOf(table, "n"), 11);
  EXPECT_EQ(IntOf(table, "R"), 30);
  EXPECT_EQ(IntOf(table, "x"), 2);
  EXPECT_TRUE(table.InInnermostFrame("n"));
  EXPECT_FALSE(table.InInnermostFrame("x"));
  table.PopFrame();
  EXPECT_EQ(IntOf(table, "n"), 1);
  EXPECT_EQ(IntOf(table, "R"), 3);
  EXPECT_EQ(IntOf(table, "x"), 2);
  EXPECT_EQ(IntOf(table, "v0"), -1);
  EXPECT_EQ(IntOf(table, "v" + std::to_string(inner_names - 1)), -1);
  EXPECT_TRUE(table.InInnermostFrame("x"));
  // The table keeps working after the pop.
  table.PushFrame();
  table.Define("x", Int(5));
  EXPECT_EQ(IntOf(table, "x"), 5);
  table.PopFrame();
  EXPECT_EQ(IntOf(table, "x"), 2);
  table.PopFrame();
  EXPECT_EQ(IntOf(table, "x"), -1);
  EXPECT_EQ(table.depth(), 0u);
}

TEST(SymbolTableTest, SmallFramePopsNameByName) { CheckShadowingSurvivesPop(3); }

TEST(SymbolTableTest, BigFramePopsByRebuildingTheRest) { CheckShadowingSurvivesPop(5000); }

}  // namespace
}  // namespace pipesplit::script
