// End to end: `pipesplit generate FOLDER` with no module, pipesplit writing the module from the
// folder's mlc-chat-config.json (models/mlc_llama_module.h).
//  - The corpus's MLC folders (q0f32, q4f16_1): the tokens of the run on MLC's own compiled
//    module (phase 5, the same folder), on 1 group and on 2 with 2 batches in flight.
//  - Everywhere: a random Hugging Face Llama written here, converted by `pipesplit convert`
//    (q0f32 untied, q4f16_1 tied, q0f16, and a Llama-3-style config: 128256 tokens, tied,
//    rope_scaling llama3), generates on 1 and 2 groups with --verify (split and unsplit bit for
//    bit), and --write-module gives the module it ran; the llama3 scaling changes the logits.
//  - Errors: a folder without mlc-chat-config.json, a model_type the writer does not know (a
//    located error), --params beside a folder, a module file without --params.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "pipesplit/runtime/io/safetensors.h"
#include "tests/cli/cli_test_util.h"
#include "tests/mlc2026_corpus_dir.h"

namespace pipesplit::testing_cli {
namespace {

using testing::HasSubstr;
namespace fs = std::filesystem;
using Json = nlohmann::json;

std::vector<std::vector<int>> Tokens(const fs::path& out) {
  std::vector<std::vector<int>> tokens;
  const Json doc = Json::parse(ReadText(out));
  for (const Json& r : doc["requests"]) tokens.push_back(r["tokens"]);
  return tokens;
}

class CorpusFolder : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusFolder, GivesTheTokensOfMlcsCompiledModule) {
  const fs::path corpus = testing_corpus::Mlc2026Dir();
  if (corpus.empty()) GTEST_SKIP() << "no ../shared/corpus/mlc-llm-2026";
  const fs::path model = corpus / GetParam(), dir = ScratchDir("folder_" + GetParam());
  Json prompts = Json::array();
  const Json reference = Json::parse(ReadText(model / "reference" / "greedy.json"));
  for (const Json& r : reference["requests"]) prompts.push_back(r["prompt_ids"]);
  WriteText(dir / "prompts.json", prompts.dump());
  const std::string common = " --prompts " + (dir / "prompts.json").string() +
                             " --max-new-tokens 16 --kernel-cache " + (dir / "kernels").string();
  Result dump =
      Pipesplit("generate " + (model / "cpu-pp1" / "debug-phase5.py").string() + " --params " +
                    (model / "mlc").string() + common + " -o " + (dir / "dump.json").string(),
                600);
  ASSERT_EQ(dump.exit_code, 0) << dump.output;
  Result folder = Pipesplit(
      "generate " + (model / "mlc").string() + common + " -o " + (dir / "folder.json").string(),
      600);
  ASSERT_EQ(folder.exit_code, 0) << folder.output;
  EXPECT_EQ(Tokens(dir / "folder.json"), Tokens(dir / "dump.json"));
  Result two = Pipesplit("generate " + (model / "mlc").string() + common +
                             " --groups 2 --batches-in-flight 2 -o " + (dir / "two.json").string(),
                         600);
  ASSERT_EQ(two.exit_code, 0) << two.output;
  EXPECT_EQ(Tokens(dir / "two.json"), Tokens(dir / "dump.json"));
}

INSTANTIATE_TEST_SUITE_P(Mlc, CorpusFolder, ::testing::Values("llama-q0f32", "llama-q4f16_1"),
                         [](const auto& info) {
                           return info.param == "llama-q0f32" ? std::string("q0f32")
                                                              : std::string("q4f16_1");
                         });

// A random Hugging Face Llama (float32 safetensors), tied or not; `llama3`: Llama 3's shape of
// config (a 128256-token vocabulary, rope_theta 500000, rope_scaling llama3 - its original
// context cut to 64 so that short prompts feel the scaling).
fs::path RandomHf(const fs::path& dir, bool tied, bool llama3) {
  fs::create_directories(dir);
  const int64_t h = 64, ffn = 96, heads = 4, kv = 2, layers = 2, d = h / heads;
  const int64_t vocab = llama3 ? 128256 : 128;
  Json config = {{"model_type", "llama"},        {"hidden_size", h},
                 {"intermediate_size", ffn},     {"num_hidden_layers", layers},
                 {"num_attention_heads", heads}, {"num_key_value_heads", kv},
                 {"vocab_size", vocab},          {"rms_norm_eps", 1e-05},
                 {"rope_theta", 10000.0},        {"max_position_embeddings", 256},
                 {"tie_word_embeddings", tied}};
  if (llama3) {
    config["rope_theta"] = 500000.0;
    config["max_position_embeddings"] = 131072;
    config["rope_scaling"] = {{"factor", 8.0},
                              {"high_freq_factor", 4.0},
                              {"low_freq_factor", 1.0},
                              {"original_max_position_embeddings", 64},
                              {"rope_type", "llama3"}};
  }
  WriteText(dir / "config.json", config.dump(2));
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 0.08f);
  std::vector<runtime::NamedTensor> tensors;
  auto add = [&](const std::string& name, std::vector<int64_t> shape, bool norm = false) {
    int64_t n = 1;
    for (int64_t x : shape) n *= x;
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = norm ? 1.0f + normal(rng) : normal(rng);
    tensors.emplace_back(
        name, runtime::FromBytes(DataType::Float(32), std::move(shape), v.data(), v.size() * 4));
  };
  add("model.embed_tokens.weight", {vocab, h});
  for (int64_t l = 0; l < layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    add(p + "input_layernorm.weight", {h}, true);
    add(p + "self_attn.q_proj.weight", {heads * d, h});
    add(p + "self_attn.k_proj.weight", {kv * d, h});
    add(p + "self_attn.v_proj.weight", {kv * d, h});
    add(p + "self_attn.o_proj.weight", {h, heads * d});
    add(p + "post_attention_layernorm.weight", {h}, true);
    add(p + "mlp.gate_proj.weight", {ffn, h});
    add(p + "mlp.up_proj.weight", {ffn, h});
    add(p + "mlp.down_proj.weight", {h, ffn});
  }
  add("model.norm.weight", {h}, true);
  if (!tied) add("lm_head.weight", {vocab, h});
  runtime::WriteSafetensors((dir / "model.safetensors").string(), tensors);
  return dir;
}

struct RandomCase {
  const char* quantization;
  bool tied;
  bool llama3 = false;
};

class RandomFolder : public ::testing::TestWithParam<RandomCase> {};

TEST_P(RandomFolder, ConvertsAndGeneratesSplitAsUnsplit) {
  const std::string q = GetParam().quantization;
  const fs::path dir =
      ScratchDir(std::string("random_") + q + (GetParam().llama3 ? "_llama3" : ""));
  const fs::path hf = RandomHf(dir / "hf", GetParam().tied, GetParam().llama3), mlc = dir / "mlc";
  Result convert =
      Pipesplit("convert " + hf.string() + " --quantization " + q + " -o " + mlc.string());
  ASSERT_EQ(convert.exit_code, 0) << convert.output;
  WriteText(dir / "prompts.json", "[[1, 5, 9, 33], [2, 7], [100, 3, 3, 3, 3, 3]]");
  const std::string common = " --prompts " + (dir / "prompts.json").string() +
                             " --max-new-tokens 12 --kernel-cache " + (dir / "kernels").string();
  Result one = Pipesplit("generate " + mlc.string() + common + " --write-module " +
                         (dir / "model.py").string() + " -o " + (dir / "one.json").string());
  ASSERT_EQ(one.exit_code, 0) << one.output;
  EXPECT_THAT(ReadText(dir / "model.py"),
              HasSubstr(q == "q4f16_1" ? "fused_dequantize_NT_matmul" : "NT_matmul"));
  // The module written to a file runs as the folder does.
  Result file = Pipesplit("generate " + (dir / "model.py").string() + " --params " + mlc.string() +
                          common + " -o " + (dir / "file.json").string());
  ASSERT_EQ(file.exit_code, 0) << file.output;
  EXPECT_EQ(Tokens(dir / "file.json"), Tokens(dir / "one.json"));
  Result two =
      Pipesplit("generate " + mlc.string() + common +
                " --groups 2 --batches-in-flight 2 --verify -o " + (dir / "two.json").string());
  ASSERT_EQ(two.exit_code, 0) << two.output;
  EXPECT_EQ(Tokens(dir / "two.json"), Tokens(dir / "one.json"));
  for (const auto& tokens : Tokens(dir / "one.json")) EXPECT_EQ(tokens.size(), 12u);
  if (!GetParam().llama3) return;
  // The KV cache applies the scaling: the same folder without rope_scaling gives other logits.
  EXPECT_THAT(ReadText(dir / "model.py"), HasSubstr("\\\"rope_type\\\":\\\"llama3\\\""));
  fs::copy(mlc, dir / "plain");
  Json chat = Json::parse(ReadText(mlc / "mlc-chat-config.json"));
  chat["model_config"]["rope_scaling"] = nullptr;
  WriteText(dir / "plain" / "mlc-chat-config.json", chat.dump(2));
  for (const char* folder : {"mlc", "plain"}) {
    Result r = Pipesplit("generate " + (dir / folder).string() + common + " --dump-logits " +
                         (dir / (std::string(folder) + ".npy")).string() + " -o " +
                         (dir / (std::string(folder) + ".json")).string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  EXPECT_NE(ReadText(dir / "mlc.npy"), ReadText(dir / "plain.npy"));
  // A module that does not hand the scaling to the cache (as MLC's compiled ones) is refused with
  // a folder that scales.
  Result plain_module =
      Pipesplit("generate " + (dir / "plain").string() + common + " --write-module " +
                (dir / "plain.py").string() + " -o " + (dir / "x.json").string());
  ASSERT_EQ(plain_module.exit_code, 0) << plain_module.output;
  Result refused = Pipesplit("generate " + (dir / "plain.py").string() + " --params " +
                             mlc.string() + common + " -o " + (dir / "y.json").string());
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.output,
              HasSubstr("the model scales RoPE (rope_scaling llama3), which MLC's compiled module "
                        "computes inside its attention kernels"));
}

INSTANTIATE_TEST_SUITE_P(Convert, RandomFolder,
                         ::testing::Values(RandomCase{"q0f32", false}, RandomCase{"q4f16_1", true},
                                           RandomCase{"q0f16", false},
                                           RandomCase{"q4f16_1", true, true}),
                         [](const auto& info) {
                           return std::string(info.param.quantization) +
                                  (info.param.tied ? "_tied" : "") +
                                  (info.param.llama3 ? "_llama3" : "");
                         });

TEST(MlcFolderModule, Errors) {
  const fs::path dir = ScratchDir("folder_errors");
  fs::create_directories(dir / "empty");
  Result r = Pipesplit("generate " + (dir / "empty").string() + " --prompts x -o y");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("empty: not an MLC model folder (no mlc-chat-config.json)"));
  fs::create_directories(dir / "qwen");
  WriteText(dir / "qwen" / "mlc-chat-config.json",
            "{\n  \"model_type\": \"qwen2\",\n  \"quantization\": \"q4f16_1\"\n}");
  r = Pipesplit("generate " + (dir / "qwen").string() + " --prompts x -o y");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("mlc-chat-config.json:2:17: error: pipesplit writes the module "
                                  "of model_type llama, not 'qwen2'"));
  WriteText(dir / "qwen" / "mlc-chat-config.json",
            "{\"model_type\": \"llama\", \"quantization\": \"q3f16_0\"}");
  r = Pipesplit("serve " + (dir / "qwen").string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("not 'q3f16_0'"));
  r = Pipesplit("generate " + (dir / "qwen").string() + " --params " + (dir / "empty").string() +
                " --prompts x -o y");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("the folder alone gives its weights"));
  WriteText(dir / "model.py", "");
  r = Pipesplit("generate " + (dir / "model.py").string() + " --prompts x -o y");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("--params is required with a module file"));
}

}  // namespace
}  // namespace pipesplit::testing_cli
