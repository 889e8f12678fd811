// The pipeline-parallel rewrite builds its stage functions side by side
// (support::CompileParallelFor). Its output and its errors must not depend on the number of
// compiler threads, which PIPESPLIT_COMPILE_THREADS fixes once per process: each case runs
// `pipesplit opt` with 1 and with 4 threads and compares what they print.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pipesplit/analysis/structural_equal.h"
#include "pipesplit/script/parser.h"
#include "tests/cli/cli_test_util.h"

namespace pipesplit::testing_cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Result OptWithThreads(const std::filesystem::path& in, const std::filesystem::path& out,
                      int threads) {
  return Shell("env PIPESPLIT_COMPILE_THREADS=" + std::to_string(threads) + " " + Binary() +
               " opt " + in.string() + " -p pipeline-parallel-rewrite -o " + out.string());
}

TEST(RewriteThreads, SixtyFourLayerLlamaIsTheSameForOneAndFourThreads) {
  auto dir = ScratchDir("rewrite_threads_llama");
  Result example = Pipesplit("example llama-lowered --layers 64 --stages 8 --module-only -o " +
                             (dir / "model").string());
  ASSERT_EQ(example.exit_code, 0) << example.output;
  std::filesystem::path model = dir / "model" / "model.py";
  ASSERT_TRUE(std::filesystem::exists(model)) << example.output;

  Result serial = OptWithThreads(model, dir / "one.py", 1);
  ASSERT_EQ(serial.exit_code, 0) << serial.output;
  Result parallel = OptWithThreads(model, dir / "four.py", 4);
  ASSERT_EQ(parallel.exit_code, 0) << parallel.output;

  std::string one = ReadText(dir / "one.py");
  std::string four = ReadText(dir / "four.py");
  // The split happened: 8 stage functions per split function.
  EXPECT_THAT(one, HasSubstr("_stage7("));
  EXPECT_EQ(one, four);  // byte-identical
  ir::IRModule a = script::ParseModule(one, "one.py");
  ir::IRModule b = script::ParseModule(four, "four.py");
  EXPECT_TRUE(analysis::StructuralEqual(a, b));
}

// Stages 1 and 2 both collide with existing members: every thread count reports stage 1's,
// the one a serial loop meets first.
TEST(RewriteThreads, CollisionsInTwoStagesReportTheFirstForEveryThreadCount) {
  auto dir = ScratchDir("rewrite_threads_errors");
  WriteText(dir / "m.py", R"(@I.ir_module
class Module:
    @R.function
    def main_stage2(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return x

    @R.function
    def main_stage1(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return x

    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), packed_params: R.Tuple(R.Tensor((4,), dtype="float32"))) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 3})
        with R.dataflow():
            w: R.Tensor((4,), dtype="float32") = packed_params[0]
            a: R.Tensor((4,), dtype="float32") = R.add(x, w)
            b: R.Tensor((4,), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", a, sinfo_args=(R.Tensor((4,), dtype="float32"),))
            c: R.Tensor((4,), dtype="float32") = R.multiply(b, b)
            d: R.Tensor((4,), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", c, sinfo_args=(R.Tensor((4,), dtype="float32"),))
            gv: R.Tensor((4,), dtype="float32") = R.add(d, d)
            R.output(gv)
        return gv
)");
  Result serial = OptWithThreads(dir / "m.py", dir / "one.py", 1);
  Result parallel = OptWithThreads(dir / "m.py", dir / "four.py", 4);
  EXPECT_EQ(serial.exit_code, 1) << serial.output;
  EXPECT_EQ(parallel.exit_code, 1) << parallel.output;
  EXPECT_THAT(serial.output,
              HasSubstr("error: cannot split 'main': the module already has a member named "
                        "'main_stage1'"));
  EXPECT_THAT(serial.output, Not(HasSubstr("'main_stage2'")));
  EXPECT_EQ(serial.output, parallel.output);
}

}  // namespace
}  // namespace pipesplit::testing_cli
