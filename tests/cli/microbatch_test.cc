// End to end with micro-batches: `run --microbatches` on threads and on 2 MPI ranks gives
// every micro-batch the bytes of its own unsplit run; verify-split agrees; the trace, the
// timeline and the summary are written; input naming mistakes are one-line errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "pipesplit/runtime/io/safetensors.h"
#include "tests/cli/cli_test_util.h"

namespace pipesplit::testing_cli {
namespace {

using testing::HasSubstr;
namespace fs = std::filesystem;

constexpr int kMicrobatches = 3;

// The tensor with its elements rotated by `by` (token ids stay valid ids).
runtime::Tensor Rotate(const runtime::Tensor& t, int64_t by) {
  runtime::TensorBuilder b(t.dtype(), t.shape());
  const int64_t n = t.numel(), size = t.dtype().bytes();
  const char* src = static_cast<const char*>(t.raw_data());
  char* dst = static_cast<char*>(b.raw_data());
  for (int64_t i = 0; i < n; ++i) std::memcpy(dst + ((i + by) % n) * size, src + i * size, size);
  return std::move(b).Publish();
}

struct MicrobatchExample {
  fs::path dir;
  std::string Params() const { return " --params " + (dir / "params.safetensors").string(); }
};

// The example Llama in 2 stages; mb.safetensors holds <param>.<k>, alone_<k>.safetensors
// micro-batch k alone under the plain names.
MicrobatchExample Generate(const std::string& name) {
  MicrobatchExample ex{ScratchDir(name)};
  Result gen = Pipesplit(
      "example llama --layers 2 --hidden 32 --heads 4 --ffn 64 --vocab 64 --seq 8 --stages 2 -o " +
      ex.dir.string());
  EXPECT_EQ(gen.exit_code, 0) << gen.output;
  Result split =
      Pipesplit("opt " + (ex.dir / "model.py").string() +
                " -p pipeline-parallel-rewrite,verify -o " + (ex.dir / "model.split.py").string());
  EXPECT_EQ(split.exit_code, 0) << split.output;
  auto inputs = runtime::SafetensorsFile::Open((ex.dir / "inputs.safetensors").string()).GetAll();
  std::vector<runtime::NamedTensor> all;
  for (int k = 0; k < kMicrobatches; ++k) {
    std::vector<runtime::NamedTensor> alone;
    for (auto& [param, t] : inputs) {
      alone.emplace_back(param, Rotate(t, k));
      all.emplace_back(param + "." + std::to_string(k), Rotate(t, k));
    }
    runtime::WriteSafetensors((ex.dir / ("alone_" + std::to_string(k) + ".safetensors")).string(),
                              alone);
  }
  runtime::WriteSafetensors((ex.dir / "mb.safetensors").string(), all);
  return ex;
}

// Runs every micro-batch alone on the unsplit module and compares with output_0.<k> of `file`.
void ExpectEachMatchesAloneUnsplit(const MicrobatchExample& ex, const fs::path& file) {
  auto got = runtime::SafetensorsFile::Open(file.string());
  for (int k = 0; k < kMicrobatches; ++k) {
    fs::path alone_out = ex.dir / ("alone_out_" + std::to_string(k) + ".safetensors");
    Result alone = Pipesplit("run " + (ex.dir / "model.py").string() + ex.Params() + " --inputs " +
                             (ex.dir / ("alone_" + std::to_string(k) + ".safetensors")).string() +
                             " -o " + alone_out.string());
    ASSERT_EQ(alone.exit_code, 0) << alone.output;
    runtime::Tensor expected = runtime::SafetensorsFile::Open(alone_out.string()).Get("output_0");
    runtime::Tensor actual = got.Get("output_0." + std::to_string(k));
    EXPECT_TRUE(runtime::BitwiseEqual(expected, actual)) << file << " micro-batch " << k;
    if (k > 0) {
      EXPECT_FALSE(runtime::BitwiseEqual(actual, got.Get("output_0.0")));
    }
  }
}

TEST(MicrobatchE2eTest, ThreadsAndMpiMatchEachMicrobatchAloneUnsplit) {
  MicrobatchExample ex = Generate("microbatch_run");
  const std::string common = "run " + (ex.dir / "model.split.py").string() + ex.Params() +
                             " --inputs " + (ex.dir / "mb.safetensors").string() +
                             " --microbatches " + std::to_string(kMicrobatches);
  Result threads = Pipesplit(
      common + " --max-in-flight 1 -o " + (ex.dir / "t.safetensors").string() + " --trace " +
      (ex.dir / "t.json").string() + " --timeline " + (ex.dir / "t.svg").string());
  ASSERT_EQ(threads.exit_code, 0) << threads.output;
  EXPECT_THAT(threads.output, HasSubstr("pipeline: 2 groups x 3 micro-batches in "));
  EXPECT_THAT(threads.output, HasSubstr("utilization group 0 "));
  ExpectEachMatchesAloneUnsplit(ex, ex.dir / "t.safetensors");
  nlohmann::json trace = nlohmann::json::parse(ReadText(ex.dir / "t.json"));
  size_t computes = 0;
  for (const auto& e : trace.at("traceEvents")) computes += e.value("cat", "") == "compute";
  EXPECT_EQ(computes, 2u * kMicrobatches);
  EXPECT_EQ(ReadText(ex.dir / "t.svg").rfind("<svg", 0), 0u);

  Result mpi =
      Shell(Mpirun(2) + Binary() + " " + common + " --transport mpi -o " +
            (ex.dir / "m.safetensors").string() + " --trace " + (ex.dir / "m.json").string());
  ASSERT_EQ(mpi.exit_code, 0) << mpi.output;
  EXPECT_THAT(mpi.output, HasSubstr("pipeline: 2 groups x 3 micro-batches in "));
  ExpectEachMatchesAloneUnsplit(ex, ex.dir / "m.safetensors");
  nlohmann::json mpi_trace = nlohmann::json::parse(ReadText(ex.dir / "m.json"));
  std::set<std::pair<int, int>> mpi_computes;
  for (const auto& e : mpi_trace.at("traceEvents")) {
    if (e.value("cat", "") == "compute") {
      mpi_computes.insert({e.at("tid").get<int>(), e.at("args").at("microbatch").get<int>()});
    }
  }
  EXPECT_EQ(mpi_computes.size(), 2u * kMicrobatches);
}

TEST(MicrobatchE2eTest, VerifySplitComparesEveryMicrobatch) {
  MicrobatchExample ex = Generate("microbatch_verify");
  Result r =
      Pipesplit("verify-split " + (ex.dir / "model.py").string() + ex.Params() + " --inputs " +
                (ex.dir / "mb.safetensors").string() + " --microbatches 3 --threads-per-group 1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("micro-batches: 3, each compared with its own unsplit run"));
  EXPECT_THAT(r.output, HasSubstr("verdict: bit-identical (3 outputs, max abs diff 0)"));
}

TEST(MicrobatchE2eTest, MistakesAreOneLineErrors) {
  MicrobatchExample ex = Generate("microbatch_errors");
  const std::string split = "run " + (ex.dir / "model.split.py").string() + ex.Params();
  // Four micro-batches asked, three in the file.
  Result missing = Pipesplit(split + " --inputs " + (ex.dir / "mb.safetensors").string() +
                             " --microbatches 4 -o " + (ex.dir / "x.safetensors").string());
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.output, HasSubstr("no tensor named 'input_ids.3' for parameter 'input_ids' "
                                        "of 'main' in micro-batch 3"));
  // Plain names without --microbatches... and suffixed ones are not parameters then.
  Result plain = Pipesplit(split + " --inputs " + (ex.dir / "mb.safetensors").string() + " -o " +
                           (ex.dir / "x.safetensors").string());
  EXPECT_EQ(plain.exit_code, 1);
  EXPECT_THAT(plain.output, HasSubstr("no tensor named 'input_ids'"));
  Result trace = Pipesplit(split + " --inputs " + (ex.dir / "mb.safetensors").string() +
                           " --microbatches 3 --trace " + (ex.dir / "no/such/dir/x.json").string() +
                           " -o " + (ex.dir / "x.safetensors").string());
  EXPECT_EQ(trace.exit_code, 1);
  EXPECT_THAT(trace.output, HasSubstr("cannot write " + (ex.dir / "no/such/dir/x.json").string()));
}

}  // namespace
}  // namespace pipesplit::testing_cli
