// End to end: MLC-LLM's own tensor-parallel CPU modules of the 2026 corpus (llama-q0f32 cpu-tp2:
// one group of 2 workers; cpu-tp2pp2: 2 groups of 2) on the unsharded weights of the MLC folder,
// each worker cutting its shard at load time with the module's `_shard_*` kernels as the
// `preprocs` of `_metadata` say: TVM's tokens and logits (reference/), PP x TP bit for bit TP
// alone, on threads and 4 MPI ranks; and the located errors of a bad preproc. Also text prompts
// through the folder's tokenizer. Skipped without the corpus.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/cli/mlc_run_util.h"

namespace pipesplit::testing_cli {
namespace {

using testing::HasSubstr;

// MLC's TP = 2 module, memory planned (phase 5), on one group of 2 (the group size comes from
// its tensor_parallel_shards), and MLC's PP = 2 x TP = 2 build of the same model on 2 groups of
// 2, threads and MPI: TVM's tokens, logits within 1e-4, PP x TP bit for bit TP alone.
TEST_F(MlcRunTest, Q0f32MlcTensorParallelPhase5) {
  SKIP_WITHOUT_CORPUS();
  GenerateAndCompare("q0f32_tp2_p5", "llama-q0f32", "cpu-tp2/debug-phase5.py", "", {});
  GenerateAndCompare("q0f32_tp2pp2_p5", "llama-q0f32", "cpu-tp2pp2/debug-phase5.py", "--groups 2",
                     {});
  const std::string tp = ReadText(LogitsPath("q0f32_tp2_p5"));
  EXPECT_FALSE(tp.empty());
  EXPECT_TRUE(ReadText(LogitsPath("q0f32_tp2pp2_p5")) == tp);
  GenerateAndCompare("q0f32_tp2pp2_p5_mpi", "llama-q0f32", "cpu-tp2pp2/debug-phase5.py",
                     "--transport mpi", {}, Mpirun(4));
  EXPECT_TRUE(ReadText(LogitsPath("q0f32_tp2pp2_p5_mpi")) == tp);
}

// Phase 4 (dataflow) has no _metadata: with --param-names of its phase 5 it adopts that one,
// preprocs and tensor_parallel_shards included.
TEST_F(MlcRunTest, Q0f32MlcTensorParallelPhase4AdoptsTheMetadata) {
  SKIP_WITHOUT_CORPUS();
  const fs::path tp2 = Corpus2026() / "llama-q0f32/cpu-tp2";
  GenerateAndCompare("q0f32_tp2_p4", "llama-q0f32", "cpu-tp2/debug-phase4.py",
                     "--param-names " + (tp2 / "debug-phase5.py").string(), {});
}

// The phase 5 module with one edit to its _metadata, run with `flags`: the error output.
std::string RunEdited(const std::string& name, const std::string& from, const std::string& to,
                      const std::string& flags = "") {
  const fs::path root = Corpus2026() / "llama-q0f32";
  std::string text = ReadText(root / "cpu-tp2/debug-phase5.py");
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at == std::string::npos) return "";
  text.replace(at, from.size(), to);
  const fs::path dir = ScratchDir("mlc_tp_" + name);
  WriteText(dir / "model.py", text);
  WriteText(dir / "prompts.json", "[[1, 2, 3]]");
  const Result r = Shell(Binary() + " generate " + (dir / "model.py").string() + " --params " +
                         (root / "mlc").string() + " --prompts " + (dir / "prompts.json").string() +
                         " --max-new-tokens 2 " + flags + " -o " + (dir / "out.json").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  return r.output;
}

TEST(MlcTensorParallelErrors, BadPreprocsAreLocated) {
  SKIP_WITHOUT_CORPUS();
  const std::string qkv = R"(\"func_name\": \"_shard_qkv\", \"in_shape\": [512, 256])";
  // The stored weight is not what the preproc takes: an error at the preproc.
  EXPECT_THAT(
      RunEdited("in_shape", qkv, R"(\"func_name\": \"_shard_qkv\", \"in_shape\": [511, 256])"),
      testing::ContainsRegex(
          "model.py:[0-9]+:[0-9]+: error: weight 'model.layers.0.self_attn.qkv_proj."
          "weight' \\(packed_params\\[1\\]\\) is stored as \\[512, 256\\] in .*"
          "tensor-cache.json but its preproc '_shard_qkv' takes \\[511, 256\\]"));
  // A preproc that is no kernel of the module.
  EXPECT_THAT(
      RunEdited("func_name", qkv, R"(\"func_name\": \"_shard_qkvz\", \"in_shape\": [512, 256])"),
      testing::ContainsRegex("model.py:[0-9]+:[0-9]+: error: the preproc of weight "
                             "'model.layers.0.self_attn.qkv_proj.weight' names "
                             "'_shard_qkvz', which is not a kernel \\(T.prim_func\\) of "
                             "the module"));
  // An out_shape without one slice per worker.
  EXPECT_THAT(
      RunEdited("out_shape", R"(\"out_shape\": [2, 256, 256])", R"(\"out_shape\": [3, 256, 256])"),
      testing::ContainsRegex("model.py:[0-9]+:[0-9]+: error: the preproc '_shard_qkv' of weight "
                             "'model.layers.0.self_attn.qkv_proj.weight' writes \\[3, 256, "
                             "256\\], which does not hold one slice for each of the module's 2 "
                             "shards"));
  // A malformed preproc entry.
  EXPECT_THAT(RunEdited("out_dtype", R"(\"out_dtype\": \"float32\")", R"(\"out_dtype\": \"f32x\")"),
              testing::ContainsRegex("model.py:[0-9]+:[0-9]+: error: .*out_dtype.* is not a "
                                     "dtype: 'f32x'"));
  // Groups of another size than the module's shards.
  EXPECT_THAT(RunEdited("group_size", R"(\"tensor_parallel_shards\": 2)",
                        R"(\"tensor_parallel_shards\": 2)", "--group-size 4"),
              HasSubstr("is sharded for groups of 2 workers"));
}

// Text in, text out: `generate --prompt TEXT` encodes with the MLC folder's tokenizer.model
// (the reference's prompt_ids) and writes each request's text, which is TVM's.
TEST(MlcTextPrompts, GenerateFromTextGivesTheReferenceText) {
  SKIP_WITHOUT_CORPUS();
  const fs::path root = Corpus2026() / "llama-q0f32";
  const nlohmann::json greedy = nlohmann::json::parse(ReadText(root / "reference/greedy.json"));
  const fs::path dir = ScratchDir("mlc_text_prompts");
  std::string flags;
  for (const nlohmann::json& r : greedy["requests"]) {
    flags += " --prompt '" + r["prompt"].get<std::string>() + "'";
  }
  const Result r = Shell(Binary() + " generate " + (root / "cpu-pp1/debug-phase5.py").string() +
                             " --params " + (root / "mlc").string() + flags + " --max-new-tokens " +
                             std::to_string(greedy["new_tokens"].get<int>()) + " --kernel-cache " +
                             KernelCache().string() + " -o " + (dir / "out.json").string(),
                         600);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json out = nlohmann::json::parse(ReadText(dir / "out.json"));
  for (size_t q = 0; q < greedy["requests"].size(); ++q) {
    const nlohmann::json& ref = greedy["requests"][q];
    EXPECT_EQ(out["requests"][q]["prompt_tokens"], ref["prompt_ids"].size());
    EXPECT_EQ(out["requests"][q]["tokens"], ref["tokens"]) << "request " << q;
    EXPECT_EQ(out["requests"][q]["text"], ref["text"]) << "request " << q;
    EXPECT_THAT(r.output, HasSubstr("request " + std::to_string(q) + ": "));
  }
  // Text without a tokenizer, and no prompts at all, are errors.
  const Result no_tokenizer =
      Shell(Binary() + " generate " + (root / "cpu-pp1/debug-phase5.py").string() + " --params " +
            (root / "mlc").string() + " --tokenizer " + (dir / "missing.model").string() +
            " --prompt hi -o " + (dir / "x.json").string());
  EXPECT_EQ(no_tokenizer.exit_code, 1) << no_tokenizer.output;
  EXPECT_THAT(no_tokenizer.output, HasSubstr("missing.model"));
  const Result none =
      Shell(Binary() + " generate " + (root / "cpu-pp1/debug-phase5.py").string() + " --params " +
            (root / "mlc").string() + " -o " + (dir / "x.json").string());
  EXPECT_EQ(none.exit_code, 1) << none.output;
  EXPECT_THAT(none.output,
              HasSubstr("error: give the prompts: --prompts FILE (token ids) or --prompt TEXT"));
}

}  // namespace
}  // namespace pipesplit::testing_cli
