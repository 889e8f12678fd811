// Faults in multi-worker runs (issue 10), injected with PIPESPLIT_FAULT (see
// src/runtime/dist/transport_fault.h) or with broken files: each must end every process with a
// named error and exit status 1 within 5 s of the fault, leave no process behind and write no
// output file. Each test prints the time from the fault (or from the start, for file faults) to the
// exit of the last process.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <regex>

#include "pipesplit/runtime/io/safetensors.h"
#include "tests/cli/cli_test_util.h"

namespace pipesplit::testing_cli {
namespace {

using testing::HasSubstr;
namespace fs = std::filesystem;

constexpr double kBoundSeconds = 5;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A scratch directory with the example Llama (4 layers), split into `stages` stages.
struct Example {
  fs::path dir;
  std::string Args(const std::string& module, const std::string& params = "params.safetensors",
                   const std::string& inputs = "inputs.safetensors") const {
    return (dir / module).string() + " --params " + (dir / params).string() + " --inputs " +
           (dir / inputs).string() + " -o " + (dir / "out.safetensors").string();
  }
};

Example Generate(const std::string& name, int stages) {
  Example ex{ScratchDir("fault_" + name)};
  Result gen = Pipesplit(
      "example llama --layers 4 --hidden 32 --heads 4 --ffn 64 --vocab 64 --seq 8 --stages " +
      std::to_string(stages) + " -o " + ex.dir.string());
  EXPECT_EQ(gen.exit_code, 0) << gen.output;
  Result split =
      Pipesplit("opt " + (ex.dir / "model.py").string() +
                " -p pipeline-parallel-rewrite,verify -o " + (ex.dir / "model.split.py").string());
  EXPECT_EQ(split.exit_code, 0) << split.output;
  return ex;
}

// Runs `command` (in `ex`) and checks the common promises: exit status 1, `message` printed, no
// process of the run left, no output (not even a partial or temporary one). Returns the seconds
// from the fault announcement (else from the start) to the exit.
double RunFault(const Example& ex, const std::string& command, const std::string& message,
                const std::string& label) {
  const int64_t start = NowMs();
  Result r = Shell(command, 60);
  const int64_t end = NowMs();
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr(message));
  std::smatch m;
  int64_t from = start;
  if (std::regex_search(r.output, m, std::regex("fault injected: \\w+ on worker \\d+ at (\\d+)"))) {
    from = std::stoll(m[1]);
  }
  double seconds = static_cast<double>(end - from) / 1000.0;
  std::printf("[fault] %s: exit %d, %.3f s from the %s to the exit\n", label.c_str(), r.exit_code,
              seconds, from == start ? "start" : "fault");
  EXPECT_LT(seconds, kBoundSeconds) << r.output;
  Result stray = Shell("pgrep -f '[p]ipesplit run .*" + ex.dir.string() + "'");
  EXPECT_NE(stray.exit_code, 0) << "processes left behind: " << stray.output;
  for (const auto& entry : fs::directory_iterator(ex.dir)) {
    EXPECT_EQ(entry.path().filename().string().rfind("out.safetensors", 0), std::string::npos)
        << "output written: " << entry.path();
  }
  return seconds;
}

std::string Fault(const std::string& spec) { return "env PIPESPLIT_FAULT=" + spec + " "; }

TEST(FaultTest, AWorkerThatThrowsStopsEveryWorker) {
  Example ex = Generate("throw", 2);
  RunFault(ex, Fault("throw@0") + Binary() + " run " + ex.Args("model.split.py"),
           "error: worker 0 (group 0) failed in 'main': injected fault: worker 0 throws",
           "throw, threads");
  RunFault(
      ex,
      Fault("throw@0") + Mpirun(2) + Binary() + " run --transport mpi " + ex.Args("model.split.py"),
      "worker 0 (group 0) failed in 'main': injected fault: worker 0 throws", "throw, mpi");
}

TEST(FaultTest, AShapeMismatchedSendIsNamed) {
  Example ex = Generate("shape", 2);
  const std::string message = "from worker 0 but the receive declares float32[1, 8, 32]";
  RunFault(ex, Fault("shape@0") + Binary() + " run " + ex.Args("model.split.py"), message,
           "shape, threads");
  RunFault(
      ex,
      Fault("shape@0") + Mpirun(2) + Binary() + " run --transport mpi " + ex.Args("model.split.py"),
      message, "shape, mpi");
}

TEST(FaultTest, AGarbledMessageIsNamed) {
  Example ex = Generate("garble", 2);
  RunFault(ex,
           Fault("garble@0") + Mpirun(2) + Binary() + " run --transport mpi " +
               ex.Args("model.split.py"),
           "worker 1 (group 1) failed in function 'main_stage1'", "garble, mpi");
  Result r = Shell(Fault("garble@0") + Mpirun(2) + Binary() + " run --transport mpi " +
                   ex.Args("model.split.py"));
  EXPECT_THAT(r.output, HasSubstr("malformed tensor header from worker 0"));
}

// Stage 0 sends its input twice; stage 1 receives both and adds them.
constexpr const char* kTwoSends = R"(@I.ir_module
class Module:
    @R.function(pure=False)
    def main(input_ids: R.Tensor((1, 8), dtype="int32"), packed_params: R.Object) -> R.Object:
        cls = Module
        gv: R.Object = R.call_builtin_with_ctx("mlc.multi_gpu.DispatchFunctionByGroup", (((cls.s0, input_ids, R.shape([]), packed_params), (cls.s1, R.shape([]), packed_params)),), sinfo_args=(R.Object,))
        return gv

    @R.function(pure=False, private=True)
    def s0(input_ids: R.Tensor((1, 8), dtype="int32"), s: R.Shape([]), packed_params: R.Object) -> R.Tuple(R.Tensor((1, 8), dtype="int32")):
        a: R.Object = R.call_packed("runtime.disco.send_to_next_group", input_ids)
        b: R.Object = R.call_packed("runtime.disco.send_to_next_group", input_ids)
        return (input_ids,)

    @R.function(pure=False, private=True)
    def s1(s: R.Shape([]), packed_params: R.Object) -> R.Tuple(R.Tensor((1, 8), dtype="int32")):
        with R.dataflow():
            y = R.call_dps_packed("runtime.disco.recv_from_prev_group", R.tuple(), out_sinfo=R.Tensor((1, 8), dtype="int32"))
            z = R.call_dps_packed("runtime.disco.recv_from_prev_group", R.tuple(), out_sinfo=R.Tensor((1, 8), dtype="int32"))
            w: R.Tensor((1, 8), dtype="int32") = R.add(y, z)
            R.output(w)
        return (w,)
)";

TEST(FaultTest, DuplicatedAndMissingMessagesAreNamed) {
  Example ex = Generate("messages", 2);
  WriteText(ex.dir / "two.py", kTwoSends);
  const std::string run = Mpirun(2) + Binary() + " run --transport mpi --timeout 1 ";
  // Without a fault the module runs.
  Result ok = Shell(run + ex.Args("two.py"));
  ASSERT_EQ(ok.exit_code, 0) << ok.output;
  fs::remove(ex.dir / "out.safetensors");
  RunFault(ex, Fault("duplicate@0:0") + run + ex.Args("two.py"),
           "tensor #0 from worker 0 arrived twice (a duplicated message)", "duplicate, mpi");
  RunFault(ex, Fault("drop@0:0") + run + ex.Args("two.py"),
           "tensor #0 from worker 0 never arrived (a lost message): tensor #1 came instead",
           "drop first, mpi");
  // The last message of the stage lost: the receive either times out (--timeout 1) or, when
  // worker 0's end-of-run trace message (every group's first rank sends its timeline slices to
  // the last group) comes first, sees that message in its place.
  RunFault(ex, Fault("drop@0:1") + run + ex.Args("two.py"), "from worker 0", "drop last, mpi");
  Result last = Shell(Fault("drop@0:1") + run + ex.Args("two.py"), 60);
  EXPECT_THAT(last.output,
              testing::AnyOf(HasSubstr("timed out after 1 s waiting for a tensor from worker 0"),
                             HasSubstr("tensor #1 from worker 0 never arrived (a lost message)")));
}

TEST(FaultTest, ARankKilledMidRunStopsTheOthers) {
  // 4 stages on 4 ranks: rank 1 has received from rank 0 and dies before it sends; ranks 2 and
  // 3 are waiting. Either rank 2 notices that the rank it waits for is gone (and names it), or
  // mpirun notices the killed rank first and ends the others; whichever comes first. The killed
  // rank cannot exit 1 itself: mpirun's status is checked to be non-zero.
  Example ex = Generate("kill", 4);
  const int64_t start = NowMs();
  Result r = Shell(
      Fault("kill@1") + Mpirun(4) + Binary() + " run --transport mpi " + ex.Args("model.split.py"),
      60);
  const int64_t end = NowMs();
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("fault injected: kill on worker 1"));
  EXPECT_THAT(r.output, testing::AnyOf(testing::ContainsRegex("rank 1 .*exited on signal 9"),
                                       HasSubstr("worker 1 (MPI rank 1, pid ")))
      << r.output;
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(r.output, m, std::regex("fault injected: kill on worker 1 at (\\d+)")));
  double seconds = static_cast<double>(end - std::stoll(m[1])) / 1000.0;
  std::printf("[fault] kill, mpi: exit %d, %.3f s from the fault to the exit (%.3f s in all)\n",
              r.exit_code, seconds, static_cast<double>(end - start) / 1000.0);
  EXPECT_LT(seconds, kBoundSeconds);
  Result stray = Shell("pgrep -f '[p]ipesplit run .*" + ex.dir.string() + "'");
  EXPECT_NE(stray.exit_code, 0) << "processes left behind: " << stray.output;
  EXPECT_FALSE(fs::exists(ex.dir / "out.safetensors"));
}

// A copy of the example's params with packed_params[0] ('embed') replaced by a tensor of another
// shape.
void WriteWrongShapeParams(const Example& ex) {
  auto file = runtime::SafetensorsFile::Open((ex.dir / "params.safetensors").string());
  std::vector<runtime::NamedTensor> tensors = file.GetAll();
  for (auto& [name, tensor] : tensors) {
    if (name == "embed") {
      tensor = runtime::MakeTensor(tensor.dtype(), {3}, {1, 2, 3});
    }
  }
  runtime::WriteSafetensors((ex.dir / "wrong.safetensors").string(), tensors, file.metadata());
}

TEST(FaultTest, BrokenParamsAndInputsAreNamed) {
  Example ex = Generate("files", 2);
  WriteWrongShapeParams(ex);
  std::string params = ReadText(ex.dir / "params.safetensors");
  WriteText(ex.dir / "truncated.safetensors", params.substr(0, params.size() / 2));
  const std::string threads = Binary() + " run ";
  const std::string mpi = Mpirun(2) + Binary() + " run --transport mpi ";
  for (const std::string& how : {threads, mpi}) {
    const std::string label = how == threads ? ", threads" : ", mpi";
    RunFault(
        ex, how + ex.Args("model.split.py", "wrong.safetensors"),
        "packed_params[0] ('embed') is float32[3] but 'main_stage0' reads it as float32[64, 32]",
        "wrong-shape params" + label);
    RunFault(ex, how + ex.Args("model.split.py", "truncated.safetensors"),
             "truncated.safetensors:", "truncated params" + label);
    RunFault(ex, how + ex.Args("model.split.py", "params.safetensors", "params.safetensors"),
             "no tensor named 'input_ids' for parameter 'input_ids'", "missing input" + label);
  }
}

}  // namespace
}  // namespace pipesplit::testing_cli
