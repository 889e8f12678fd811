// End to end: MLC-LLM's own CPU modules of the 2026 corpus (../shared/corpus/mlc-llm-2026) run
// by `pipesplit generate` on the weights of their MLC folder, greedy, 16 tokens for each prompt
// of reference/greedy.json, compared with what TVM computed from the same module and weights
// (reference/greedy.json's tokens, reference/logits.npy). Skipped without the corpus. The
// kernels of each module are compiled once per test binary (a kernel cache of its own).
#include <regex>
#include <sstream>
#include <string>

#include "tests/cli/mlc_run_util.h"

namespace pipesplit::testing_cli {
namespace {

// A one-stage phase 4 dump cut in 2 stages by hand, as `auto-pipeline-stages` will on MLC
// modules: batch_prefill and batch_decode get a stage boundary after layer 1's down_proj and
// pipeline_parallel_stages 2, the KV cache the layer partition [0, 2, 4]. Written to `path`.
void WriteTwoStageCut(const fs::path& dump, const fs::path& path) {
  std::istringstream in(ReadText(dump));
  std::string out;
  std::string func;
  const std::regex def(R"(^    def (\w+)\()");
  const std::regex down_proj(
      R"(^(\s+)(\w+) = R\.call_tir\(.*model_layers_1_mlp_down_proj_.*out_ty=(R\.Tensor\(.*\))\)$)");
  int cuts = 0;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, def)) func = m[1];
    const bool cut = func == "batch_prefill" || func == "batch_decode";
    if (cut) {
      const size_t at = line.find("\"pipeline_parallel_stages\": 1");
      if (at != std::string::npos) line.replace(at, 29, "\"pipeline_parallel_stages\": 2");
    }
    const size_t kv = line.find("R.shape([0, 4]), 4, 2,");
    if (kv != std::string::npos) line.replace(kv, 15, "R.shape([0, 2, 4])");
    out += line + "\n";
    if (cut && std::regex_match(line, m, down_proj)) {
      out += m[1].str() + m[2].str() +
             "_cut = R.call_pure_packed(\"mlc.pipeline_parallel_stage_boundary\", " + m[2].str() +
             ", sinfo_args=(" + m[3].str() + ",))\n";
      ++cuts;
    }
  }
  EXPECT_EQ(cuts, 2) << dump;
  WriteText(path, out);
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

// pipesplit's own split of the q0f32 phase 4 module (cut by hand, split by
// pipeline-parallel-rewrite) on 2 groups with 2 batches in flight: TVM's tokens, and
// --verify: the unsplit run's tokens and logits bit for bit.
TEST_F(MlcRunTest, Q0f32Phase4PipesplitSplitTwoGroups) {
  SKIP_WITHOUT_CORPUS();
  const fs::path pp1 = Corpus2026() / "llama-q0f32/cpu-pp1";
  const fs::path cut = ScratchDir("mlc_run_q0f32_cut") / "cut.py";
  WriteTwoStageCut(pp1 / "debug-phase4.py", cut);
  GenerateAndCompare("q0f32_p4_split", "llama-q0f32", cut.string(),
                     "--param-names " + (pp1 / "debug-phase5.py").string() +
                         " --groups 2 --batches-in-flight 2 --verify",
                     {});
}

// The q4f16_1 module cut the same way (MLC 79d603f cannot pipeline a quantized model) on 2
// groups: TVM's tokens where its margin pins them, --verify bit for bit.
TEST_F(MlcRunTest, Q4f16Phase4PipesplitSplitTwoGroups) {
  SKIP_WITHOUT_CORPUS();
  const fs::path pp1 = Corpus2026() / "llama-q4f16_1/cpu-pp1";
  const fs::path cut = ScratchDir("mlc_run_q4f16_cut") / "cut.py";
  WriteTwoStageCut(pp1 / "debug-phase4.py", cut);
  GenerateAndCompare("q4f16_p4_split", "llama-q4f16_1", cut.string(),
                     "--param-names " + (pp1 / "debug-phase5.py").string() + " --groups 2 --verify",
                     {.min_margin = 0.1, .logit_tolerance = 0.1});
}

}  // namespace
}  // namespace pipesplit::testing_cli
