#include "pipesplit/support/pointer_map.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace pipesplit::support {
namespace {

TEST(PointerMap, AgreesWithStdMapAcrossGrowth) {
  // Keys are real heap objects (adjacent, aligned addresses, as IR nodes are).
  std::vector<std::unique_ptr<int>> keys;
  for (int i = 0; i < 5000; ++i) keys.push_back(std::make_unique<int>(i));
  PointerMap<int, int> map;  // grows from empty
  std::map<const int*, int> expected;
  for (int i = 0; i < 5000; ++i) {
    const int* key = keys[(i * 7919) % 5000].get();
    auto [value, added] = map.Insert(key, i);
    auto [it, expected_added] = expected.emplace(key, i);
    EXPECT_EQ(added, expected_added);
    EXPECT_EQ(*value, it->second);
  }
  EXPECT_EQ(map.size(), expected.size());
  for (const auto& key : keys) {
    const int* found = map.Find(key.get());
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(*found, expected.at(key.get()));
  }
  int absent = 0;
  EXPECT_EQ(map.Find(&absent), nullptr);
  EXPECT_FALSE(map.Contains(&absent));
}

TEST(PointerMap, InsertKeepsTheFirstValueAndIndexingDefaults) {
  int a = 0, b = 0;
  PointerMap<int, std::string> map(4);
  EXPECT_TRUE(map.empty());
  EXPECT_TRUE(map.Insert(&a, "first").second);
  EXPECT_FALSE(map.Insert(&a, "second").second);
  EXPECT_EQ(*map.Find(&a), "first");
  EXPECT_EQ(map[&b], "");  // default-constructed on first use
  map[&b] = "b";
  EXPECT_EQ(*map.Find(&b), "b");
  EXPECT_EQ(map.size(), 2u);
}

TEST(PointerSet, InsertReportsNewKeys) {
  int a = 0, b = 0;
  PointerSet<int> set;
  EXPECT_TRUE(set.Insert(&a));
  EXPECT_FALSE(set.Insert(&a));
  EXPECT_TRUE(set.Contains(&a));
  EXPECT_FALSE(set.Contains(&b));
  EXPECT_EQ(set.size(), 1u);
}

}  // namespace
}  // namespace pipesplit::support
