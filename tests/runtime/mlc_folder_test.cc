// MLC model folders (runtime/io/mlc_folder.h): hand-made folders of every record kind and their
// faults as located errors, and the 2026 corpus folders (read in place, skipped when absent):
// every record loads with its dtype and shape, f32-to-bf16 decodes exactly the Hugging Face
// weights rounded to bfloat16 (nearest even), the bfloat16 index gives the same bits, and
// weights bind by the _metadata names, whose order is not the records' order.
#include "pipesplit/runtime/io/mlc_folder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "pipesplit/runtime/io/safetensors.h"
#include "pipesplit/support/diagnostic.h"
#include "tests/runtime/mlc_test_folder.h"

namespace pipesplit::runtime {
namespace {

using testing::HasSubstr;
using testing_mlc::Corpus2026;
using testing_mlc::MetadataOfDump;
using testing_mlc::ReadWhole;
using testing_mlc::TestRecord;
using testing_mlc::WriteMlcFolder;
namespace fs = std::filesystem;

fs::path Scratch(const std::string& name) {
  fs::path dir = fs::path(PIPESPLIT_BINARY_DIR) / "test-scratch" / ("mlc_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::vector<float> Iota(int64_t n, float scale) {
  std::vector<float> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(scale * static_cast<float>(i) - 1.0f / 3.0f);
  return v;
}

Tensor Floats(Shape shape, float scale) {
  const int64_t n = ShapeNumel(shape);
  std::vector<float> v = Iota(n, scale);
  return FromBytes(DataType::Float(32), shape, v.data(), v.size() * 4);
}

MlcParamList Names(std::vector<std::string> names) {
  MlcParamList list{"names", {}, 1, {}};
  for (std::string& n : names) list.params.push_back({std::move(n), {}, Span{}, std::nullopt});
  return list;
}

uint32_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

TEST(MlcFolder, LoadsEveryRecordKindFromSeveralShards) {
  fs::path dir = Scratch("kinds");
  Tensor w = Floats({3, 5}, 0.37f);
  Tensor half = MakeTensor(DataType::Float(16), {4}, {1.5, -2, 0.25, 65504});
  Tensor packed = MakeIntTensor(DataType::UInt(32), {2, 2}, {0xdeadbeef, 1, 2, 0xffffffff});
  Tensor bytes = MakeIntTensor(DataType::Int(8), {3}, {-128, 0, 127});
  Tensor ints = MakeIntTensor(DataType::Int(32), {2}, {-7, 1 << 30});
  Tensor bf = MakeTensor(DataType::BFloat16(), {2}, {1.5, -3});
  WriteMlcFolder(dir, {{"w", w, true, 0},
                       {"int8", bytes, true, 0},  // f32-to-bf16 applies to float32 only
                       {"half", half, true, 1},   // misaligned after the int8 record: copied
                       {"packed", packed, false, 1},
                       {"ints", ints, false, 1},
                       {"bf", bf, false, 0}});
  MlcTensorCache cache = MlcTensorCache::Open(dir.string());
  ASSERT_EQ(cache.records().size(), 6u);
  EXPECT_EQ(cache.records()[0].stored_dtype(), DataType::BFloat16());
  EXPECT_EQ(cache.records()[1].stored_dtype(), DataType::Int(8));
  Tensor loaded = cache.Load(*cache.Find("w"));
  ASSERT_EQ(loaded.dtype(), DataType::Float(32));
  ASSERT_EQ(loaded.shape(), (Shape{3, 5}));
  for (int64_t i = 0; i < w.numel(); ++i) {
    const uint32_t want = static_cast<uint32_t>(FloatToBFloat16Bits(w.data<float>()[i])) << 16;
    EXPECT_EQ(Bits(loaded.data<float>()[i]), want) << i;
  }
  for (const auto& [name, t] : std::vector<std::pair<std::string, Tensor>>{
           {"half", half}, {"packed", packed}, {"int8", bytes}, {"ints", ints}, {"bf", bf}}) {
    EXPECT_TRUE(BitwiseEqual(cache.Load(*cache.Find(name)), t)) << name;
  }
  // Aligned raw records view the mapping.
  EXPECT_EQ(cache.Load(*cache.Find("packed")).storage(), cache.Load(*cache.Find("ints")).storage());
}

TEST(MlcFolder, BindsByNameNotByRecordOrder) {
  fs::path dir = Scratch("bind");
  WriteMlcFolder(dir, {{"b", Floats({2}, 1), false}, {"a", Floats({2, 2}, 2), false}});
  MlcWeights weights(MlcTensorCache::Open(dir.string()), Names({"a", "b"}));
  ASSERT_EQ(weights.size(), 2);
  EXPECT_EQ(weights.Name(0), "a");
  EXPECT_EQ(weights.Load(0).shape(), (Shape{2, 2}));
  EXPECT_EQ(weights.Load(1).shape(), (Shape{2}));
  EXPECT_EQ(weights.TypeOf(0).second, (Shape{2, 2}));
  EXPECT_EQ(weights.Locate(1).file, (dir / "tensor-cache.json").string());
  EXPECT_TRUE(weights.Locate(1).shape.valid());
}

TEST(MlcFolder, PrefersTensorCacheOverNdarrayCache) {
  fs::path dir = Scratch("names");
  WriteMlcFolder(dir, {{"a", Floats({2}, 1), false}}, "ndarray-cache.json");
  EXPECT_TRUE(MlcTensorCache::IsFolder(dir.string()));
  EXPECT_EQ(MlcTensorCache::Open(dir.string()).index_path(), (dir / "ndarray-cache.json").string());
  WriteMlcFolder(dir, {{"a", Floats({2}, 1), false}});
  std::ofstream(dir / "ndarray-cache.json") << "{ broken";
  EXPECT_EQ(MlcTensorCache::Open(dir.string()).index_path(), (dir / "tensor-cache.json").string());
  EXPECT_FALSE(MlcTensorCache::IsFolder(Scratch("empty").string()));
  EXPECT_THROW(MlcTensorCache::Open(Scratch("empty").string()), RuntimeError);
}

// "<index>:<line>:<col>" of the `occurrence`-th (0-based) `needle` in the index text, `shift`
// bytes on.
std::string Where(const fs::path& index, const std::string& needle, int occurrence = 0,
                  size_t shift = 0) {
  const std::string text = ReadWhole(index);
  size_t at = text.find(needle);
  for (int i = 0; i < occurrence && at != std::string::npos; ++i) at = text.find(needle, at + 1);
  EXPECT_NE(at, std::string::npos) << needle;
  at += shift;
  size_t line = 1, col = 1;
  for (size_t i = 0; i < at; ++i) {
    col = text[i] == '\n' ? 1 : col + 1;
    line += text[i] == '\n';
  }
  return index.string() + ":" + std::to_string(line) + ":" + std::to_string(col);
}

// Opening `dir` (binding `names` when given) fails with a DiagnosticError whose first line is
// `<where>: error: <message>`.
void ExpectLocated(const fs::path& dir, const std::string& where, const std::string& message,
                   const std::vector<std::string>& names = {}) {
  try {
    MlcTensorCache cache = MlcTensorCache::Open(dir.string());
    MlcWeights weights(std::move(cache), Names(names));
    FAIL() << "no error for " << message;
  } catch (const DiagnosticError& e) {
    EXPECT_THAT(e.what(), testing::StartsWith(where + ": error: " + message)) << e.what();
  }
}

// The folder of `records` whose index text is edited: `from` replaced by `to`.
fs::path Edited(const std::string& name, const std::string& from, const std::string& to) {
  fs::path dir = Scratch(name);
  WriteMlcFolder(dir, {{"a", Floats({2, 3}, 1), true}, {"b", Floats({4}, 1), false}});
  std::string text = ReadWhole(dir / "tensor-cache.json");
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  std::ofstream(dir / "tensor-cache.json", std::ios::binary) << text;
  return dir;
}

TEST(MlcFolderErrors, IndexFaultsAreLocatedAtTheField) {
  fs::path index;
  fs::path dir = Edited("nbytes", "\"nbytes\": 12,", "\"nbytes\": 24,");
  index = dir / "tensor-cache.json";
  ExpectLocated(dir, Where(index, "24"),
                "weight 'a': nbytes is 24 but float32[2, 3] stored as bfloat16 (f32-to-bf16) "
                "takes 12 bytes");
  dir = Edited("dtype", "\"float32\"", "\"float7\"");
  ExpectLocated(dir, Where(dir / "tensor-cache.json", "\"float7\""),
                "weight 'a': unsupported dtype 'float7'");
  dir = Edited("shape_type", "\"shape\": [\n                        2,", "\"shape\": [\n\"2\",");
  ExpectLocated(dir, Where(dir / "tensor-cache.json", "\"2\""),
                "'records[0].records[0].shape[0]' must be a non-negative integer, got \"2\"");
  dir = Edited("format", "\"f32-to-bf16\"", "\"q4\"");
  ExpectLocated(dir, Where(dir / "tensor-cache.json", "\"q4\""),
                "weight 'a': unknown record format 'q4' (expected 'raw' or 'f32-to-bf16')");
  dir = Edited("offset", "\"byteOffset\": 12", "\"byteOffset\": 16");
  ExpectLocated(dir, Where(dir / "tensor-cache.json", "16\n"),
                "weight 'b': bytes [16, 32) run past the 28 bytes of shard 'params_shard_0.bin'");
  dir = Edited("missing", "\"byteOffset\": 12", "\"offset\": 12");
  ExpectLocated(dir, Where(dir / "tensor-cache.json", "{", 4),
                "'records[0].records[1]' has no field 'byteOffset'");
  dir = Edited("twice", "\"name\": \"b\"", "\"name\": \"a\"");
  ExpectLocated(dir, Where(dir / "tensor-cache.json", "{", 4), "weight 'a' is recorded twice");
  dir = Edited("malformed", "\"records\": [", "\"records\": [,");
  ExpectLocated(dir, Where(dir / "tensor-cache.json", "[,", 0, 1),
                "malformed json: syntax error while parsing value - unexpected ','");
}

TEST(MlcFolderErrors, BindingFaultsAreLocatedAtTheName) {
  fs::path dir = Scratch("bind_errors");
  WriteMlcFolder(dir, {{"a", Floats({2}, 1), false}});
  fs::path names = dir / "names.json";
  std::ofstream(names) << "[\"a\",\n \"zz\"]";
  try {
    MlcWeights weights(MlcTensorCache::Open(dir.string()), MlcParamsFromJsonFile(names.string()));
    FAIL();
  } catch (const DiagnosticError& e) {
    EXPECT_THAT(e.what(), testing::StartsWith(names.string() +
                                              ":2:2: error: weight 'zz' "
                                              "(packed_params[1]) is not in " +
                                              (dir / "tensor-cache.json").string()));
  }
  // A preproc takes the weight as stored: its in_shape must be the record's.
  std::ofstream(names) << "{\"params\": [{\"name\": \"a\", \"preprocs\": [{\"func_name\": "
                          "\"_shard_qkv\", \"in_shape\": [3], \"out_shape\": [2, 1], "
                          "\"out_dtype\": \"float32\"}]}]}";
  try {
    MlcWeights weights(MlcTensorCache::Open(dir.string()), MlcParamsFromJsonFile(names.string()));
    FAIL();
  } catch (const DiagnosticError& e) {
    EXPECT_THAT(e.what(), HasSubstr(":1:40: error: weight 'a' (packed_params[0]) is stored as [2] "
                                    "in " +
                                    (dir / "tensor-cache.json").string() +
                                    " but its preproc '_shard_qkv' takes [3]"));
  }
  // A preproc entry lacking a field.
  std::ofstream(names) << "{\"params\": [{\"name\": \"a\", \"preprocs\": [{\"func_name\": "
                          "\"_shard_qkv\"}]}]}";
  EXPECT_THROW(MlcParamsFromJsonFile(names.string()), DiagnosticError);
  std::ofstream(names) << "[\"a\", \"a\"]";
  EXPECT_THROW(
      MlcWeights(MlcTensorCache::Open(dir.string()), MlcParamsFromJsonFile(names.string())),
      DiagnosticError);
  std::ofstream(names) << "[\"a\", 3]";
  try {
    MlcParamsFromJsonFile(names.string());
    FAIL();
  } catch (const DiagnosticError& e) {
    EXPECT_THAT(e.what(), HasSubstr(":1:7: error: '[1]' must be a weight name or an object"));
  }
}

TEST(MlcFolderErrors, DataFileFaultsNameTheWeight) {
  fs::path dir = Scratch("shards");
  WriteMlcFolder(dir, {{"a", Floats({2}, 1), false, 0},
                       {"b", Floats({8}, 1), false, 1},
                       {"c", Floats({8}, 1), false, 1}});
  const std::string shard1 = (dir / "params_shard_1.bin").string();
  const std::string bytes = ReadWhole(shard1);
  std::ofstream(shard1, std::ios::binary) << bytes.substr(0, 40);
  try {
    MlcTensorCache::Open(dir.string());
    FAIL();
  } catch (const DataFileError& e) {
    EXPECT_EQ(e.Report(), shard1 +
                              ": error: weight 'c' (bytes [32, 64)) runs past the end of the "
                              "file (40 bytes): the file is cut short\n");
  }
  fs::remove(shard1);
  try {
    MlcTensorCache::Open(dir.string());
    FAIL();
  } catch (const DataFileError& e) {
    EXPECT_THAT(e.Report(), testing::StartsWith(shard1 + ": error: cannot open: No such file"));
    EXPECT_THAT(e.Report(), HasSubstr("it holds weight 'b' and 1 more"));
  }
}

// --- the 2026 corpus ---

#define SKIP_WITHOUT_CORPUS()                                  \
  if (!fs::exists(Corpus2026() / "README.md")) {               \
    GTEST_SKIP() << "../shared/corpus/mlc-llm-2026 is absent"; \
  }

// The _metadata params of a folder's phase-5 dump: name -> (dtype, shape with symbolic dims as
// the config's sizes), in packed_params order.
struct MetaParam {
  std::string name;
  DataType dtype;
  Shape shape;
};
std::vector<MetaParam> MetadataParams(const std::string& model) {
  nlohmann::json meta = MetadataOfDump(Corpus2026() / model / "cpu-pp1/debug-phase5.py");
  EXPECT_FALSE(meta.is_null());
  std::vector<MetaParam> out;
  for (const auto& p : meta["params"]) {
    MetaParam m{p["name"], *DataType::Parse(p["dtype"].get<std::string>()), {}};
    for (const auto& d : p["shape"]) m.shape.push_back(d.is_string() ? 512 : d.get<int64_t>());
    out.push_back(m);
  }
  return out;
}

void ExpectEveryRecordLoads(const std::string& model, size_t count) {
  MlcTensorCache cache = MlcTensorCache::Open((Corpus2026() / model / "mlc").string());
  ASSERT_EQ(cache.records().size(), count);
  std::vector<MetaParam> meta = MetadataParams(model);
  ASSERT_EQ(meta.size(), count);
  MlcParamList names{"_metadata", {}, 1, {}};
  for (const MetaParam& m : meta) names.params.push_back({m.name, {}, Span{}, std::nullopt});
  MlcWeights weights(cache, names);
  bool order_differs = false;
  for (size_t i = 0; i < meta.size(); ++i) {
    Tensor t = weights.Load(static_cast<int64_t>(i));
    EXPECT_EQ(t.dtype(), meta[i].dtype) << meta[i].name;
    EXPECT_EQ(t.shape(), meta[i].shape) << meta[i].name;
    EXPECT_EQ(weights.Name(static_cast<int64_t>(i)), meta[i].name);
    order_differs |= cache.records()[i].name != meta[i].name;
  }
  EXPECT_TRUE(order_differs) << "the record order is the _metadata order; the test proves less";
}

TEST(MlcCorpus, Q0f32LoadsEveryRecordBoundByMetadata) {
  SKIP_WITHOUT_CORPUS();
  ExpectEveryRecordLoads("llama-q0f32", 27);
}

TEST(MlcCorpus, Q4f16LoadsEveryRecordBoundByMetadata) {
  SKIP_WITHOUT_CORPUS();
  ExpectEveryRecordLoads("llama-q4f16_1", 45);
  MlcTensorCache cache = MlcTensorCache::Open((Corpus2026() / "llama-q4f16_1/mlc").string());
  const MlcRecord* q = cache.Find("model.layers.0.self_attn.qkv_proj.q_weight");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->format, MlcRecordFormat::kF32ToBf16);  // as written, but stored as uint32
  EXPECT_EQ(cache.Load(*q).dtype(), DataType::UInt(32));
  EXPECT_EQ(cache.Load(*q).shape(), (Shape{512, 32}));
}

// The hf tensor (or concatenation along dim 0) an MLC weight was converted from.
Tensor HfSource(const SafetensorsFile& hf, const std::string& name) {
  auto concat = [&](const std::vector<std::string>& parts) {
    std::vector<Tensor> ts;
    int64_t rows = 0;
    for (const std::string& p : parts) {
      ts.push_back(hf.Get(p));
      rows += ts.back().shape()[0];
    }
    TensorBuilder b(DataType::Float(32), {rows, ts[0].shape()[1]});
    char* out = static_cast<char*>(b.raw_data());
    for (const Tensor& t : ts) {
      std::memcpy(out, t.raw_data(), static_cast<size_t>(t.nbytes()));
      out += t.nbytes();
    }
    return std::move(b).Publish();
  };
  auto replace = [&](const std::string& from, const std::vector<std::string>& to) {
    std::vector<std::string> parts;
    for (const std::string& t : to) {
      std::string n = name;
      parts.push_back(n.replace(n.find(from), from.size(), t));
    }
    return concat(parts);
  };
  if (name.find("qkv_proj") != std::string::npos) {
    return replace("qkv_proj", {"q_proj", "k_proj", "v_proj"});
  }
  if (name.find("gate_up_proj") != std::string::npos) {
    return replace("gate_up_proj", {"gate_proj", "up_proj"});
  }
  return hf.Get(name);
}

TEST(MlcCorpus, F32ToBf16IsTheHfWeightRoundedToNearestEven) {
  SKIP_WITHOUT_CORPUS();
  const fs::path model = Corpus2026() / "llama-q0f32";
  SafetensorsFile hf = SafetensorsFile::Open((model / "hf/model.safetensors").string());
  MlcTensorCache cache = MlcTensorCache::Open((model / "mlc").string());
  int64_t elements = 0, truncation_agrees = 0;
  for (const MlcRecord& r : cache.records()) {
    ASSERT_EQ(r.format, MlcRecordFormat::kF32ToBf16) << r.name;
    Tensor mlc = cache.Load(r);
    Tensor source = HfSource(hf, r.name);
    ASSERT_EQ(source.shape(), mlc.shape()) << r.name;
    for (int64_t i = 0; i < mlc.numel(); ++i) {
      const float x = source.data<float>()[i];
      const uint32_t want = static_cast<uint32_t>(FloatToBFloat16Bits(x)) << 16;
      ASSERT_EQ(Bits(mlc.data<float>()[i]), want) << r.name << " element " << i;
      truncation_agrees += (Bits(x) & 0xffff0000u) == want;
      ++elements;
    }
  }
  EXPECT_EQ(elements, 12657664 / 4);
  // Truncation is not what MLC does: about half the elements round up.
  EXPECT_LT(truncation_agrees, elements * 6 / 10);
}

TEST(MlcCorpus, Bfloat16IndexGivesTheSameBits) {
  SKIP_WITHOUT_CORPUS();
  const fs::path mlc = Corpus2026() / "llama-q0f32/mlc";
  MlcTensorCache f32 = MlcTensorCache::Open(mlc.string());
  MlcTensorCache b16 = MlcTensorCache::OpenIndex((mlc / "tensor-cache-b16.json").string());
  ASSERT_EQ(b16.records().size(), f32.records().size());
  for (const MlcRecord& r : b16.records()) {
    ASSERT_EQ(r.dtype, DataType::BFloat16()) << r.name;
    ASSERT_EQ(r.format, MlcRecordFormat::kRaw) << r.name;
    Tensor raw = b16.Load(r);
    Tensor decoded = f32.Load(*f32.Find(r.name));
    ASSERT_EQ(raw.shape(), decoded.shape());
    for (int64_t i = 0; i < raw.numel(); ++i) {
      ASSERT_EQ(static_cast<uint32_t>(raw.data<uint16_t>()[i]) << 16,
                Bits(decoded.data<float>()[i]))
          << r.name << " element " << i;
    }
  }
}

}  // namespace
}  // namespace pipesplit::runtime
