// `pipesplit convert` (models/mlc_convert.h) against what MLC-LLM wrote:
//  - the shared corpus's Hugging Face folders (llama-q0f32/hf, llama-q4f16_1/hf) convert to the
//    shared MLC folders byte for byte: every shard, tensor-cache.json, tensor-cache-b16.json,
//    mlc-chat-config.json and the tokenizer (skipped without the corpus);
//  - bfloat16 (rounded as f32-to-bf16 rounds), float16 and two-file copies of them, made here,
//    convert to the same bytes (q0f32 from bfloat16, q4f16_1 from float16 and two files);
//  - TinyLlama's config (tinyllama-*/hf-config.json) plans the records, shards and metadata of
//    tinyllama-*/mlc/tensor-cache.json (q4f16_1 and q0f16), without 4 GB of weights;
//  - tied embeddings, gen_config's fields (generation_config.json, a tokenizer.json's info),
//    the group quantization by hand, and the errors.
#include "pipesplit/models/mlc_convert.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "pipesplit/runtime/io/safetensors.h"
#include "pipesplit/support/diagnostic.h"
#include "pipesplit/support/float16_bits.h"
#include "tests/mlc2026_corpus_dir.h"

namespace pipesplit::models {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using runtime::NamedTensor;
using ::testing::HasSubstr;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

fs::path FreshDir(const std::string& name) {
  const fs::path dir = fs::path(testing::TempDir()) / "mlc_convert" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Every file of `expected` is in `actual` with the same bytes.
void ExpectSameFolder(const fs::path& expected, const fs::path& actual) {
  for (const auto& entry : fs::directory_iterator(expected)) {
    const std::string name = entry.path().filename().string();
    ASSERT_TRUE(fs::exists(actual / name)) << name;
    const std::string want = ReadFile(entry.path()), got = ReadFile(actual / name);
    EXPECT_EQ(got.size(), want.size()) << name;
    EXPECT_TRUE(got == want) << name << " differs"
                             << (name.ends_with(".json") ? ":\n" + got : std::string());
  }
}

ConvertOptions CorpusOptions(MlcQuantization q) {
  ConvertOptions o;  // the flags the corpus's folders were made with
  o.quantization = q;
  o.prefill_chunk_size = 64;
  o.max_batch_size = 4;
  return o;
}

struct CorpusCase {
  const char* folder;
  MlcQuantization quantization;
};

class CorpusConvert : public ::testing::TestWithParam<CorpusCase> {};

TEST_P(CorpusConvert, IsByteIdenticalToMlcs) {
  const fs::path corpus = testing_corpus::Mlc2026Dir();
  if (corpus.empty()) GTEST_SKIP() << "no ../shared/corpus/mlc-llm-2026";
  const fs::path out = FreshDir(GetParam().folder);
  ConvertHuggingFace((corpus / GetParam().folder / "hf").string(), out.string(),
                     CorpusOptions(GetParam().quantization));
  ExpectSameFolder(corpus / GetParam().folder / "mlc", out);
}

INSTANTIATE_TEST_SUITE_P(Mlc, CorpusConvert,
                         ::testing::Values(CorpusCase{"llama-q0f32", MlcQuantization::kQ0F32},
                                           CorpusCase{"llama-q4f16_1", MlcQuantization::kQ4F16_1}),
                         [](const auto& info) {
                           return std::string(MlcQuantizationName(info.param.quantization));
                         });

// A copy of the corpus's hf/ folder with its tensors as `dtype` (bfloat16 rounded as tvmjs's
// f32-to-bf16 rounds, float16 to nearest even), in `files` files split at a layer boundary,
// the index keeping the original order.
fs::path CopyHf(const fs::path& hf, const std::string& name, const std::string& dtype, int files) {
  const fs::path out = FreshDir(name);
  for (const char* f : {"config.json", "tokenizer.model"}) fs::copy_file(hf / f, out / f);
  const runtime::SafetensorsFile source =
      runtime::SafetensorsFile::Open((hf / "model.safetensors").string());
  const Json index = Json::parse(ReadFile(hf / "model.safetensors.index.json"));
  std::vector<std::vector<NamedTensor>> parts(files);
  Json weight_map = Json::object();
  for (const auto& [tensor_name, _] : index["weight_map"].items()) {
    const runtime::Tensor t = source.Get(tensor_name);
    const float* v = t.data<float>();
    std::vector<uint16_t> bits(static_cast<size_t>(t.numel()));
    for (size_t i = 0; i < bits.size(); ++i) {
      uint32_t u;
      std::memcpy(&u, &v[i], 4);
      bits[i] = dtype == "bf16" ? static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16)
                                : f16::FloatToHalf(v[i]);
    }
    const int part = files == 2 && (tensor_name.starts_with("model.layers.2") ||
                                    tensor_name.starts_with("model.layers.3") ||
                                    !tensor_name.starts_with("model.layers"))
                         ? (tensor_name.starts_with("model.embed") ? 0 : 1)
                         : 0;
    const std::string file = files == 1
                                 ? "model.safetensors"
                                 : fmt::format("model-0000{}-of-00002.safetensors", part + 1);
    weight_map[tensor_name] = file;
    parts[part].emplace_back(
        tensor_name,
        runtime::FromBytes(dtype == "bf16" ? DataType::BFloat16() : DataType::Float(16), t.shape(),
                           bits.data(), bits.size() * 2));
  }
  for (int p = 0; p < files; ++p) {
    runtime::WriteSafetensors(
        (out / (files == 1 ? "model.safetensors"
                           : fmt::format("model-0000{}-of-00002.safetensors", p + 1)))
            .string(),
        parts[p]);
  }
  WriteFile(out / "model.safetensors.index.json", Json{{"weight_map", weight_map}}.dump(1));
  return out;
}

TEST(MlcConvert, BFloat16FloatAndShardedCopiesConvertToTheSameBytes) {
  const fs::path corpus = testing_corpus::Mlc2026Dir();
  if (corpus.empty()) GTEST_SKIP() << "no ../shared/corpus/mlc-llm-2026";
  {  // q0f32 from bfloat16: the stored bfloat16 of each float32 value is the source's
    const fs::path hf = CopyHf(corpus / "llama-q0f32" / "hf", "bf16-hf", "bf16", 1);
    const fs::path out = FreshDir("bf16-mlc");
    ConvertHuggingFace(hf.string(), out.string(), CorpusOptions(MlcQuantization::kQ0F32));
    for (const char* f : {"params_shard_0.bin", "tensor-cache.json", "mlc-chat-config.json"}) {
      EXPECT_TRUE(ReadFile(out / f) == ReadFile(corpus / "llama-q0f32" / "mlc" / f)) << f;
    }
  }
  {  // q4f16_1 from float16 in two files: MLC rounds to float16 first
    const fs::path hf = CopyHf(corpus / "llama-q4f16_1" / "hf", "f16-hf", "f16", 2);
    const fs::path out = FreshDir("f16-mlc");
    ConvertHuggingFace(hf.string(), out.string(), CorpusOptions(MlcQuantization::kQ4F16_1));
    ExpectSameFolder(corpus / "llama-q4f16_1" / "mlc", out);
  }
}

// The HF names of a Llama checkpoint in the order its modules are declared (the corpus's
// index order), with their shapes.
std::vector<HfTensorInfo> NaturalIndex(const HfLlamaConfig& c, const std::string& dtype) {
  const int64_t h = c.hidden_size, d = c.head_dim, f = c.intermediate_size;
  std::vector<HfTensorInfo> index{
      {"model.embed_tokens.weight", "model.safetensors", {c.vocab_size, h}, dtype}};
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    const std::string p = fmt::format("model.layers.{}.", l);
    auto add = [&](const std::string& n, std::vector<int64_t> shape) {
      index.push_back({p + n, "model.safetensors", std::move(shape), dtype});
    };
    add("input_layernorm.weight", {h});
    add("self_attn.q_proj.weight", {c.num_attention_heads * d, h});
    add("self_attn.k_proj.weight", {c.num_key_value_heads * d, h});
    add("self_attn.v_proj.weight", {c.num_key_value_heads * d, h});
    add("self_attn.o_proj.weight", {h, c.num_attention_heads * d});
    add("post_attention_layernorm.weight", {h});
    add("mlp.gate_proj.weight", {f, h});
    add("mlp.up_proj.weight", {f, h});
    add("mlp.down_proj.weight", {h, f});
  }
  index.push_back({"model.norm.weight", "model.safetensors", {h}, dtype});
  if (!c.tie_word_embeddings) {
    index.push_back({"lm_head.weight", "model.safetensors", {c.vocab_size, h}, dtype});
  }
  return index;
}

class TinyLlamaPlan : public ::testing::TestWithParam<CorpusCase> {};

TEST_P(TinyLlamaPlan, GivesMlcsRecords) {
  const fs::path corpus = testing_corpus::Mlc2026Dir();
  if (corpus.empty()) GTEST_SKIP() << "no ../shared/corpus/mlc-llm-2026";
  const fs::path dir = corpus / GetParam().folder;
  const HfLlamaConfig config = ReadHfLlamaConfig((dir / "hf-config.json").string());
  const ConvertReport plan =
      PlanConversion(config, NaturalIndex(config, "bfloat16"), GetParam().quantization);
  Json expected = Json::parse(ReadFile(dir / "mlc" / "tensor-cache.json"));
  for (Json& shard : expected["records"]) shard["md5sum"] = "";  // a plan has no data
  EXPECT_EQ(Json::parse(TensorCacheJson(plan.shards, plan.metadata, false)), expected);
}

INSTANTIATE_TEST_SUITE_P(
    Mlc, TinyLlamaPlan,
    ::testing::Values(CorpusCase{"tinyllama-q4f16_1", MlcQuantization::kQ4F16_1},
                      CorpusCase{"tinyllama-q0f16", MlcQuantization::kQ0F16}),
    [](const auto& info) { return std::string(MlcQuantizationName(info.param.quantization)); });

// A small random Llama checkpoint written here.
fs::path RandomHf(const std::string& name, const Json& config, bool with_lm_head,
                  const std::string& extra_file = "", const std::string& extra_text = "") {
  const fs::path dir = FreshDir(name);
  WriteFile(dir / "config.json", config.dump(2));
  if (!extra_file.empty()) WriteFile(dir / extra_file, extra_text);
  const HfLlamaConfig c = ReadHfLlamaConfig((dir / "config.json").string());
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 0.05f);
  std::vector<NamedTensor> tensors;
  HfLlamaConfig untied = c;
  untied.tie_word_embeddings = !with_lm_head;
  for (const HfTensorInfo& t : NaturalIndex(untied, "float32")) {
    int64_t n = 1;
    for (int64_t dim : t.shape) n *= dim;
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = normal(rng);
    tensors.emplace_back(t.name,
                         runtime::FromBytes(DataType::Float(32), t.shape, v.data(), v.size() * 4));
  }
  runtime::WriteSafetensors((dir / "model.safetensors").string(), tensors);
  return dir;
}

Json SmallConfig() {
  return {{"architectures", {"LlamaForCausalLM"}},
          {"model_type", "llama"},
          {"hidden_size", 64},
          {"intermediate_size", 80},
          {"num_hidden_layers", 2},
          {"num_attention_heads", 4},
          {"num_key_value_heads", 2},
          {"vocab_size", 96},
          {"rms_norm_eps", 1e-06},
          {"rope_theta", 500000.0},
          {"max_position_embeddings", 131072},
          {"rope_scaling",
           {{"factor", 8.0},
            {"high_freq_factor", 4.0},
            {"low_freq_factor", 1.0},
            {"original_max_position_embeddings", 8192},
            {"rope_type", "llama3"}}},
          {"tie_word_embeddings", true},
          {"bos_token_id", 128000},
          {"eos_token_id", {128001, 128009}}};
}

TEST(MlcConvert, TiedEmbeddingsHaveNoLmHead) {
  const fs::path hf =
      RandomHf("tied-hf", SmallConfig(), /*with_lm_head=*/false, "generation_config.json",
               R"({"temperature": 0.6, "top_p": 0.9, "bos_token_id": 128000})");
  const fs::path out = FreshDir("tied-mlc");
  ConvertOptions options;
  options.conv_template = "llama-3";
  const ConvertReport report = ConvertHuggingFace(hf.string(), out.string(), options);
  std::vector<std::string> names;
  for (const TensorCacheShard& s : report.shards) {
    for (const TensorCacheRecord& r : s.records) names.push_back(r.name);
  }
  EXPECT_THAT(names, ::testing::Contains("model.embed_tokens.q_weight"));
  EXPECT_THAT(names, ::testing::Not(::testing::Contains(HasSubstr("lm_head"))));
  EXPECT_EQ(names.size(), 2u + 2 * (2 + 4 * 2) + 1);
  const Json chat = Json::parse(ReadFile(out / "mlc-chat-config.json"));
  EXPECT_EQ(chat["model_config"]["tie_word_embeddings"], true);
  EXPECT_EQ(chat["model_config"]["rope_scaling"]["rope_type"], "llama3");
  EXPECT_EQ(chat["model_config"]["position_embedding_base"].dump(), "500000.0");
  EXPECT_EQ(chat["model_config"]["context_window_size"], 131072);
  EXPECT_EQ(chat["prefill_chunk_size"], 8192);
  EXPECT_EQ(chat["model_config"]["max_batch_size"], 128);
  EXPECT_EQ(chat["temperature"].dump(), "0.6");
  EXPECT_EQ(chat["top_p"].dump(), "0.9");
  EXPECT_EQ(chat["repetition_penalty"].dump(), "1.0");
  EXPECT_EQ(chat["bos_token_id"], 128000);
  EXPECT_EQ(chat["eos_token_id"], Json({128001, 128009}));
  EXPECT_EQ(chat["conv_template"]["name"], "llama-3");
  EXPECT_EQ(chat["tokenizer_files"], Json::array());
  // Tied with an lm_head in the file too: MLC leaves it unused (and counts it).
  const fs::path both = RandomHf("tied-with-head-hf", SmallConfig(), /*with_lm_head=*/true);
  const ConvertReport again = ConvertHuggingFace(both.string(), FreshDir("tied2").string(), {});
  EXPECT_GT(report.metadata.bits_per_param, again.metadata.bits_per_param);
}

TEST(MlcConvert, TokenizerJsonGivesItsInfoAndVocabulary) {
  const Json tokenizer = {{"version", "1.0"},
                          {"added_tokens",
                           {{{"id", 3},
                             {"content", "<x>"},
                             {"single_word", false},
                             {"lstrip", false},
                             {"rstrip", false},
                             {"normalized", false},
                             {"special", true}},
                            {{"id", 4},
                             {"content", "<y>"},
                             {"single_word", false},
                             {"lstrip", false},
                             {"rstrip", false},
                             {"normalized", false},
                             {"special", true}}}},
                          {"normalizer", nullptr},
                          {"pre_tokenizer",
                           {{"type", "ByteLevel"},
                            {"add_prefix_space", false},
                            {"trim_offsets", true},
                            {"use_regex", true}}},
                          {"post_processor", nullptr},
                          {"decoder",
                           {{"type", "ByteLevel"},
                            {"add_prefix_space", true},
                            {"trim_offsets", true},
                            {"use_regex", true}}},
                          {"model",
                           {{"type", "BPE"},
                            {"dropout", nullptr},
                            {"unk_token", nullptr},
                            {"continuing_subword_prefix", nullptr},
                            {"end_of_word_suffix", nullptr},
                            {"fuse_unk", false},
                            {"byte_fallback", false},
                            {"vocab", {{"a", 0}, {"b", 1}, {"ab", 2}}},
                            {"merges", {"a b"}}}}};
  const fs::path hf = RandomHf("tok-hf", SmallConfig(), false, "tokenizer.json", tokenizer.dump());
  const fs::path out = FreshDir("tok-mlc");
  ConvertOptions options;
  options.quantization = MlcQuantization::kQ0F16;
  ConvertHuggingFace(hf.string(), out.string(), options);
  const Json chat = Json::parse(ReadFile(out / "mlc-chat-config.json"));
  EXPECT_EQ(chat["tokenizer_files"], Json({"tokenizer.json"}));
  EXPECT_EQ(chat["tokenizer_info"], Json({{"token_postproc_method", "byte_level"},
                                          {"prepend_space_in_encode", false},
                                          {"strip_space_in_decode", false}}));
  EXPECT_EQ(chat["active_vocab_size"], 5);
  EXPECT_TRUE(ReadFile(out / "tokenizer.json") == ReadFile(hf / "tokenizer.json"));
  EXPECT_FALSE(fs::exists(out / "tensor-cache-b16.json"));  // no float32 tensor stored
}

uint16_t H(float x) { return f16::FloatToHalf(x); }

TEST(GroupQuantize, ComputesMlcsQ4F16) {
  // One row of 40 columns: a full group and a partial one (8 columns, padded).
  std::vector<uint16_t> w(40, H(0.0f));
  w[0] = H(7.0f);    // the group's max: scale 1
  w[1] = H(-7.0f);   // -> 0
  w[2] = H(2.5f);    // 9.5 -> 10 (ties to even)
  w[3] = H(1.5f);    // 8.5 -> 8
  w[4] = H(-0.5f);   // 6.5 -> 6
  w[32] = H(-3.5f);  // second group: scale 0.5, -3.5 / 0.5 + 7 = 0
  w[33] = H(1.0f);   // 9
  const Q4Weight q = QuantizeQ4F16(w, 1, 40);
  ASSERT_EQ(q.groups, 2);
  ASSERT_EQ(q.q_weight.size(), 8u);
  EXPECT_EQ(f16::HalfToFloat(q.q_scale[0]), 1.0f);
  EXPECT_EQ(f16::HalfToFloat(q.q_scale[1]), 0.5f);
  auto nibble = [&](int i) { return (q.q_weight[i / 8] >> (4 * (i % 8))) & 0xfu; };
  EXPECT_EQ(nibble(0), 14u);
  EXPECT_EQ(nibble(1), 0u);
  EXPECT_EQ(nibble(2), 10u);
  EXPECT_EQ(nibble(3), 8u);
  EXPECT_EQ(nibble(4), 6u);
  EXPECT_EQ(nibble(5), 7u);  // zeros sit at 7
  EXPECT_EQ(nibble(32), 0u);
  EXPECT_EQ(nibble(33), 9u);
  EXPECT_EQ(nibble(39), 7u);
  EXPECT_EQ(nibble(40), 0u);  // padding
  EXPECT_EQ(q.q_weight[6] | q.q_weight[7], 0u);
  // An all-zero group: scale 0, every value 0 (TVM's max(NaN, 0)).
  const Q4Weight zero = QuantizeQ4F16(std::vector<uint16_t>(32, H(0.0f)), 1, 32);
  EXPECT_EQ(zero.q_scale[0], 0);
  EXPECT_EQ(zero.q_weight[0] | zero.q_weight[1] | zero.q_weight[2] | zero.q_weight[3], 0u);
}

TEST(TensorCacheWriter, ShardsAsTvmjsDoes) {
  TensorCacheWriter w("", /*plan_only=*/true, /*shard_cap_bytes=*/100);
  w.Plan("a", {10}, "uint32");    // 40 bytes: shard 0
  w.Plan("b", {20}, "float32");   // stored as 40 bytes of bfloat16: 80 < 100, shard 0
  w.Plan("big", {30}, "uint16");  // 60 >= half the cap: a shard of its own (1), 0 stays open
  w.Plan("c", {5}, "uint32");     // 80 + 20 >= 100: shard 0 closes (numbered 2), c opens 3
  const std::vector<TensorCacheShard> shards = w.Finish({});
  ASSERT_EQ(shards.size(), 3u);
  EXPECT_EQ(shards[0].data_path, "params_shard_0.bin");
  EXPECT_EQ(shards[0].records.size(), 1u);  // big
  EXPECT_EQ(shards[0].nbytes, 60);
  EXPECT_EQ(shards[1].records.size(), 2u);  // a, b
  EXPECT_EQ(shards[1].records[1].byte_offset, 40);
  EXPECT_EQ(shards[1].nbytes, 80);
  EXPECT_EQ(shards[2].records[0].name, "c");
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(MlcConvert, Errors) {
  Json config = SmallConfig();
  const fs::path hf = RandomHf("err-hf", config, false);
  const std::string out = FreshDir("err-mlc").string();
  auto convert = [&](ConvertOptions o = {}) {
    return ErrorOf([&] { ConvertHuggingFace(hf.string(), out, o); });
  };
  auto with_config = [&](const Json& c) {
    WriteFile(hf / "config.json", c.dump(1));
    return convert();
  };
  ConvertOptions bad_template;
  bad_template.conv_template = "vicuna";
  EXPECT_THAT(convert(bad_template),
              HasSubstr("--conv-template: 'vicuna' is not a template pipesplit knows (LM, "));
  Json qwen = config;
  qwen["model_type"] = "qwen2";
  EXPECT_THAT(with_config(qwen),
              HasSubstr("config.json:5:16: error: model_type 'qwen2' is not one pipesplit "
                        "converts (llama)"));
  Json no_hidden = config;
  no_hidden.erase("hidden_size");
  EXPECT_THAT(with_config(no_hidden), HasSubstr("hidden_size"));
  Json linear = config;
  linear["rope_scaling"] = {{"rope_type", "linear"}, {"factor", 2.0}};
  EXPECT_THAT(with_config(linear), HasSubstr("rope_type 'linear' is not supported for Llama"));
  Json no_window = config;
  no_window.erase("max_position_embeddings");
  EXPECT_THAT(with_config(no_window), HasSubstr("gives no context window"));
  Json kv = config;
  kv["num_key_value_heads"] = 3;
  EXPECT_THAT(with_config(kv), HasSubstr("4 attention heads do not divide into 3"));
  Json wider = config;
  wider["intermediate_size"] = 96;
  EXPECT_THAT(with_config(wider),
              HasSubstr("model.layers.0.mlp.gate_proj.weight + model.layers.0.mlp.up_proj.weight "
                        "make 160 rows, but the config makes "
                        "'model.layers.0.mlp.gate_up_proj.weight' [192, 64]"));
  Json narrower = config;
  narrower["hidden_size"] = 32;
  EXPECT_THAT(with_config(narrower),
              HasSubstr("tensor 'model.embed_tokens.weight' has shape [96, 64], but the config "
                        "makes 'model.embed_tokens.weight' [96, 32]"));
  Json untied = config;
  untied["tie_word_embeddings"] = false;
  EXPECT_THAT(with_config(untied), HasSubstr("no tensor 'lm_head.weight'"));
  WriteFile(hf / "config.json", config.dump(1));
  runtime::WriteSafetensors(
      (hf / "model.safetensors").string(),
      std::vector<NamedTensor>{
          {"model.embed_tokens.weight", runtime::MakeIntTensor(DataType::Int(32), {1}, {1})}});
  EXPECT_THAT(convert(), HasSubstr("tensor 'model.embed_tokens.weight' is int32; pipesplit "
                                   "converts float32, bfloat16 and float16 weights"));
  fs::remove(hf / "model.safetensors");
  EXPECT_THAT(convert(), HasSubstr("no model.safetensors.index.json or model.safetensors"));
  EXPECT_THAT(ErrorOf([&] { ConvertHuggingFace((hf / "nope").string(), out, {}); }),
              HasSubstr("nope: not a folder"));
}

}  // namespace
}  // namespace pipesplit::models
