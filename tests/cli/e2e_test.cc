// End to end: generate the example Llama, split it, run it on worker groups (threads and MPI),
// and compare with the unsplit run bit for bit; faults end every worker with a named error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

#include "pipesplit/runtime/io/safetensors.h"
#include "tests/cli/cli_test_util.h"

namespace pipesplit::testing_cli {
namespace {

using testing::HasSubstr;
namespace fs = std::filesystem;

struct Example {
  fs::path dir;
  std::string Args(const std::string& module) const {
    return (dir / module).string() + " --params " + (dir / "params.safetensors").string() +
           " --inputs " + (dir / "inputs.safetensors").string();
  }
};

Example Generate(const std::string& name, int stages) {
  Example ex{ScratchDir(name)};
  Result gen = Pipesplit(
      "example llama --layers 4 --hidden 32 --heads 4 --ffn 64 --vocab 64 --seq 8 "
      "--stages " +
      std::to_string(stages) + " -o " + ex.dir.string());
  EXPECT_EQ(gen.exit_code, 0) << gen.output;
  Result split =
      Pipesplit("opt " + (ex.dir / "model.py").string() +
                " -p pipeline-parallel-rewrite,verify -o " + (ex.dir / "model.split.py").string());
  EXPECT_EQ(split.exit_code, 0) << split.output;
  return ex;
}

runtime::Tensor Output(const fs::path& file) {
  return runtime::SafetensorsFile::Open(file.string()).Get("output_0");
}

class SplitTest : public testing::TestWithParam<int> {};

TEST_P(SplitTest, VerifySplitIsBitIdentical) {
  int groups = GetParam();
  Example ex = Generate("verify_split_" + std::to_string(groups), groups);
  Result r =
      Pipesplit("verify-split " + ex.Args("model.py") + " --groups " + std::to_string(groups));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("verdict: bit-identical (1 output, max abs diff 0)"));
}

INSTANTIATE_TEST_SUITE_P(Groups, SplitTest, testing::Values(1, 2, 4));

TEST(E2eTest, ThreadsRunOfSplitModuleMatchesUnsplitRun) {
  Example ex = Generate("threads_run", 2);
  Result unsplit =
      Pipesplit("run " + ex.Args("model.py") + " -o " + (ex.dir / "a.safetensors").string());
  ASSERT_EQ(unsplit.exit_code, 0) << unsplit.output;
  Result split = Pipesplit("run " + ex.Args("model.split.py") + " --groups 2 -o " +
                           (ex.dir / "b.safetensors").string());
  ASSERT_EQ(split.exit_code, 0) << split.output;
  EXPECT_THAT(split.output, HasSubstr("worker 1 (group 1): main_stage1"));
  EXPECT_TRUE(
      runtime::BitwiseEqual(Output(ex.dir / "a.safetensors"), Output(ex.dir / "b.safetensors")));
  Result grouped = Pipesplit("run " + ex.Args("model.split.py") + " --groups 2 --group-size 2 -o " +
                             (ex.dir / "c.safetensors").string());
  ASSERT_EQ(grouped.exit_code, 0) << grouped.output;
  EXPECT_THAT(grouped.output, HasSubstr("worker 3 (group 1): main_stage1"));
  EXPECT_TRUE(
      runtime::BitwiseEqual(Output(ex.dir / "a.safetensors"), Output(ex.dir / "c.safetensors")));
}

TEST(E2eTest, MpiRunsMatchUnsplitRun) {
  Example two = Generate("mpi_2", 2);
  Result unsplit =
      Pipesplit("run " + two.Args("model.py") + " -o " + (two.dir / "a.safetensors").string());
  ASSERT_EQ(unsplit.exit_code, 0) << unsplit.output;
  Result mpi2 = Shell(Mpirun(2) + Binary() + " run " + two.Args("model.split.py") +
                      " --transport mpi -o " + (two.dir / "m2.safetensors").string());
  ASSERT_EQ(mpi2.exit_code, 0) << mpi2.output;
  EXPECT_TRUE(
      runtime::BitwiseEqual(Output(two.dir / "a.safetensors"), Output(two.dir / "m2.safetensors")));
  // 4 ranks: 2 groups of 2.
  Result mpi4 = Shell(Mpirun(4) + Binary() + " run " + two.Args("model.split.py") +
                      " --transport mpi --groups 2 -o " + (two.dir / "m4.safetensors").string());
  ASSERT_EQ(mpi4.exit_code, 0) << mpi4.output;
  EXPECT_THAT(mpi4.output, HasSubstr("worker 3 (group 1): main_stage1"));
  EXPECT_TRUE(
      runtime::BitwiseEqual(Output(two.dir / "a.safetensors"), Output(two.dir / "m4.safetensors")));
  // 4 ranks: 4 stages.
  Example four = Generate("mpi_4", 4);
  Result ref4 =
      Pipesplit("run " + four.Args("model.py") + " -o " + (four.dir / "a.safetensors").string());
  ASSERT_EQ(ref4.exit_code, 0) << ref4.output;
  Result stages4 = Shell(Mpirun(4) + Binary() + " run " + four.Args("model.split.py") +
                         " --transport mpi -o " + (four.dir / "m.safetensors").string());
  ASSERT_EQ(stages4.exit_code, 0) << stages4.output;
  EXPECT_TRUE(runtime::BitwiseEqual(Output(four.dir / "a.safetensors"),
                                    Output(four.dir / "m.safetensors")));
}

// A staged module whose second stage waits for a tensor nobody sends.
constexpr const char* kMissingSend = R"(@I.ir_module
class Module:
    @R.function(pure=False)
    def main(input_ids: R.Tensor((1, 8), dtype="int32"), packed_params: R.Object) -> R.Object:
        cls = Module
        gv: R.Object = R.call_builtin_with_ctx("mlc.multi_gpu.DispatchFunctionByGroup", (((cls.s0, input_ids, R.shape([]), packed_params), (cls.s1, R.shape([]), packed_params)),), sinfo_args=(R.Object,))
        return gv

    @R.function(pure=False, private=True)
    def s0(input_ids: R.Tensor((1, 8), dtype="int32"), s: R.Shape([]), packed_params: R.Object) -> R.Tuple(R.Tensor((1, 8), dtype="int32")):
        return (input_ids,)

    @R.function(pure=False, private=True)
    def s1(s: R.Shape([]), packed_params: R.Object) -> R.Tuple(R.Tensor((1, 8), dtype="int32")):
        with R.dataflow():
            y = R.call_dps_packed("runtime.disco.recv_from_prev_group", R.tuple(), out_sinfo=R.Tensor((1, 8), dtype="int32"))
            R.output(y)
        return (y,)
)";

TEST(E2eTest, MissingSendTimesOutOnThreadsAndMpi) {
  Example ex = Generate("missing_send", 2);
  WriteText(ex.dir / "missing.py", kMissingSend);
  auto start = std::chrono::steady_clock::now();
  Result threads = Pipesplit("run " + ex.Args("missing.py") + " --groups 2 --timeout 1 -o " +
                             (ex.dir / "o.safetensors").string());
  EXPECT_EQ(threads.exit_code, 1);
  EXPECT_THAT(threads.output, HasSubstr("error: worker 1 (group 1) failed in function 's1', "
                                        "binding 'y'"));
  EXPECT_THAT(threads.output, HasSubstr("timed out after 1 s waiting for a tensor from worker 0"));
  Result mpi = Shell(Mpirun(2) + Binary() + " run " + ex.Args("missing.py") +
                     " --transport mpi --timeout 1 -o " + (ex.dir / "m.safetensors").string());
  EXPECT_NE(mpi.exit_code, 0);
  EXPECT_THAT(mpi.output, HasSubstr("worker 1 (group 1) failed in function 's1', binding 'y'"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  Result stray = Shell("pgrep -f '[p]ipesplit run .*missing.py'");
  EXPECT_NE(stray.exit_code, 0) << "stray processes: " << stray.output;
}

TEST(E2eTest, WorkerErrorStopsEveryWorkerOnMpi) {
  // Stage 1 reshapes to an impossible shape: worker 1 fails, worker 0 has already sent and
  // finishes; with 4 stages, stages 2 and 3 are waiting and must be stopped.
  Example ex = Generate("worker_error", 4);
  std::string text = ReadText(ex.dir / "model.split.py");
  size_t stage1 = text.find("def main_stage1");
  size_t pos = text.find("R.reshape(", stage1);
  ASSERT_NE(pos, std::string::npos);
  size_t shape = text.find("R.shape([", pos);
  text.replace(shape, 9, "R.shape([7, ");
  WriteText(ex.dir / "broken.py", text);
  auto start = std::chrono::steady_clock::now();
  Result threads =
      Pipesplit("run " + ex.Args("broken.py") + " -o " + (ex.dir / "o.safetensors").string());
  EXPECT_EQ(threads.exit_code, 1);
  EXPECT_THAT(threads.output, HasSubstr("error: worker 1 (group 1) failed in function "
                                        "'main_stage1', binding"));
  Result mpi = Shell(Mpirun(4) + Binary() + " run " + ex.Args("broken.py") +
                     " --transport mpi -o " + (ex.dir / "m.safetensors").string());
  EXPECT_NE(mpi.exit_code, 0);
  EXPECT_THAT(mpi.output, HasSubstr("worker 1 (group 1) failed in function 'main_stage1'"));
  EXPECT_THAT(mpi.output, HasSubstr("worker 2 (group 2) aborted because worker 1 (group 1) failed "
                                    "in function 'main_stage1'"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(E2eTest, ReceivedShapeMismatchIsNamed) {
  Example ex = Generate("recv_mismatch", 2);
  std::string text = ReadText(ex.dir / "model.split.py");
  size_t recv = text.find("recv_from_prev_group");
  size_t sinfo = text.find("out_sinfo=R.Tensor((", recv);
  ASSERT_NE(sinfo, std::string::npos);
  text.replace(sinfo + 20, 1, "2");  // (16, 16) -> (26, 16) or (1, ...) -> (2, ...)
  WriteText(ex.dir / "mismatch.py", text);
  Result r = Pipesplit("run " + ex.Args("mismatch.py") + " --groups 2 -o " +
                       (ex.dir / "o.safetensors").string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("error: worker 1 (group 1) failed in function 'main_stage1'"));
  EXPECT_THAT(r.output, HasSubstr("from worker 0 but the receive declares"));
}

TEST(E2eTest, MissingExtraAndMistypedTensorsAreNamed) {
  Example ex = Generate("bad_files", 2);
  // The inputs file lacks input_ids: use the params file as inputs.
  Result missing = Pipesplit("run " + (ex.dir / "model.py").string() + " --params " +
                             (ex.dir / "params.safetensors").string() + " --inputs " +
                             (ex.dir / "params.safetensors").string() + " -o " +
                             (ex.dir / "o.safetensors").string());
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.output, HasSubstr("no tensor named 'input_ids' for parameter 'input_ids'"));
  // Weights given as inputs: every tensor of the file is extra.
  Result extra = Pipesplit("run " + (ex.dir / "model.py").string() + " --params " +
                           (ex.dir / "inputs.safetensors").string() + " --inputs " +
                           (ex.dir / "inputs.safetensors").string() + " -o " +
                           (ex.dir / "o.safetensors").string());
  EXPECT_EQ(extra.exit_code, 1);
  EXPECT_THAT(extra.output, HasSubstr("'param_0' is missing"));
}

}  // namespace
}  // namespace pipesplit::testing_cli
