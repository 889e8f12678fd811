// End to end on the lowered example (`example llama-lowered`, every op an R.call_tir): its
// output matches the high-level example's with the same weights, and its split runs on 2 and
// 3 thread groups and on 2 MPI ranks are bit-identical to its unsplit run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "pipesplit/runtime/io/safetensors.h"
#include "tests/cli/cli_test_util.h"

namespace pipesplit::testing_cli {
namespace {

using testing::HasSubstr;
using testing::Not;
namespace fs = std::filesystem;

constexpr const char* kTiny = "--layers 3 --hidden 32 --heads 4 --ffn 64 --vocab 64 --seq 8";

// One kernel cache for every test here (the lowered modules share their kernels).
std::string KernelCache() {
  return " --kernel-cache " + std::string(PIPESPLIT_BINARY_DIR) + "/tests/cli/lowered_kernels";
}

fs::path Generate(const std::string& kind, const std::string& name, int stages) {
  fs::path dir = ScratchDir(name);
  Result gen = Pipesplit("example " + kind + " " + kTiny + " --stages " + std::to_string(stages) +
                         " -o " + dir.string());
  EXPECT_EQ(gen.exit_code, 0) << gen.output;
  return dir;
}

std::string Args(const fs::path& dir, const std::string& module = "model.py") {
  return (dir / module).string() + " --params " + (dir / "params.safetensors").string() +
         " --inputs " + (dir / "inputs.safetensors").string() + KernelCache();
}

std::vector<double> Output(const fs::path& file) {
  return runtime::ToDoubleVector(runtime::SafetensorsFile::Open(file.string()).Get("output_0"));
}

TEST(LoweredE2eTest, ModelIsLoweredAndMatchesTheHighLevelExample) {
  fs::path low = Generate("llama-lowered", "lowered_vs_high_low", 1);
  fs::path high = Generate("llama", "lowered_vs_high_high", 1);
  std::string text = ReadText(low / "model.py");
  EXPECT_THAT(text, HasSubstr("@T.prim_func"));
  EXPECT_THAT(text, HasSubstr("R.call_tir(cls.matmul"));
  for (const char* op : {"R.matmul(", "R.nn.rms_norm(", "R.take(", "R.nn.softmax(", "R.add("}) {
    EXPECT_THAT(text, Not(HasSubstr(op)));
  }
  // Same weights and inputs.
  EXPECT_EQ(ReadText(low / "params.safetensors"), ReadText(high / "params.safetensors"));
  EXPECT_EQ(ReadText(low / "inputs.safetensors"), ReadText(high / "inputs.safetensors"));
  Result a =
      Pipesplit("run " + Args(low) + " --check-bounds -o " + (low / "out.safetensors").string());
  ASSERT_EQ(a.exit_code, 0) << a.output;
  Result b = Pipesplit("run " + Args(high) + " -o " + (high / "out.safetensors").string());
  ASSERT_EQ(b.exit_code, 0) << b.output;
  std::vector<double> got = Output(low / "out.safetensors");
  std::vector<double> want = Output(high / "out.safetensors");
  ASSERT_EQ(got.size(), want.size());
  double diff = 0, norm = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    diff += (got[i] - want[i]) * (got[i] - want[i]);
    norm += want[i] * want[i];
  }
  ASSERT_GT(norm, 0);
  EXPECT_LE(std::sqrt(diff / norm), 1e-5);
}

// The kernels written in TVM's 2026 spelling (T.sblock) run bit-identical to the T.block ones,
// and the split module too.
TEST(LoweredE2eTest, SBlockKernelsRunBitIdenticalToBlockKernels) {
  fs::path dir = Generate("llama-lowered", "lowered_sblock_block", 2);
  fs::path sdir = ScratchDir("lowered_sblock_sblock");
  Result gen = Pipesplit("example llama-lowered " + std::string(kTiny) +
                         " --stages 2 --tir-syntax sblock -o " + sdir.string());
  ASSERT_EQ(gen.exit_code, 0) << gen.output;
  const std::string text = ReadText(sdir / "model.py");
  EXPECT_THAT(text, HasSubstr("with T.sblock("));
  EXPECT_THAT(text, HasSubstr("@T.prim_func(private=True, s_tir=True)"));
  EXPECT_THAT(text, Not(HasSubstr("with T.block(")));
  EXPECT_THAT(ReadText(dir / "model.py"), HasSubstr("with T.block("));
  Result a = Pipesplit("run " + Args(dir) + " -o " + (dir / "out.safetensors").string());
  ASSERT_EQ(a.exit_code, 0) << a.output;
  Result b = Pipesplit("run " + Args(sdir) + " -o " + (sdir / "out.safetensors").string());
  ASSERT_EQ(b.exit_code, 0) << b.output;
  EXPECT_EQ(ReadText(dir / "out.safetensors"), ReadText(sdir / "out.safetensors"));
  Result r = Pipesplit("verify-split " + Args(sdir) + " --groups 2");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("verdict: bit-identical (1 output, max abs diff 0)"));
}

class LoweredSplitTest : public testing::TestWithParam<int> {};

TEST_P(LoweredSplitTest, VerifySplitIsBitIdentical) {
  int groups = GetParam();
  fs::path dir = Generate("llama-lowered", "lowered_split_" + std::to_string(groups), groups);
  Result r = Pipesplit("verify-split " + Args(dir) + " --groups " + std::to_string(groups));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("verdict: bit-identical (1 output, max abs diff 0)"));
}

INSTANTIATE_TEST_SUITE_P(Groups, LoweredSplitTest, testing::Values(2, 3));

TEST(LoweredE2eTest, MpiRunOfSplitModuleMatchesUnsplitRun) {
  fs::path dir = Generate("llama-lowered", "lowered_mpi", 2);
  Result split =
      Pipesplit("opt " + (dir / "model.py").string() + " -p pipeline-parallel-rewrite,verify -o " +
                (dir / "model.split.py").string());
  ASSERT_EQ(split.exit_code, 0) << split.output;
  Result unsplit = Pipesplit("run " + Args(dir) + " -o " + (dir / "a.safetensors").string());
  ASSERT_EQ(unsplit.exit_code, 0) << unsplit.output;
  Result mpi = Shell(Mpirun(2) + Binary() + " run " + Args(dir, "model.split.py") +
                     " --transport mpi -o " + (dir / "m.safetensors").string());
  ASSERT_EQ(mpi.exit_code, 0) << mpi.output;
  EXPECT_THAT(mpi.output, HasSubstr("worker 1 (group 1): main_stage1"));
  EXPECT_EQ(ReadText(dir / "a.safetensors"), ReadText(dir / "m.safetensors"));
}

TEST(LoweredE2eTest, ModuleOnlyWritesNoWeights) {
  fs::path dir = ScratchDir("lowered_module_only");
  Result r = Pipesplit(std::string("example llama-lowered ") + kTiny + " --module-only -o " +
                       dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir / "model.py"));
  EXPECT_FALSE(fs::exists(dir / "params.safetensors"));
  EXPECT_FALSE(fs::exists(dir / "inputs.safetensors"));
  Result check = Pipesplit("check " + (dir / "model.py").string());
  EXPECT_EQ(check.exit_code, 0) << check.output;
}

TEST(LoweredE2eTest, ImpossibleConfigurationIsAnError) {
  fs::path dir = ScratchDir("lowered_bad");
  Result r = Pipesplit("example llama-lowered --layers 2 --stages 3 -o " + dir.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("error: --stages (3) must not exceed --layers (2)"));
}

}  // namespace
}  // namespace pipesplit::testing_cli
