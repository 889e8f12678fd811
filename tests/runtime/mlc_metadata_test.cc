// The rest of runtime/io's MLC support: the names of a module's _metadata function (hand-made
// classic-syntax modules), mlc-chat-config.json (the corpus's and broken ones, located), and
// the .npy writer (read back by NumPy).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "pipesplit/runtime/exec/weight_table.h"
#include "pipesplit/runtime/io/mlc_chat_config.h"
#include "pipesplit/runtime/io/mlc_folder.h"
#include "pipesplit/runtime/io/npy.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/support/diagnostic.h"
#include "tests/runtime/mlc_test_folder.h"

namespace pipesplit::runtime {
namespace {

using testing::HasSubstr;
using testing::StartsWith;
using testing_mlc::Corpus2026;
using testing_mlc::ReadWhole;
using testing_mlc::WriteMlcFolder;
namespace fs = std::filesystem;

fs::path Scratch(const std::string& name) {
  fs::path dir = fs::path(PIPESPLIT_BINARY_DIR) / "test-scratch" / ("mlc_meta_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A classic-syntax module whose packed_params are (b: float32[2], a: float32[2, 2]) and whose
// _metadata returns `metadata` (a Python string literal's contents).
std::string Module(const std::string& metadata) {
  return R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def _metadata() -> R.Object:
        return R.str(")" +
         metadata + R"(")

    @R.function
    def main(x: R.Tensor((2, 2), dtype="float32"), packed_params: R.Tuple(R.Tensor((2,), dtype="float32"), R.Tensor((2, 2), dtype="float32"))) -> R.Tensor((2, 2), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            b = packed_params[0]
            a = packed_params[1]
            lv = R.matmul(x, a)
            gv = R.add(lv, b)
            R.output(gv)
        return gv
)";
}

constexpr const char kParams[] =
    R"({\"model_type\": \"llama\", \"params\": [{\"name\": \"b\", \"shape\": [2], \"dtype\": \"float32\", \"preprocs\": []}, {\"name\": \"a\", \"shape\": [2, 2], \"dtype\": \"float32\", \"preprocs\": []}]})";

ir::IRModule Parse(const std::string& text, const std::string& name) {
  return script::ParseModule(SourceManager::Global().Add(name, text));
}

TEST(MlcMetadata, NamesComeFromTheMetadataFunction) {
  std::optional<MlcParamList> list = MlcParamsOfModule(Parse(Module(kParams), "meta.py"));
  ASSERT_TRUE(list.has_value());
  ASSERT_EQ(list->params.size(), 2u);
  EXPECT_EQ(list->params[0].name, "b");
  EXPECT_EQ(list->params[1].name, "a");
  EXPECT_EQ(list->source, "the _metadata of meta.py");
  EXPECT_TRUE(list->params[0].span.valid());
}

TEST(MlcMetadata, AModuleWithoutMetadataHasNoNames) {
  std::string text = Module(kParams);
  text.replace(text.find("def _metadata"), 13, "def _other");
  EXPECT_FALSE(MlcParamsOfModule(Parse(text, "nometa.py")).has_value());
}

// The folder's records in the opposite order; bound by the module's names and checked against
// its packed_params types.
TEST(MlcMetadata, BindsAFolderAndChecksItAgainstTheModule) {
  fs::path dir = Scratch("bind");
  Tensor a = MakeTensor(DataType::Float(32), {2, 2}, {1, 2, 3, 4});
  Tensor b = MakeTensor(DataType::Float(32), {2}, {5, 6});
  WriteMlcFolder(dir, {{"a", a, true}, {"b", b, true}});
  ir::IRModule mod = Parse(Module(kParams), "bind.py");
  MlcWeights weights(MlcTensorCache::Open(dir.string()), *MlcParamsOfModule(mod));
  EXPECT_TRUE(BitwiseEqual(weights.Load(0), b));
  EXPECT_TRUE(BitwiseEqual(weights.Load(1), a));
  EXPECT_NO_THROW(CheckWeightTypes(mod, weights));

  // The names swapped: 'a' stands where main reads a float32[2]; located at a's shape.
  std::string swapped = kParams;
  std::swap(swapped[swapped.find("\\\"b\\\"") + 2], swapped[swapped.find("\\\"a\\\"") + 2]);
  ir::IRModule wrong = Parse(Module(swapped), "swapped.py");
  MlcWeights misbound(MlcTensorCache::Open(dir.string()), *MlcParamsOfModule(wrong));
  try {
    CheckWeightTypes(wrong, misbound);
    FAIL();
  } catch (const DiagnosticError& e) {
    const std::string index = (dir / "tensor-cache.json").string();
    EXPECT_THAT(e.what(), StartsWith(index + ":13:30: error: packed_params[0] ('a') is "
                                             "float32[2, 2] but 'main' reads it as float32[2]"))
        << ReadWhole(index);
  }
}

TEST(MlcMetadata, MalformedMetadataIsLocatedAtTheLiteral) {
  for (const auto& [json, message] : std::vector<std::pair<std::string, std::string>>{
           {R"({\"params\": [})", "malformed json at byte 12: syntax error while parsing value"},
           {R"({\"params\": 3})", "'params' must be a list, got 3"},
           {R"({\"params\": [{\"shape\": [2]}]})", "'params[0]' has no field 'name'"},
           {R"({\"model\": 1})", "missing field 'params'"},
           {R"({\"params\": [{\"name\": 7}]})", "'params[0].name' must be a string, got 7"}}) {
    try {
      MlcParamsOfModule(Parse(Module(json), "bad_meta.py"));
      ADD_FAILURE() << json;
    } catch (const DiagnosticError& e) {
      EXPECT_THAT(e.what(),
                  StartsWith("bad_meta.py:8:16: error: the _metadata of bad_meta.py: " + message))
          << e.what();
    }
  }
}

TEST(MlcChatConfigTest, ReadsTheCorpusConfig) {
  const fs::path path = Corpus2026() / "llama-q0f32/mlc/mlc-chat-config.json";
  if (!fs::exists(path)) GTEST_SKIP() << "../shared/corpus/mlc-llm-2026 is absent";
  MlcChatConfig c = ReadMlcChatConfig(path.string());
  EXPECT_EQ(c.context_window_size, 256);
  EXPECT_EQ(c.prefill_chunk_size, 64);
  EXPECT_EQ(c.max_batch_size, 4);
  EXPECT_EQ(c.stop_token_ids, std::vector<int32_t>{2});
  EXPECT_EQ(c.eos_token_ids, std::vector<int32_t>{2});
  EXPECT_EQ(c.temperature, 1.0);
  EXPECT_EQ(c.top_p, 1.0);
  EXPECT_EQ(c.tokenizer_files, std::vector<std::string>{"tokenizer.model"});
}

TEST(MlcChatConfigTest, FieldsOfTheWrongTypeAreLocated) {
  const fs::path path = Scratch("config") / "mlc-chat-config.json";
  for (const auto& [text, where, message] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"{\n  \"context_window_size\": \"256\"\n}", ":2:26",
            "'context_window_size' must be an integer, got \"256\""},
           {"{\"model_config\": {\"max_batch_size\": 2.5}}", ":1:37",
            "'model_config.max_batch_size' must be an integer, got 2.5"},
           {"{\"conv_template\": {\"stop_token_ids\": [2, -1]}}", ":1:42",
            "'conv_template.stop_token_ids[1]' must be a token id, got -1"},
           {"{\"eos_token_id\": [2, \"x\"]}", ":1:22",
            "'eos_token_id[1]' must be an integer, got \"x\""},
           {"{\"top_p\": true}", ":1:11", "'top_p' must be a number, got true"},
           {"{\"tokenizer_files\": \"tokenizer.model\"}", ":1:21",
            "'tokenizer_files' must be a list, got \"tokenizer.model\""},
           {"{\"prefill_chunk_size\": 0}", ":1:24",
            "'prefill_chunk_size' must be positive or -1, got 0"},
           {"{\"temperature\": 1.0,}", ":1:21", "malformed json: syntax error"},
           {"[1]", ":1:1", "mlc-chat-config.json must be an object"}}) {
    std::ofstream(path, std::ios::binary) << text;
    try {
      ReadMlcChatConfig(path.string());
      ADD_FAILURE() << text;
    } catch (const DiagnosticError& e) {
      EXPECT_THAT(e.what(), StartsWith(path.string() + where + ": error: " + message)) << e.what();
    }
  }
  std::ofstream(path, std::ios::binary) << "{\"eos_token_id\": 7, \"model_config\": {}}";
  MlcChatConfig c = ReadMlcChatConfig(path.string());
  EXPECT_EQ(c.eos_token_ids, std::vector<int32_t>{7});
  EXPECT_FALSE(c.max_batch_size.has_value());
  EXPECT_THROW(ReadMlcChatConfig((Scratch("none") / "absent.json").string()), RuntimeError);
}

// Runs a Python snippet with Debian's python3 (numpy); exit 77 when numpy is missing.
int Python(const std::string& code, std::string* output) {
  const std::string python = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  const fs::path script = Scratch("py") / "check.py";
  std::ofstream(script) << "import sys\ntry:\n    import numpy as np\nexcept ImportError:\n"
                           "    sys.exit(77)\n"
                        << code;
  FILE* pipe = popen((python + " " + script.string() + " 2>&1").c_str(), "r");
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) output->append(buffer, n);
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

TEST(Npy, NumpyReadsWhatTheWriterWrites) {
  fs::path dir = Scratch("npy");
  const float nan = std::nanf("");
  WriteNpy((dir / "f32.npy").string(),
           MakeTensor(DataType::Float(32), {2, 1, 3}, {1, -2.5, 3, nan, 1e-30, 65504}));
  WriteNpy((dir / "i32.npy").string(), MakeIntTensor(DataType::Int(32), {4}, {-1, 0, 7, 1 << 30}));
  WriteNpy((dir / "u8.npy").string(), MakeIntTensor(DataType::UInt(8), {}, {200}));
  WriteNpy((dir / "f16.npy").string(), MakeTensor(DataType::Float(16), {2}, {0.5, -1}));
  WriteNpy((dir / "bool.npy").string(), MakeIntTensor(DataType::Bool(), {3}, {1, 0, 1}));
  WriteNpy((dir / "empty.npy").string(), MakeTensor(DataType::Float(64), {0, 5}, {}));
  EXPECT_EQ(SerializeNpy(MakeScalar(DataType::Float(32), 1)).size() % 64, 4u);
  std::string out;
  const int code = Python("d = '" + dir.string() + "/'\n" +
                              R"(a = np.load(d + 'f32.npy')
assert a.dtype == np.float32 and a.shape == (2, 1, 3), (a.dtype, a.shape)
assert a[0, 0].tolist() == [1.0, -2.5, 3.0] and np.isnan(a[1, 0, 0]) and a[1, 0, 2] == 65504
assert np.load(d + 'i32.npy').tolist() == [-1, 0, 7, 1 << 30]
u = np.load(d + 'u8.npy'); assert u.dtype == np.uint8 and u.shape == () and u == 200
h = np.load(d + 'f16.npy'); assert h.dtype == np.float16 and h.tolist() == [0.5, -1.0]
assert np.load(d + 'bool.npy').tolist() == [True, False, True]
e = np.load(d + 'empty.npy'); assert e.shape == (0, 5) and e.dtype == np.float64
with open(d + 'f32.npy', 'rb') as f:
    head = f.read(10)
assert head[6:8] == bytes([1, 0]) and (10 + int.from_bytes(head[8:10], 'little')) % 64 == 0
print('ok')
)",
                          &out);
  if (code == 77) GTEST_SKIP() << "numpy is missing";
  EXPECT_EQ(code, 0) << out;
  EXPECT_THAT(out, HasSubstr("ok"));
  EXPECT_THROW(WriteNpy((dir / "bf.npy").string(), MakeTensor(DataType::BFloat16(), {1}, {1})),
               RuntimeError);
}

}  // namespace
}  // namespace pipesplit::runtime
