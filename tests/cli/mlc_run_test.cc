// End to end: MLC-LLM's own CPU modules of the 2026 corpus (../shared/corpus/mlc-llm-2026) run
// by `pipesplit generate` on the weights of their MLC folder, greedy, 16 tokens for each prompt
// of reference/greedy.json, compared with what TVM computed from the same module and weights
// (reference/greedy.json's tokens, reference/logits.npy). Skipped without the corpus. The
// kernels of each module are compiled once per test binary (a kernel cache of its own).
#include <string>

#include "tests/cli/mlc_run_util.h"

namespace pipesplit::testing_cli {
namespace {

// A one-stage phase 4 dump cut in `stages` stages by pipesplit alone:
// `opt -p "auto-pipeline-stages{stages=S}"` (boundaries between transformer layers in every
// function MLC marks, the KV cache's layer partition set); `generate` splits it and, with
// --verify, runs it unsplit too. Written to `path`.
void WriteSplit(const fs::path& dump, int stages, const fs::path& path) {
  const Result r = Pipesplit("opt " + dump.string() + " -p \"auto-pipeline-stages{stages=" +
                             std::to_string(stages) + "}\" -o " + path.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::string partition = "R.shape([0";
  for (int g = 1; g <= stages; ++g) partition += ", " + std::to_string(4 * g / stages);
  EXPECT_NE(ReadText(path).find(partition + "])"), std::string::npos) << partition;
}

// Phase 4 (dataflow, call_tir) of the one-stage q0f32 module on one group: embed, then
// batch_prefill / batch_decode (one request a batch computes what TVM's prefill / decode
// compute, up to summation order), the KV cache created by create_tir_paged_kv_cache. The
// dump has no _metadata: the weights bind by the names of phase 5's.
TEST_F(MlcRunTest, Q0f32Phase4OneGroup) {
  SKIP_WITHOUT_CORPUS();
  const fs::path pp1 = Corpus2026() / "llama-q0f32/cpu-pp1";
  GenerateAndCompare("q0f32_p4", "llama-q0f32", "cpu-pp1/debug-phase4.py",
                     "--param-names " + (pp1 / "debug-phase5.py").string(), {});
}

// Phase 5 (memory planned: R.memory.alloc_storage / alloc_tensor, kernels called
// destination-passing, R.call_packed builtins writing into their last argument, _metadata
// naming the weights) of the same module on one group.
TEST_F(MlcRunTest, Q0f32Phase5OneGroup) {
  SKIP_WITHOUT_CORPUS();
  GenerateAndCompare("q0f32_p5", "llama-q0f32", "cpu-pp1/debug-phase5.py", "", {});
}

// MLC's own split of the q0f32 model in 2 stages (cpu-pp2 phase 5: its pure dispatcher, stage
// functions that send and receive into planned storage, weights read through
// vm.builtin.tuple_getitem, the KV cache's layer partition [0, 2, 4]) on 2 groups, threads and
// MPI: TVM's tokens, and the logits of the one-stage module (phase 5) bit for bit.
TEST_F(MlcRunTest, Q0f32MlcSplitPp2Phase5TwoGroups) {
  SKIP_WITHOUT_CORPUS();
  GenerateAndCompare("q0f32_pp1_p5_ref", "llama-q0f32", "cpu-pp1/debug-phase5.py", "", {});
  GenerateAndCompare("q0f32_pp2_p5", "llama-q0f32", "cpu-pp2/debug-phase5.py", "--groups 2", {});
  const std::string unsplit = ReadText(LogitsPath("q0f32_pp1_p5_ref"));
  EXPECT_FALSE(unsplit.empty());
  EXPECT_TRUE(ReadText(LogitsPath("q0f32_pp2_p5")) == unsplit);
  GenerateAndCompare("q0f32_pp2_p5_mpi", "llama-q0f32", "cpu-pp2/debug-phase5.py",
                     "--transport mpi", {}, Mpirun(2));
  EXPECT_TRUE(ReadText(LogitsPath("q0f32_pp2_p5_mpi")) == unsplit);
}

// The q4f16_1 module (4-bit weights unpacked from uint32, float16 scales and activations) in
// one stage, phase 5, on one group: TVM's tokens wherever its top-2 margin is at least 0.1,
// logits within 0.1 (float16).
TEST_F(MlcRunTest, Q4f16Phase5OneGroup) {
  SKIP_WITHOUT_CORPUS();
  GenerateAndCompare("q4f16_p5", "llama-q4f16_1", "cpu-pp1/debug-phase5.py", "",
                     {.min_margin = 0.1, .logit_tolerance = 0.1});
}

// pipesplit's own split of the q0f32 phase 4 module (auto-pipeline-stages, then
// pipeline-parallel-rewrite) on 2 groups with 2 batches in flight: TVM's tokens, and
// --verify: the unsplit run's tokens and logits bit for bit.
TEST_F(MlcRunTest, Q0f32Phase4PipesplitSplitTwoGroups) {
  SKIP_WITHOUT_CORPUS();
  const fs::path pp1 = Corpus2026() / "llama-q0f32/cpu-pp1";
  const fs::path cut = ScratchDir("mlc_run_q0f32_cut") / "split.py";
  WriteSplit(pp1 / "debug-phase4.py", 2, cut);
  GenerateAndCompare("q0f32_p4_split", "llama-q0f32", cut.string(),
                     "--param-names " + (pp1 / "debug-phase5.py").string() +
                         " --groups 2 --batches-in-flight 2 --verify",
                     {});
}

// The same module in 4 stages (one layer each, partition [0, 1, 2, 3, 4]) on 4 groups.
TEST_F(MlcRunTest, Q0f32Phase4PipesplitSplitFourGroups) {
  SKIP_WITHOUT_CORPUS();
  const fs::path pp1 = Corpus2026() / "llama-q0f32/cpu-pp1";
  const fs::path cut = ScratchDir("mlc_run_q0f32_cut4") / "split.py";
  WriteSplit(pp1 / "debug-phase4.py", 4, cut);
  GenerateAndCompare("q0f32_p4_split4", "llama-q0f32", cut.string(),
                     "--param-names " + (pp1 / "debug-phase5.py").string() +
                         " --groups 4 --batches-in-flight 2 --verify",
                     {});
}

// The q4f16_1 module split the same way (MLC 79d603f cannot pipeline a quantized model) on 2
// groups: TVM's tokens where its margin pins them, --verify bit for bit.
TEST_F(MlcRunTest, Q4f16Phase4PipesplitSplitTwoGroups) {
  SKIP_WITHOUT_CORPUS();
  const fs::path pp1 = Corpus2026() / "llama-q4f16_1/cpu-pp1";
  const fs::path cut = ScratchDir("mlc_run_q4f16_cut") / "split.py";
  WriteSplit(pp1 / "debug-phase4.py", 2, cut);
  GenerateAndCompare("q4f16_p4_split", "llama-q4f16_1", cut.string(),
                     "--param-names " + (pp1 / "debug-phase5.py").string() + " --groups 2 --verify",
                     {.min_margin = 0.1, .logit_tolerance = 0.1});
}

}  // namespace
}  // namespace pipesplit::testing_cli
