// End to end: MLC-LLM's own CPU modules of the 2026 corpus (../shared/corpus/mlc-llm-2026) run
// by `pipesplit generate` on the weights of their MLC folder, greedy, 16 tokens for each prompt
// of reference/greedy.json, compared with what TVM computed from the same module and weights
// (reference/greedy.json's tokens, reference/logits.npy). Skipped without the corpus. The
// kernels of each module are compiled once per test binary (a kernel cache of its own).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/cli/cli_test_util.h"
#include "tests/runtime/mlc_test_folder.h"

namespace pipesplit::testing_cli {
namespace {

using testing_mlc::Corpus2026;
namespace fs = std::filesystem;

#define SKIP_WITHOUT_CORPUS()                                  \
  if (!fs::exists(Corpus2026() / "README.md")) {               \
    GTEST_SKIP() << "../shared/corpus/mlc-llm-2026 is absent"; \
  }

// A float32 .npy file: its shape and values (C order).
struct Npy {
  std::vector<int64_t> shape;
  std::vector<float> values;
};

Npy ReadNpyFloat32(const fs::path& path) {
  const std::string bytes = ReadText(path);
  Npy npy;
  EXPECT_GE(bytes.size(), 10u) << path;
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) return npy;
  const size_t header_len = static_cast<unsigned char>(bytes[8]) |
                            (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
  const std::string header = bytes.substr(10, header_len);
  EXPECT_NE(header.find("'descr': '<f4'"), std::string::npos) << header;
  EXPECT_NE(header.find("'fortran_order': False"), std::string::npos) << header;
  const size_t open = header.find('(', header.find("'shape'"));
  const size_t close = header.find(')', open);
  std::string dims = header.substr(open + 1, close - open - 1);
  size_t count = 1;
  for (size_t at = 0; at < dims.size();) {
    const size_t comma = dims.find(',', at);
    const std::string field = dims.substr(at, comma == std::string::npos ? comma : comma - at);
    if (field.find_first_of("0123456789") != std::string::npos) {
      npy.shape.push_back(std::stoll(field));
      count *= static_cast<size_t>(npy.shape.back());
    }
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  const size_t data = 10 + header_len;
  EXPECT_EQ(bytes.size() - data, count * sizeof(float)) << path;
  npy.values.resize(count);
  if (bytes.size() - data == count * sizeof(float)) {
    std::memcpy(npy.values.data(), bytes.data() + data, count * sizeof(float));
  }
  return npy;
}

fs::path KernelCache() { return fs::path(PIPESPLIT_BINARY_DIR) / "tests/cli/mlc_run_kernels"; }

// What a run is compared with: the reference's tokens wherever its top-2 margin is at least
// `min_margin` (0: everywhere) and its logits within `logit_tolerance`.
struct Expectation {
  double min_margin = 0;
  double logit_tolerance = 1e-4;
};

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

class MlcRunTest : public ::testing::Test {
 protected:
  static fs::path LogitsPath(const std::string& name) {
    return fs::path(PIPESPLIT_BINARY_DIR) / "test-scratch" / ("mlc_run_" + name) / "logits.npy";
  }

  // Runs `pipesplit generate` on `dump` (a path under the corpus) with the weights of
  // `model`/mlc and the reference's prompts, then compares tokens and logits with the
  // reference. Returns the largest logit difference.
  // `launcher` (mpirun ...) runs the binary when set. The logits are left in
  // `logits_path(name)`.
  double GenerateAndCompare(const std::string& name, const std::string& model,
                            const std::string& dump, const std::string& flags,
                            const Expectation& expect, const std::string& launcher = "") {
    const fs::path dir = ScratchDir("mlc_run_" + name);
    const fs::path root = Corpus2026() / model;
    const nlohmann::json greedy = nlohmann::json::parse(ReadText(root / "reference/greedy.json"));
    nlohmann::json prompts = nlohmann::json::array();
    for (const nlohmann::json& r : greedy["requests"]) prompts.push_back(r["prompt_ids"]);
    WriteText(dir / "prompts.json", prompts.dump());
    const int new_tokens = greedy["new_tokens"].get<int>();
    const Result r = Shell(
        launcher + Binary() + " generate " +
            (fs::path(dump).is_absolute() ? fs::path(dump) : root / dump).string() + " --params " +
            (root / "mlc").string() + " " + flags + " --prompts " +
            (dir / "prompts.json").string() + " --max-new-tokens " + std::to_string(new_tokens) +
            " --temperature 0 --kernel-cache " + KernelCache().string() + " --dump-logits " +
            (dir / "logits.npy").string() + " -o " + (dir / "out.json").string(),
        600);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    if (r.exit_code != 0) return INFINITY;
    const nlohmann::json out = nlohmann::json::parse(ReadText(dir / "out.json"));
    const Npy reference = ReadNpyFloat32(root / "reference/logits.npy");
    const Npy logits = ReadNpyFloat32(dir / "logits.npy");
    EXPECT_EQ(logits.shape, reference.shape);
    if (logits.shape != reference.shape || reference.shape.size() != 3) return INFINITY;
    const int64_t steps = reference.shape[1];
    const int64_t vocab = reference.shape[2];
    double worst = 0;
    for (size_t q = 0; q < greedy["requests"].size(); ++q) {
      const nlohmann::json& ref = greedy["requests"][q];
      const nlohmann::json& got = out["requests"][q]["tokens"];
      EXPECT_EQ(got.size(), ref["tokens"].size()) << "request " << q;
      if (got.size() != ref["tokens"].size()) continue;
      for (size_t s = 0; s < got.size(); ++s) {
        // Step s's logits come from the same tokens as the reference's.
        const size_t base = (q * steps + s) * vocab;
        for (int64_t v = 0; v < vocab; ++v) {
          worst = std::max(worst, static_cast<double>(std::fabs(logits.values[base + v] -
                                                                reference.values[base + v])));
        }
        if (got[s] == ref["tokens"][s]) continue;
        // A token the reference's top-2 margin does not pin may differ; the runs part ways.
        EXPECT_LT(ref["margins"][s].get<double>(), expect.min_margin)
            << "request " << q << " step " << s << ": token " << got[s] << ", TVM's "
            << ref["tokens"][s];
        break;
      }
    }
    EXPECT_LE(worst, expect.logit_tolerance);
    RecordProperty("max_logit_difference", std::to_string(worst));
    std::printf("%s: largest logit difference from TVM's %.3g\n", name.c_str(), worst);
    return worst;
  }
};

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

std::string Mpirun(int ranks) {
  return "env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
         "OMPI_MCA_rmaps_base_oversubscribe=1 mpirun --allow-run-as-root --oversubscribe -np " +
         std::to_string(ranks) + " ";
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
