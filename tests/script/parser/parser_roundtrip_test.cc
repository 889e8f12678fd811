// Parser + printer smoke tests: the MLC-LLM dumps print back byte for byte, and printing is a
// fixed point of parsing (the printer's own tests own printing correctness).
#include <gtest/gtest.h>

#include <filesystem>

#include "pipesplit/script/parser.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/text.h"
#include "tests/script/mlc_defaults.h"
#include "tests/script/parser/parser_test_util.h"

namespace pipesplit::script {
namespace {

namespace fs = std::filesystem;

TEST(ParserRoundTrip, MlcDumpsPrintBackByteForByte) {
  fs::path dir = fs::path(PIPESPLIT_SOURCE_DIR) / ".." / "shared" / "corpus" / "mlc-llm-2023";
  if (!fs::exists(dir)) GTEST_SKIP() << "corpus not present at " << dir;
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string text, error;
    ASSERT_TRUE(ReadFile(entry.path().string(), &text, &error)) << error;
    ir::IRModule mod = ParseModule(text, entry.path().filename().string());
    // Byte for byte, apart from attributes newer than the dump that print with their default.
    EXPECT_EQ(testing::WithoutPost2023Defaults(PrintModule(mod)), text) << entry.path();
    ++files;
  }
  EXPECT_GT(files, 0);
}

TEST(ParserRoundTrip, PrintingIsAFixedPointOfParsing) {
  ir::IRModule mod = testing::Parse(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), c: R.Prim("bool")):
        n = T.int64()
        with R.dataflow():
            y = R.add(x, x)
            z = R.multiply(R.add(y, x), y)
            R.output(z)
        if c:
            w = R.add(z, z)
        else:
            w = z
        t = w, R.shape([n, 4])
        return t
)");
  std::string once = PrintModule(mod);
  EXPECT_EQ(PrintModule(testing::Parse(once)), once);
}

}  // namespace
}  // namespace pipesplit::script
