// Tensor parallelism inside pipeline groups (issue 34), end to end: `example llama
// --tensor-parallel 2` run with TP alone and PP x TP on threads and MPI (2 and 4 ranks), bit for
// bit against TP alone and within 1e-5 of the unsharded model; mismatched shard counts and
// weights are located errors; a throwing worker or a killed rank inside a group ends every
// worker.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <regex>
#include <utility>

#include "pipesplit/runtime/io/safetensors.h"
#include "tests/cli/cli_test_util.h"

namespace pipesplit::testing_cli {
namespace {

using testing::HasSubstr;
namespace fs = std::filesystem;

constexpr const char* kModel =
    "example llama --layers 2 --hidden 64 --heads 4 --ffn 128 --vocab 64 --seq 8 --stages 2 ";

// The sharded model (tp/), the unsharded one with the same weights (full/) and the sharded one
// split for 2 groups (tp/model.split.py).
struct Models {
  fs::path dir;
  fs::path tp() const { return dir / "tp"; }
  fs::path full() const { return dir / "full"; }
  std::string Args(const std::string& module) const {
    return (tp() / module).string() + " --params " + (tp() / "params.safetensors").string() +
           " --inputs " + (tp() / "inputs.safetensors").string();
  }
};

Models Generate(const std::string& name) {
  Models m{ScratchDir("tp_" + name)};
  Result tp = Pipesplit(std::string(kModel) + "--tensor-parallel 2 -o " + m.tp().string());
  EXPECT_EQ(tp.exit_code, 0) << tp.output;
  Result full = Pipesplit(std::string(kModel) + "-o " + m.full().string());
  EXPECT_EQ(full.exit_code, 0) << full.output;
  Result split =
      Pipesplit("opt " + (m.tp() / "model.py").string() +
                " -p pipeline-parallel-rewrite,verify -o " + (m.tp() / "model.split.py").string());
  EXPECT_EQ(split.exit_code, 0) << split.output;
  return m;
}

runtime::Tensor Output(const fs::path& file) {
  return runtime::SafetensorsFile::Open(file.string()).Get("output_0");
}

TEST(TensorParallelTest, ExampleWritesShardedShapesAndUnshardedWeights) {
  Models m = Generate("example");
  const std::string text = ReadText(m.tp() / "model.py");
  EXPECT_THAT(text, HasSubstr("R.ccl.allreduce(l0_ao, op_type=\"sum\", in_group=True)"));
  EXPECT_THAT(text, HasSubstr("R.ccl.broadcast_from_worker0(input_ids)"));
  EXPECT_THAT(text, HasSubstr("\\\"tensor_parallel_shards\\\": 2"));
  // Two of four heads per shard: q is (1, 8, 2, 16) on each worker.
  EXPECT_THAT(text, HasSubstr("R.Tensor((1, 8, 2, 16), dtype=\"float32\")"));
  EXPECT_EQ(ReadText(m.tp() / "params.safetensors"), ReadText(m.full() / "params.safetensors"));
  Result bad =
      Pipesplit(std::string(kModel) + "--tensor-parallel 3 -o " + (m.dir / "bad").string());
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.output,
              HasSubstr("error: --heads (4) must be a multiple of --tensor-parallel (3)"));
}

TEST(TensorParallelTest, VerifySplitOnThreads) {
  Models m = Generate("verify");
  const std::string unsharded = " --unsharded " + (m.full() / "model.py").string();
  // TP alone (PP = 1) against the unsharded model.
  const fs::path one = m.dir / "one_stage";
  Result gen = Pipesplit(
      "example llama --layers 2 --hidden 64 --heads 4 --ffn 128 --vocab 64 "
      "--seq 8 --stages 1 --tensor-parallel 2 -o " +
      one.string());
  ASSERT_EQ(gen.exit_code, 0) << gen.output;
  Result tp = Pipesplit("verify-split " + (one / "model.py").string() + " --params " +
                        (one / "params.safetensors").string() + " --inputs " +
                        (one / "inputs.safetensors").string() + unsharded);
  EXPECT_EQ(tp.exit_code, 0) << tp.output;
  EXPECT_THAT(tp.output, HasSubstr("split: 1 groups x 2 workers"));
  EXPECT_THAT(tp.output, HasSubstr("verdict: bit-identical"));
  EXPECT_THAT(tp.output, HasSubstr("within the tolerance 1e-05"));
  // PP = 2 x TP = 2 against TP alone (bit for bit) and the unsharded model.
  Result pptp = Pipesplit("verify-split " + m.Args("model.py") + unsharded);
  EXPECT_EQ(pptp.exit_code, 0) << pptp.output;
  EXPECT_THAT(pptp.output, HasSubstr("unsplit: 1 group x 2 workers; split: 2 groups x 2 workers"));
  EXPECT_THAT(pptp.output, HasSubstr("verdict: bit-identical (1 output, max abs diff 0)"));
  EXPECT_THAT(pptp.output, HasSubstr("within the tolerance 1e-05"));
  // A tolerance below the sum-order difference fails the verdict.
  Result strict = Pipesplit("verify-split " + m.Args("model.py") + unsharded + " --tolerance 0");
  EXPECT_EQ(strict.exit_code, 1) << strict.output;
  EXPECT_THAT(strict.output, HasSubstr("BEYOND the tolerance 0"));
}

TEST(TensorParallelTest, MpiRunsMatchThreads) {
  Models m = Generate("mpi");
  Result threads = Pipesplit("run " + m.Args("model.py") + " --groups 1 -o " +
                             (m.dir / "tp.safetensors").string());
  ASSERT_EQ(threads.exit_code, 0) << threads.output;
  Result full = Pipesplit("run " + (m.full() / "model.py").string() + " --params " +
                          (m.tp() / "params.safetensors").string() + " --inputs " +
                          (m.tp() / "inputs.safetensors").string() + " --groups 1 -o " +
                          (m.dir / "full.safetensors").string());
  ASSERT_EQ(full.exit_code, 0) << full.output;
  Result mpi2 = Shell(Mpirun(2) + Binary() + " run --transport mpi " + m.Args("model.py") + " -o " +
                      (m.dir / "mpi2.safetensors").string());
  ASSERT_EQ(mpi2.exit_code, 0) << mpi2.output;
  Result mpi4 = Shell(Mpirun(4) + Binary() + " run --transport mpi " + m.Args("model.split.py") +
                      " -o " + (m.dir / "mpi4.safetensors").string());
  ASSERT_EQ(mpi4.exit_code, 0) << mpi4.output;
  EXPECT_THAT(mpi4.output, HasSubstr("worker 3 (group 1): main_stage1"));
  runtime::Tensor tp = Output(m.dir / "tp.safetensors");
  EXPECT_TRUE(runtime::BitwiseEqual(tp, Output(m.dir / "mpi2.safetensors")));
  EXPECT_TRUE(runtime::BitwiseEqual(tp, Output(m.dir / "mpi4.safetensors")));
  const double diff = runtime::MaxAbsDiff(tp, Output(m.dir / "full.safetensors"));
  EXPECT_LE(diff, 1e-5);
}

TEST(TensorParallelTest, MismatchedShardCountsAreLocatedErrors) {
  Models m = Generate("errors");
  const std::string model = (m.tp() / "model.py").string();
  Result size = Pipesplit("run " + m.Args("model.py") + " --groups 1 --group-size 4 -o " +
                          (m.dir / "o.safetensors").string());
  EXPECT_EQ(size.exit_code, 1);
  EXPECT_THAT(size.output, HasSubstr(model + ":8:16: error: the module is sharded for groups of 2 "
                                             "workers (tensor_parallel_shards 2) but the "
                                             "session's groups have 4 (--group-size 4)"));
  Result mpi = Shell(Mpirun(4) + Binary() + " run --transport mpi --groups 1 " +
                     m.Args("model.py") + " -o " + (m.dir / "o.safetensors").string());
  EXPECT_EQ(mpi.exit_code, 1);
  EXPECT_THAT(mpi.output, HasSubstr("but the session's groups have 4"));
  // Weights of other models: an FFN of 96 is cut into shards of 48, not the module's 64; one of
  // 97 cannot be cut in two.
  Result other = Pipesplit(
      "example llama --layers 2 --hidden 64 --heads 4 --ffn 96 --vocab 64 --seq 8 --stages 2 -o " +
      (m.dir / "other").string());
  Result odd = Pipesplit(
      "example llama --layers 2 --hidden 64 --heads 4 --ffn 97 --vocab 64 --seq 8 --stages 2 -o " +
      (m.dir / "odd").string());
  ASSERT_EQ(odd.exit_code, 0) << odd.output;
  ASSERT_EQ(other.exit_code, 0) << other.output;
  Result weights =
      Pipesplit("run " + model + " --params " + (m.dir / "other" / "params.safetensors").string() +
                " --inputs " + (m.tp() / "inputs.safetensors").string() + " -o " +
                (m.dir / "o.safetensors").string());
  EXPECT_EQ(weights.exit_code, 1);
  EXPECT_THAT(weights.output, HasSubstr("packed_params[9] ('layers.0.w_gate') is float32[64, 48] "
                                        "but 'main' reads it as float32[64, 64]"));
  Result cut =
      Pipesplit("run " + model + " --params " + (m.dir / "odd" / "params.safetensors").string() +
                " --inputs " + (m.tp() / "inputs.safetensors").string() + " -o " +
                (m.dir / "o.safetensors").string());
  EXPECT_EQ(cut.exit_code, 1);
  EXPECT_THAT(cut.output,
              HasSubstr("packed_params[9] ('layers.0.w_gate') is stored as [64, 97] and cannot be "
                        "cut into 2 shards by ShardSingleDim _shard_mlp_gate (dim 1): dim 1 (97) "
                        "is not divisible by 2 shards"));
}

TEST(TensorParallelTest, AThrowingWorkerInAGroupStopsEveryWorker) {
  Models m = Generate("fault");
  Result threads = Shell("env PIPESPLIT_FAULT=throw@1 " + Binary() + " run " +
                         m.Args("model.split.py") + " -o " + (m.dir / "o.safetensors").string());
  EXPECT_EQ(threads.exit_code, 1) << threads.output;
  EXPECT_THAT(threads.output,
              HasSubstr("error: worker 1 (group 0) failed in 'main': injected fault: worker 1 "
                        "throws"));
  Result mpi =
      Shell("env PIPESPLIT_FAULT=throw@3 " + Mpirun(4) + Binary() + " run --transport mpi " +
            m.Args("model.split.py") + " -o " + (m.dir / "o.safetensors").string());
  EXPECT_EQ(mpi.exit_code, 1) << mpi.output;
  EXPECT_THAT(mpi.output, HasSubstr("worker 3 (group 1) failed in 'main': injected fault"));
  EXPECT_FALSE(fs::exists(m.dir / "o.safetensors"));
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// PP 2 x TP 2 on 4 MPI ranks, one rank killed: the second worker of group 0 (rank 1) at its
// first send (inside the first allreduce of its group), and the second worker of group 1 (rank
// 3) at its second (the allreduce after its layer's down projection). As in fault_test.cc's
// ARankKilledMidRunStopsTheOthers: either a surviving rank names the lost one (every rank
// prints "worker 1 (MPI rank 1, pid ...) is gone") or mpirun reports the signal and ends the
// others first; the job's status is non-zero within 5 s of the fault, no rank is left and no
// output written.
TEST(TensorParallelTest, ARankKilledInsideAGroupStopsEveryRank) {
  Models m = Generate("kill");
  for (const auto& [worker, send] : {std::pair{1, 0}, std::pair{3, 1}}) {
    const std::string fault = std::to_string(worker) + ":" + std::to_string(send);
    Result r = Shell("env PIPESPLIT_FAULT=kill@" + fault + " " + Mpirun(4) + Binary() +
                         " run --transport mpi " + m.Args("model.split.py") + " -o " +
                         (m.dir / "o.safetensors").string(),
                     60);
    const int64_t end = NowMs();
    EXPECT_NE(r.exit_code, 0) << r.output;
    const std::string w = std::to_string(worker);
    EXPECT_THAT(r.output, HasSubstr("fault injected: kill on worker " + w));
    EXPECT_THAT(r.output,
                testing::AnyOf(testing::ContainsRegex("rank " + w + " .*exited on signal 9"),
                               HasSubstr("worker " + w + " (MPI rank " + w + ", pid ")))
        << r.output;
    std::smatch at;
    ASSERT_TRUE(std::regex_search(
        r.output, at, std::regex("fault injected: kill on worker " + w + " at (\\d+)")));
    const double seconds = static_cast<double>(end - std::stoll(at[1])) / 1000.0;
    std::printf("[fault] kill@%s, PP 2 x TP 2 on 4 ranks: exit %d, %.3f s from the fault\n",
                fault.c_str(), r.exit_code, seconds);
    EXPECT_LT(seconds, 5.0);
    Result stray = Shell("pgrep -f '[p]ipesplit run .*" + m.dir.string() + "'");
    EXPECT_NE(stray.exit_code, 0) << "processes left behind: " << stray.output;
    EXPECT_FALSE(fs::exists(m.dir / "o.safetensors"));
  }
}

TEST(TensorParallelTest, GreedyGenerationEqualsTheUnshardedModel) {
  const fs::path dir = ScratchDir("tp_generate");
  const std::string serving =
      "example llama --serving --layers 2 --hidden 64 --heads 4 --ffn 128 --vocab 64 --stages 2 ";
  ASSERT_EQ(Pipesplit(serving + "--tensor-parallel 2 -o " + (dir / "tp").string()).exit_code, 0);
  ASSERT_EQ(Pipesplit(serving + "-o " + (dir / "full").string()).exit_code, 0);
  const std::string args = (dir / "tp" / "model.py").string() + " --params " +
                           (dir / "tp" / "params.safetensors").string() + " --prompts " +
                           (dir / "tp" / "prompts.json").string() +
                           " --max-new-tokens 8 --verify --unsharded " +
                           (dir / "full" / "model.py").string();
  // PP = 2 x TP = 2 on threads, two batches in flight.
  Result threads = Pipesplit("generate " + args + " --batches-in-flight 2 -o " +
                             (dir / "threads.json").string());
  EXPECT_EQ(threads.exit_code, 0) << threads.output;
  EXPECT_THAT(threads.output, HasSubstr("verified: 4 requests on 2 groups x 2 workers give the "
                                        "unsplit token ids and logits bit for bit"));
  EXPECT_THAT(threads.output, HasSubstr("the same token ids, logits max abs diff"));
  EXPECT_THAT(threads.output, HasSubstr("within the tolerance 1e-05"));
  // The same on 4 MPI ranks.
  Result mpi = Shell(Mpirun(4) + Binary() + " generate --transport mpi " + args + " -o " +
                     (dir / "mpi.json").string());
  EXPECT_EQ(mpi.exit_code, 0) << mpi.output;
  EXPECT_THAT(mpi.output, HasSubstr("within the tolerance 1e-05"));
  auto tokens = [](const fs::path& file) {
    std::vector<nlohmann::json> out;
    const nlohmann::json doc = nlohmann::json::parse(ReadText(file));
    for (const nlohmann::json& r : doc.at("requests")) {
      out.push_back(r["tokens"]);
    }
    return out;
  };
  EXPECT_EQ(tokens(dir / "threads.json"), tokens(dir / "mpi.json"));
  EXPECT_EQ(tokens(dir / "threads.json").size(), 4u);
}

}  // namespace
}  // namespace pipesplit::testing_cli
