// The command-line tool as a user runs it: subcommands, exit codes, located errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/cli/cli_test_util.h"

namespace pipesplit::testing_cli {
namespace {

using testing::HasSubstr;
using testing::Not;
using testing::StartsWith;

constexpr const char* kSmall = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((2, 3), dtype="float32") = R.add(x, y)
            R.output(gv)
        return gv
)";

TEST(CliTest, FmtReproducesCanonicalTextAndWritesFiles) {
  auto dir = ScratchDir("fmt");
  WriteText(dir / "in.py", kSmall);
  Result printed = Pipesplit("fmt " + (dir / "in.py").string());
  EXPECT_EQ(printed.exit_code, 0);
  EXPECT_EQ(printed.output, kSmall);
  Result to_file =
      Pipesplit("fmt " + (dir / "in.py").string() + " -o " + (dir / "out.py").string());
  EXPECT_EQ(to_file.exit_code, 0);
  EXPECT_EQ(ReadText(dir / "out.py"), kSmall);
}

TEST(CliTest, FmtReportsParseErrorsWithLocationAndExitsOne) {
  auto dir = ScratchDir("fmt_error");
  WriteText(dir / "bad.py",
            "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensr((2,), "
            "\"float32\")):\n        return x\n");
  Result r = Pipesplit("fmt " + (dir / "bad.py").string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, StartsWith((dir / "bad.py").string() + ":4:17: error: "));
}

TEST(CliTest, MissingInputFileIsAnError) {
  Result r = Pipesplit("fmt /nonexistent/file.py");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("error: cannot open '/nonexistent/file.py'"));
}

TEST(CliTest, CheckAcceptsWellFormedAndRejectsIllFormed) {
  auto dir = ScratchDir("check");
  WriteText(dir / "ok.py", kSmall);
  Result ok = Pipesplit("check " + (dir / "ok.py").string());
  EXPECT_EQ(ok.exit_code, 0);
  EXPECT_THAT(ok.output, HasSubstr("ok.py: ok"));
}

TEST(CliTest, DiffComparesModuloRenaming) {
  auto dir = ScratchDir("diff");
  WriteText(dir / "a.py", kSmall);
  std::string renamed = kSmall;
  for (size_t p; (p = renamed.find("gv")) != std::string::npos;) renamed.replace(p, 2, "out");
  WriteText(dir / "b.py", renamed);
  std::string different = kSmall;
  different.replace(different.find("R.add"), 5, "R.multiply");
  WriteText(dir / "c.py", different);
  Result same = Pipesplit("diff " + (dir / "a.py").string() + " " + (dir / "b.py").string());
  EXPECT_EQ(same.exit_code, 0) << same.output;
  EXPECT_THAT(same.output, HasSubstr("structurally equal"));
  Result diff = Pipesplit("diff " + (dir / "a.py").string() + " " + (dir / "c.py").string());
  EXPECT_EQ(diff.exit_code, 1);
  EXPECT_THAT(diff.output, HasSubstr("modules differ at main"));
}

TEST(CliTest, OptRejectsBadPipelinesWithLocatedErrors) {
  auto dir = ScratchDir("opt_errors");
  WriteText(dir / "m.py", kSmall);
  std::string m = (dir / "m.py").string();
  Result unknown = Pipesplit("opt " + m + " -p 'verify,no-such-pass'");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_THAT(
      unknown.output,
      HasSubstr("--passes:1:8: error: unknown pass 'no-such-pass' (see 'pipesplit passes')"));
  Result option = Pipesplit("opt " + m + " -p 'attach-pipeline-stages{stages=x}'");
  EXPECT_EQ(option.exit_code, 1);
  EXPECT_THAT(option.output,
              HasSubstr("--passes:1:31: error: option 'stages' expects an integer, got 'x'"));
  Result missing = Pipesplit("opt " + m + " -p 'attach-pipeline-stages'");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.output, HasSubstr("--passes:1:1: error: pass 'attach-pipeline-stages' "
                                        "needs option 'stages'"));
  Result unterminated = Pipesplit("opt " + m + " -p 'attach-pipeline-stages{stages=2'");
  EXPECT_EQ(unterminated.exit_code, 1);
  EXPECT_THAT(unterminated.output, HasSubstr("unterminated option list"));
  Result no_func = Pipesplit("opt " + m + " -p 'attach-pipeline-stages{stages=2,funcs=nope}'");
  EXPECT_EQ(no_func.exit_code, 1);
  EXPECT_THAT(no_func.output, HasSubstr("--passes:1:39: error: attach-pipeline-stages: the module "
                                        "has no function named 'nope'"));
}

TEST(CliTest, OptAttachesStagesAndTimesPasses) {
  auto dir = ScratchDir("opt_attach");
  WriteText(dir / "m.py", kSmall);
  Result r = Pipesplit("opt " + (dir / "m.py").string() +
                       " -p 'attach-pipeline-stages{stages=1,funcs=main},verify' --verify-each "
                       "--time-passes");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("R.func_attr({\"pipeline_parallel_stages\": 1})"));
  EXPECT_THAT(r.output, HasSubstr("pass timings:"));
  EXPECT_THAT(r.output, HasSubstr("attach-pipeline-stages"));
}

TEST(CliTest, PassesListsEveryPass) {
  Result r = Pipesplit("passes");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("pipeline-parallel-rewrite"));
  EXPECT_THAT(r.output, HasSubstr("attach-pipeline-stages"));
  EXPECT_THAT(r.output, HasSubstr("legalize-ops"));
  EXPECT_THAT(r.output, HasSubstr("verify"));
}

TEST(CliTest, EverySubcommandHasHelp) {
  for (const char* sub : {"fmt", "check", "diff", "opt", "passes", "run", "verify-split", "example",
                          "example llama", "example llama-lowered"}) {
    Result r = Pipesplit(std::string(sub) + " --help");
    EXPECT_EQ(r.exit_code, 0) << sub;
    EXPECT_THAT(r.output, HasSubstr("Usage")) << sub;
  }
}

TEST(CliTest, UnknownSubcommandIsNamedWithTheRealOnes) {
  Result r = Pipesplit("frobnicate");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, StartsWith("error: unknown subcommand 'frobnicate' (subcommands: fmt, "));
  for (const char* real : {"check", "opt", "run", "verify-split", "generate", "example"}) {
    EXPECT_THAT(r.output, HasSubstr(real));
  }
  // --help of a subcommand that does not exist is the same error, not the main help.
  for (const char* help : {"frobnicate --help", "frobnicate -h", "frobnicate x.py --help"}) {
    Result h = Pipesplit(help);
    EXPECT_EQ(h.exit_code, 1) << help;
    EXPECT_THAT(h.output, StartsWith("error: unknown subcommand 'frobnicate'")) << help;
    EXPECT_THAT(h.output, Not(HasSubstr("Usage"))) << help;
  }
  // Below a command with subcommands too.
  Result nested = Pipesplit("example lama --help");
  EXPECT_EQ(nested.exit_code, 1);
  EXPECT_THAT(nested.output,
              StartsWith("error: unknown subcommand 'lama' of 'example' (subcommands: llama, "
                         "llama-lowered, random-inputs)"));
  // Options and real subcommands are untouched: the main help, a subcommand's help.
  EXPECT_EQ(Pipesplit("--help").exit_code, 0);
  EXPECT_EQ(Pipesplit("example llama --help").exit_code, 0);
}

TEST(CliTest, BadFlagsAreErrorsWithExitOne) {
  Result r = Pipesplit("fmt --no-such-flag x.py");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, StartsWith("error: "));
  Result none = Pipesplit("");
  EXPECT_EQ(none.exit_code, 1);
  Result syntax = Pipesplit("fmt x.py --syntax modern");
  EXPECT_EQ(syntax.exit_code, 1);
  EXPECT_THAT(syntax.output, StartsWith("error: "));
}

TEST(CliTest, FmtTirSyntaxConvertsBlockSpellings) {
  auto dir = ScratchDir("tir_syntax");
  const std::string block =
      "# from tvm.script import ir as I\n"
      "# from tvm.script import tir as T\n"
      "\n"
      "@I.ir_module\n"
      "class Module:\n"
      "    @T.prim_func\n"
      "    def k(A: T.Buffer((4,), \"float32\")):\n"
      "        # with T.block(\"root\"):\n"
      "        for i in range(4):\n"
      "            with T.block(\"A\"):\n"
      "                vi = T.axis.spatial(4, i)\n"
      "                T.reads()\n"
      "                T.writes(A[vi])\n"
      "                A[vi] = T.float32(0)\n";
  std::string sblock = block;
  for (auto [from, to] : {std::pair<std::string, std::string>{"tir as T\n",
                                                              "tirx as T\n"
                                                              "# from tvm.tirx.layout "
                                                              "import Axis\n"},
                          {"@T.prim_func\n", "@T.prim_func(s_tir=True)\n"},
                          {"T.block(", "T.sblock("},
                          {"T.block(", "T.sblock("},
                          {"T.float32(0)", "T.float32(0.0)"}}) {
    sblock.replace(sblock.find(from), from.size(), to);
  }
  WriteText(dir / "block.py", block);
  WriteText(dir / "sblock.py", sblock);
  Result to_sblock = Pipesplit("fmt " + (dir / "block.py").string() + " --tir-syntax sblock");
  EXPECT_EQ(to_sblock.exit_code, 0) << to_sblock.output;
  EXPECT_EQ(to_sblock.output, sblock);
  Result to_block = Pipesplit("fmt " + (dir / "sblock.py").string() + " --tir-syntax block");
  EXPECT_EQ(to_block.exit_code, 0) << to_block.output;
  EXPECT_EQ(to_block.output, block);
  Result same = Pipesplit("fmt " + (dir / "sblock.py").string());
  EXPECT_EQ(same.output, sblock);
  Result bad = Pipesplit("fmt " + (dir / "block.py").string() + " --tir-syntax tblock");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.output, StartsWith("error: "));
}

TEST(CliTest, BinaryGarbageNeverCrashes) {
  auto dir = ScratchDir("garbage");
  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage += static_cast<char>((i * 131 + 7) % 256);
  WriteText(dir / "g.py", garbage);
  Result r = Pipesplit("fmt " + (dir / "g.py").string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("error: "));
  WriteText(dir / "deep.py", std::string(1000000, '('));
  Result deep = Pipesplit("check " + (dir / "deep.py").string());
  EXPECT_EQ(deep.exit_code, 1);
  EXPECT_THAT(deep.output, HasSubstr("error: "));
}

}  // namespace
}  // namespace pipesplit::testing_cli
