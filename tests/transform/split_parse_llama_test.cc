// Lexing and parsing in two pieces (src/script/syntax/parse_split.h) on the lowered Llama example
// at 64 layers (`pipesplit example llama-lowered --layers 64 --stages 8`), split as a 256 KiB
// threshold would: the syntax tree and the printed module are those of the serial parse.
#include <gtest/gtest.h>

#include <string>

#include "pipesplit/script/parser.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/source.h"
#include "pipesplit/transform/pass.h"
#include "pipesplit/models/llama.h"
#include "src/script/syntax/parse_split.h"
#include "tests/script/parser/syntax_tree_dump.h"

namespace pipesplit::transform {
namespace {

std::string LoweredLlamaText(int layers) {
  models::LlamaConfig config;
  config.layers = layers;
  config.stages = 8;
  ir::IRModule mod = script::ParseModule(models::GenerateLlamaExample(config).module_text, "l");
  PassContext ctx;
  return script::PrintModule(ParsePipeline("legalize-ops")->Run(mod, ctx));
}

std::string Dump(const SourceFile& file, int64_t min_split_bytes, bool* split) {
  script::SyntaxTree tree;
  script::LexInfo info;
  script::SplitParseStats stats;
  script::LexAndParse(file, 200, min_split_bytes, &tree, &info, &stats);
  *split = stats.split;
  return script::testing::DumpTree(tree, info);
}

TEST(SplitParseLlama, SixtyFourLayersGiveTheSerialTreeAndModule) {
  std::string text = LoweredLlamaText(64);
  const int64_t kThreshold = int64_t{256} << 10;
  ASSERT_GE(static_cast<int64_t>(text.size()), kThreshold);
  const SourceFile& file = SourceManager::Global().Add("llama64.py", text);
  bool split = true;
  std::string serial = Dump(file, -1, &split);
  EXPECT_FALSE(split);
  // Several runs: the tail runs on the other thread or, when the head gets there first, inline.
  for (int run = 0; run < 4; ++run) {
    EXPECT_EQ(Dump(file, kThreshold, &split), serial);
    EXPECT_TRUE(split);
  }
  script::ParseOptions split_options;
  split_options.split_parse_min_bytes = kThreshold;
  script::ParseOptions serial_options;
  serial_options.split_parse_min_bytes = -1;
  EXPECT_EQ(script::PrintModule(script::ParseModule(file, split_options)),
            script::PrintModule(script::ParseModule(file, serial_options)));
}

}  // namespace
}  // namespace pipesplit::transform
