// analysis::CheckSendRecvPairing restricted to some members: it checks the dispatchers those
// members call, and only those (the rewrite checks its own dispatchers that way).
#include "pipesplit/analysis/pipeline_checks.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "pipesplit/script/parser.h"
#include "pipesplit/support/text.h"

namespace pipesplit::analysis {
namespace {

namespace fs = std::filesystem;

// A module split before whose stage 1 receives a (3,) tensor where stage 0 sends (4,).
ir::IRModule MismatchedModule() {
  fs::path path = fs::path(PIPESPLIT_SOURCE_DIR) /
                  "tests/transform/golden/presplit_send_recv_mismatch.error.py";
  std::string text, error;
  EXPECT_TRUE(ReadFile(path.string(), &text, &error)) << error;
  return script::ParseModule(text, path.string());
}

TEST(SendRecvPairing, MembersOnlyChecksTheDispatchersTheyCall) {
  ir::IRModule mod = MismatchedModule();
  std::vector<Diagnostic> all = CheckSendRecvPairing(mod);
  ASSERT_EQ(all.size(), 1u);
  std::vector<Diagnostic> from_main = CheckSendRecvPairing(mod, {mod.GetGlobalVar("main")});
  ASSERT_EQ(from_main.size(), 1u);
  EXPECT_EQ(from_main[0].message, all[0].message);
  // The stages call no dispatcher: nothing to check there.
  EXPECT_TRUE(
      CheckSendRecvPairing(mod, {mod.GetGlobalVar("main_stage0"), mod.GetGlobalVar("main_stage1")})
          .empty());
  EXPECT_TRUE(CheckSendRecvPairing(mod, {}).empty());
}

}  // namespace
}  // namespace pipesplit::analysis
