// End to end: MLC model folders as `--params` of `run` and `generate`. A hand-made module with
// a `_metadata` function runs on the corpus's q0f32 folder and computes with the Hugging Face
// weights rounded to bfloat16; the serving example converted to a folder (records in another
// order, bound by --param-names) generates the tokens of its safetensors file, with the folder's
// mlc-chat-config.json giving the defaults; broken folders (a shard cut short or missing, a
// record whose shape the module contradicts, malformed JSON, a config field of the wrong type)
// are located errors with exit code 1.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "pipesplit/runtime/io/safetensors.h"
#include "pipesplit/runtime/tensor/half.h"
#include "tests/cli/cli_test_util.h"
#include "tests/runtime/mlc_test_folder.h"

namespace pipesplit::testing_cli {
namespace {

using testing::HasSubstr;
using testing::StartsWith;
using testing_mlc::Corpus2026;
using testing_mlc::MetadataOfDump;
using testing_mlc::TestRecord;
using testing_mlc::WriteMlcFolder;
namespace fs = std::filesystem;

#define SKIP_WITHOUT_CORPUS()                                  \
  if (!fs::exists(Corpus2026() / "README.md")) {               \
    GTEST_SKIP() << "../shared/corpus/mlc-llm-2026 is absent"; \
  }

// `json` as the contents of a Python string literal.
std::string Escaped(const std::string& json) {
  std::string out;
  for (char c : json) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// "path:line:col" of the first `needle` in `path` after the first `after`.
std::string Where(const fs::path& path, const std::string& after, const std::string& needle) {
  const std::string text = ReadText(path);
  const size_t at = text.find(needle, text.find(after));
  EXPECT_NE(at, std::string::npos) << needle;
  size_t line = 1, col = 1;
  for (size_t i = 0; i < at; ++i) {
    col = text[i] == '\n' ? 1 : col + 1;
    line += text[i] == '\n';
  }
  return path.string() + ":" + std::to_string(line) + ":" + std::to_string(col);
}

// --- the corpus's q0f32 folder under a hand-made module ---

constexpr const char kLmHead[] = "lm_head.weight";

// A module whose packed_params are the corpus model's params (types from its _metadata, the
// symbolic vocab_size as 512), with that _metadata, and `main(x) = x @ lm_head^T`.
std::string CorpusModule() {
  nlohmann::json meta = MetadataOfDump(Corpus2026() / "llama-q0f32/cpu-pp1/debug-phase5.py");
  std::string fields;
  int lm_head = -1;
  for (size_t i = 0; i < meta["params"].size(); ++i) {
    const nlohmann::json& p = meta["params"][i];
    std::string shape;
    for (const auto& d : p["shape"]) {
      shape += (shape.empty() ? "" : ", ") + (d.is_string() ? std::string("512") : d.dump());
    }
    if (p["shape"].size() == 1) shape += ",";
    fields += (i ? ", " : "") + std::string("R.Tensor((") + shape + "), dtype=\"" +
              p["dtype"].get<std::string>() + "\")";
    if (p["name"] == kLmHead) lm_head = static_cast<int>(i);
  }
  EXPECT_GE(lm_head, 0);
  return R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def _metadata() -> R.Object:
        return R.str(")" +
         Escaped(meta.dump()) + R"(")

    @R.function
    def main(x: R.Tensor((1, 256), dtype="float32"), packed_params: R.Tuple()" +
         fields + R"()) -> R.Tensor((1, 512), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            w = packed_params[)" +
         std::to_string(lm_head) + R"(]
            wt = R.permute_dims(w)
            gv = R.matmul(x, wt)
            R.output(gv)
        return gv
)";
}

struct CorpusRun {
  fs::path dir;
  fs::path folder;  // a copy of the corpus folder, to break
  std::string Args() const {
    return "run " + (dir / "model.py").string() + " --params " + folder.string() + " --inputs " +
           (dir / "inputs.safetensors").string() + " -o " + (dir / "out.safetensors").string();
  }
};

CorpusRun MakeCorpusRun(const std::string& name) {
  CorpusRun run{ScratchDir("mlc_run_" + name), {}};
  run.folder = run.dir / "mlc";
  fs::copy(Corpus2026() / "llama-q0f32/mlc", run.folder);
  fs::permissions(run.folder, fs::perms::owner_all, fs::perm_options::add);
  for (const auto& entry : fs::directory_iterator(run.folder)) {
    fs::permissions(entry.path(), fs::perms::owner_read | fs::perms::owner_write,
                    fs::perm_options::add);
  }
  WriteText(run.dir / "model.py", CorpusModule());
  std::vector<float> x(256);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(static_cast<float>(i));
  runtime::Tensor input =
      runtime::FromBytes(DataType::Float(32), {1, 256}, x.data(), x.size() * sizeof(float));
  runtime::WriteSafetensors((run.dir / "inputs.safetensors").string(), {{{"x", input}}});
  return run;
}

TEST(MlcFolderCli, RunsOnTheCorpusFolderWithTheHfWeightsInBfloat16) {
  SKIP_WITHOUT_CORPUS();
  CorpusRun run = MakeCorpusRun("ok");
  Result r = Pipesplit(run.Args());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  runtime::Tensor out =
      runtime::SafetensorsFile::Open((run.dir / "out.safetensors").string()).Get("output_0");
  runtime::Tensor x =
      runtime::SafetensorsFile::Open((run.dir / "inputs.safetensors").string()).Get("x");
  runtime::Tensor w =
      runtime::SafetensorsFile::Open((Corpus2026() / "llama-q0f32/hf/model.safetensors").string())
          .Get(kLmHead);
  ASSERT_EQ(out.shape(), (runtime::Shape{1, 512}));
  for (int64_t v = 0; v < 512; ++v) {
    double want = 0;
    for (int64_t k = 0; k < 256; ++k) {
      const float rounded =
          runtime::BFloat16BitsToFloat(runtime::FloatToBFloat16Bits(w.data<float>()[v * 256 + k]));
      want += static_cast<double>(x.data<float>()[k]) * rounded;
    }
    EXPECT_NEAR(out.data<float>()[v], want, 1e-4) << v;
  }
}

TEST(MlcFolderCli, BrokenCorpusFoldersAreLocatedErrors) {
  SKIP_WITHOUT_CORPUS();
  {  // the shard cut short
    CorpusRun run = MakeCorpusRun("truncated");
    const fs::path shard = run.folder / "params_shard_0.bin";
    fs::resize_file(shard, fs::file_size(shard) / 2);
    Result r = Pipesplit(run.Args());
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_THAT(r.output, StartsWith(shard.string() + ": error: weight '"));
    EXPECT_THAT(r.output, HasSubstr("runs past the end of the file (3164416 bytes): the file is "
                                    "cut short"));
  }
  {  // the last record moved to params_shard_1.bin, which is missing
    CorpusRun run = MakeCorpusRun("shard1");
    const fs::path index = run.folder / "tensor-cache.json";
    nlohmann::ordered_json json = nlohmann::ordered_json::parse(ReadText(index));
    nlohmann::ordered_json last = json["records"][0]["records"].back();
    json["records"][0]["records"].erase(json["records"][0]["records"].size() - 1);
    const uint64_t nbytes = last["nbytes"];
    last["byteOffset"] = 0;
    json["records"].push_back({{"dataPath", "params_shard_1.bin"},
                               {"format", "raw-shard"},
                               {"nbytes", nbytes},
                               {"records", {last}}});
    WriteText(index, json.dump(4));
    Result r = Pipesplit(run.Args());
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_THAT(r.output, StartsWith((run.folder / "params_shard_1.bin").string() +
                                     ": error: cannot open: No such file or directory (it holds "
                                     "weight '" +
                                     last["name"].get<std::string>() + "' of " + index.string()));
  }
  {  // lm_head recorded as [256, 512]: the same bytes, not what main reads
    CorpusRun run = MakeCorpusRun("shape");
    const fs::path index = run.folder / "tensor-cache.json";
    std::string text = ReadText(index);
    const size_t record = text.find("\"name\": \"lm_head.weight\"");
    ASSERT_NE(record, std::string::npos);
    const size_t dims = text.find("512,", record);
    text.replace(dims, 4, "256,");
    text.replace(text.find("256\n", dims + 4), 3, "512");
    WriteText(index, text);
    Result r = Pipesplit(run.Args());
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_THAT(r.output, StartsWith(Where(index, "\"lm_head.weight\"", "[") +
                                     ": error: packed_params[26] ('lm_head.weight') is "
                                     "float32[256, 512] but 'main' reads it as "
                                     "float32[512, 256]"));
  }
  {  // malformed JSON
    CorpusRun run = MakeCorpusRun("malformed");
    const fs::path index = run.folder / "tensor-cache.json";
    std::string text = ReadText(index);
    text.replace(text.find("\"byteOffset\": 0"), 15, "\"byteOffset\": 0,");
    WriteText(index, text);
    Result r = Pipesplit(run.Args());
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_THAT(r.output, StartsWith(Where(index, "\"byteOffset\": 0,", "}") +
                                     ": error: malformed json: syntax error while parsing "
                                     "object key"))
        << r.output;
  }
}

TEST(MlcFolderCli, ParamNamesBindAModuleWithoutMetadata) {
  SKIP_WITHOUT_CORPUS();
  CorpusRun run = MakeCorpusRun("names");
  Result reference = Pipesplit(run.Args());
  ASSERT_EQ(reference.exit_code, 0) << reference.output;
  const std::string expected = ReadText(run.dir / "out.safetensors");
  // The same module without _metadata: its names come from --param-names.
  std::string text = ReadText(run.dir / "model.py");
  text.replace(text.find("def _metadata"), 13, "def _description");
  WriteText(run.dir / "model.py", text);
  Result r = Pipesplit(run.Args());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("error: " + run.folder.string() +
                                  ": an MLC folder's weights bind by name, and the module has no "
                                  "_metadata function naming them: give --param-names"));
  nlohmann::json meta = MetadataOfDump(Corpus2026() / "llama-q0f32/cpu-pp1/debug-phase5.py");
  nlohmann::json names = nlohmann::json::array();
  for (const auto& p : meta["params"]) names.push_back(p["name"]);
  WriteText(run.dir / "names.json", names.dump());
  fs::remove(run.dir / "out.safetensors");
  r = Pipesplit(run.Args() + " --param-names " + (run.dir / "names.json").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(ReadText(run.dir / "out.safetensors"), expected);
  // A module with _metadata as the names file.
  WriteText(run.dir / "names.py", CorpusModule());
  fs::remove(run.dir / "out.safetensors");
  r = Pipesplit(run.Args() + " --param-names " + (run.dir / "names.py").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(ReadText(run.dir / "out.safetensors"), expected);
  // Names a folder lacks.
  names[3] = "model.layers.0.self_attn.q_proj.weight";
  WriteText(run.dir / "names.json", names.dump());
  r = Pipesplit(run.Args() + " --param-names " + (run.dir / "names.json").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr(":1:"));
  EXPECT_THAT(r.output, HasSubstr(": error: weight 'model.layers.0.self_attn.q_proj.weight' "
                                  "(packed_params[3]) is not in " +
                                  (run.folder / "tensor-cache.json").string()));
}

// --- the serving example as an MLC folder ---

struct ServingFolder {
  fs::path dir;     // the example
  fs::path folder;  // its weights as an MLC folder, records in reverse order
  std::string Generate(const std::string& params, const std::string& out) const {
    return "generate " + (dir / "model.py").string() + " --params " + params + " --prompts " +
           (dir / "prompts.json").string() + " --max-new-tokens 6 -o " + (dir / out).string();
  }
  std::string GenerateMlc(const std::string& out) const {
    return Generate(folder.string(), out) + " --param-names " + (dir / "names.json").string();
  }
  void WriteConfig(const std::string& text) const {
    WriteText(folder / "mlc-chat-config.json", text);
  }
};

ServingFolder MakeServingFolder(const std::string& name) {
  ServingFolder s{ScratchDir("mlc_serving_" + name), {}};
  s.folder = s.dir / "mlc";
  Result r = Pipesplit(
      "example llama --serving --layers 4 --hidden 32 --heads 4 --kv-heads 2 --ffn 64 --vocab 64 "
      "--requests 5 --prompt-len 7 --stages 2 -o " +
      s.dir.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  runtime::SafetensorsFile file =
      runtime::SafetensorsFile::Open((s.dir / "params.safetensors").string());
  std::vector<TestRecord> records;
  for (const auto& [n, t] : file.GetAll()) records.insert(records.begin(), {n, t, false, 0});
  WriteMlcFolder(s.folder, records);
  for (const auto& [key, value] : file.metadata()) {
    if (key == "packed_params") WriteText(s.dir / "names.json", value);
  }
  return s;
}

nlohmann::json Output(const fs::path& path) { return nlohmann::json::parse(ReadText(path)); }

TEST(MlcFolderCli, GenerateFromAFolderWithItsConfigDefaults) {
  ServingFolder s = MakeServingFolder("config");
  Result r = Pipesplit(s.Generate((s.dir / "params.safetensors").string(), "st.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json st = Output(s.dir / "st.json");
  EXPECT_EQ(st["prefill_steps"], 1);

  // model_config.max_batch_size 2: two requests at a time, so three prefills.
  s.WriteConfig(
      R"({"context_window_size": 64, "prefill_chunk_size": 64, "model_config": {"max_batch_size": 2},
          "conv_template": {"stop_token_ids": [2]}, "temperature": 0.7, "top_p": 0.9})");
  r = Pipesplit(s.GenerateMlc("mlc.json") + " --verify");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("verified: 5 requests on 2 groups"));
  nlohmann::json mlc = Output(s.dir / "mlc.json");
  EXPECT_EQ(mlc["prefill_steps"], 3);
  for (size_t i = 0; i < 5; ++i) {  // greedy (the config's temperature is not used)
    EXPECT_EQ(mlc["requests"][i]["tokens"], st["requests"][i]["tokens"]) << i;
  }
  // The flag wins over the config.
  r = Pipesplit(s.GenerateMlc("flag.json") + " --max-batch-size 5");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(Output(s.dir / "flag.json")["prefill_steps"], 1);

  // A prefill chunk of 8 tokens: a step holds one prompt of 7, and as the running requests'
  // decode rows take their share of the 8, the last prompts enter in two chunks (7 steps).
  s.WriteConfig(R"({"prefill_chunk_size": 8, "context_window_size": 64})");
  r = Pipesplit(s.GenerateMlc("chunk.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(Output(s.dir / "chunk.json")["prefill_steps"], 7);
  EXPECT_EQ(Output(s.dir / "chunk.json")["requests"][4]["tokens"], st["requests"][4]["tokens"]);

  s.WriteConfig(R"({"context_window_size": 12})");
  r = Pipesplit(s.GenerateMlc("cw.json"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("error: prompt 0 has 7 tokens: with 6 new tokens it exceeds "
                                  "the context window of 12"));
  // A prefill chunk shorter than the prompts: they enter in chunks of 4 tokens.
  s.WriteConfig(R"({"prefill_chunk_size": 4})");
  r = Pipesplit(s.GenerateMlc("pc.json") + " --verify");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GE(Output(s.dir / "pc.json")["prefill_steps"], 9);  // 35 prompt tokens, 4 a step
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(Output(s.dir / "pc.json")["requests"][i]["tokens"], st["requests"][i]["tokens"]) << i;
  }
}

TEST(MlcFolderCli, AConfigFieldOfTheWrongTypeIsLocated) {
  ServingFolder s = MakeServingFolder("bad_config");
  s.WriteConfig("{\n  \"model_config\": {\"max_batch_size\": \"4\"}\n}");
  Result r = Pipesplit(s.GenerateMlc("bad.json"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, StartsWith((s.folder / "mlc-chat-config.json").string() +
                                   ":2:38: error: 'model_config.max_batch_size' must be an "
                                   "integer, got \"4\""));
  // Malformed JSON.
  s.WriteConfig("{ not json");
  r = Pipesplit(s.GenerateMlc("bad.json"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, StartsWith((s.folder / "mlc-chat-config.json").string() +
                                   ":1:4: error: malformed json"));
}

TEST(MlcFolderCli, ParamNamesWithASafetensorsFileIsAnError) {
  ServingFolder s = MakeServingFolder("names_st");
  Result r = Pipesplit(s.Generate((s.dir / "params.safetensors").string(), "x.json") +
                       " --param-names " + (s.dir / "names.json").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("error: --param-names names the weights of an MLC folder"));
}

}  // namespace
}  // namespace pipesplit::testing_cli
