// safetensors: round trips through files and memory, the exact byte layout, and every
// malformed-file error.
#include "pipesplit/runtime/io/safetensors.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pipesplit/runtime/io/weights.h"
#include "pipesplit/runtime/kernels/elementwise.h"
#include "tests/runtime/test_util.h"

namespace pipesplit::runtime {
namespace {

using namespace testing;  // NOLINT

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "pipesplit_" + std::to_string(::getpid()) + "_" + name;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string LittleEndian64(uint64_t v) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  return out;
}

// A file image: size prefix (the header's length unless given), header, data.
std::string Image(const std::string& header, const std::string& data,
                  std::optional<uint64_t> size = std::nullopt) {
  return LittleEndian64(size.value_or(header.size())) + header + data;
}

SafetensorsFile Parse(const std::string& image) {
  auto owner = std::make_shared<std::string>(image);
  return SafetensorsFile::FromMemory("mem", owner, owner->data(), owner->size());
}

std::vector<NamedTensor> SampleTensors() {
  return {
      {"weight", F32({2, 3}, {1, 2, 3, 4, 5, 6})},    {"ids", I64({3}, {7, -8, 9})},
      {"scale", MakeTensor(kBF16, {2}, {0.5, -1.5})}, {"mask", Bools({3}, {1, 0, 1})},
      {"empty", MakeTensor(kF16, {0}, {})},           {"step", MakeTensor(kU8, {}, {200})},
      {"half", MakeTensor(kF16, {3}, {1, 0.1, -2})},
  };
}

TEST(SafetensorsTest, RoundTripsThroughAFile) {
  const std::string path = TempPath("roundtrip.safetensors");
  const std::vector<NamedTensor> tensors = SampleTensors();
  const SafetensorsMetadata metadata = {{"format", "pt"}, {"note", "x"}};
  WriteSafetensors(path, tensors, metadata);
  const std::string bytes = ReadAll(path);
  EXPECT_EQ(bytes, SerializeSafetensors(tensors, metadata));
  uint64_t header_size = 0;
  for (int i = 7; i >= 0; --i) header_size = (header_size << 8) | static_cast<uint8_t>(bytes[i]);
  EXPECT_EQ((8 + header_size) % 8, 0u);

  Tensor kept;
  {
    const SafetensorsFile file = SafetensorsFile::Open(path);
    EXPECT_EQ(file.display_name(), path);
    EXPECT_EQ(file.names(), (std::vector<std::string>{"weight", "ids", "scale", "mask", "empty",
                                                      "step", "half"}));
    EXPECT_EQ(file.metadata(), metadata);
    for (const auto& [name, tensor] : tensors) {
      EXPECT_TRUE(file.Contains(name));
      EXPECT_TRUE(BitwiseEqual(file.Get(name), tensor)) << name;
    }
    EXPECT_FALSE(file.Contains("nope"));
    EXPECT_EQ(file.GetAll().size(), tensors.size());
    kept = file.Get("weight");
  }
  // The mapping outlives the file object while a tensor views it.
  ExpectTensor(kept, kF32, {2, 3}, {1, 2, 3, 4, 5, 6});
  std::remove(path.c_str());
}

TEST(SafetensorsTest, ExactLayout) {
  const std::vector<NamedTensor> one = {{"a", F32({1}, {1})}};
  // 54 bytes of JSON padded with two spaces so the data starts at byte 64.
  const std::string header = R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  const std::string expected =
      LittleEndian64(56) + header + "  " + std::string("\x00\x00\x80\x3f", 4);
  EXPECT_EQ(SerializeSafetensors(one), expected);
  const std::string with_meta =
      R"({"__metadata__":{"k":"v"},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  const std::string serialized = SerializeSafetensors(one, {{"k", "v"}});
  EXPECT_EQ(serialized.substr(8, with_meta.size()), with_meta);
}

TEST(SafetensorsTest, ViewsTheMappingAndCopiesMisalignedTensors) {
  // A float16 of 2 bytes puts the float32 after it at data offset 2.
  const std::vector<NamedTensor> tensors = {{"h", MakeTensor(kF16, {1}, {1})},
                                            {"f", F32({1}, {3.5})}};
  auto owner = std::make_shared<std::string>(SerializeSafetensors(tensors));
  const SafetensorsFile file =
      SafetensorsFile::FromMemory("mem", owner, owner->data(), owner->size());
  const Tensor h = file.Get("h");
  const Tensor f = file.Get("f");
  const char* begin = owner->data();
  const char* end = begin + owner->size();
  EXPECT_TRUE(static_cast<const char*>(h.raw_data()) >= begin &&
              static_cast<const char*>(h.raw_data()) < end);
  EXPECT_FALSE(static_cast<const char*>(f.raw_data()) >= begin &&
               static_cast<const char*>(f.raw_data()) < end);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(f.raw_data()) % 4, 0u);
  ExpectTensor(f, kF32, {1}, {3.5});
  ExpectTensor(h, kF16, {1}, {1});
}

// Weight files read into huge-page memory give the tensors a mapped file gives; files under
// 2 MiB are always mapped.
TEST(SafetensorsTest, HugePagesAndMappedFilesGiveTheSameTensors) {
  const WeightMemory before = WeightMemoryMode();
  std::vector<float> values(3 << 20 >> 2);  // 3 MiB of float32
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 1000) * 0.25f;
  Shape shape{static_cast<int64_t>(values.size())};
  const std::vector<NamedTensor> big = {
      {"w", FromBytes(kF32, shape, values.data(), values.size() * sizeof(float))},
      {"ids", I64({3}, {7, -8, 9})}};
  const std::string path = TempPath("huge.safetensors");
  WriteSafetensors(path, big, {});
  std::vector<Tensor> read[2];
  for (WeightMemory mode : {WeightMemory::kHugePages, WeightMemory::kMapped}) {
    SetWeightMemoryMode(mode);
    EXPECT_EQ(WeightMemoryMode(), mode);
    const SafetensorsFile file = SafetensorsFile::Open(path);
    read[static_cast<int>(mode)] = {file.Get("w"), file.Get("ids")};
  }
  for (int i = 0; i < 2; ++i) {
    const Tensor& a = read[0][i];
    const Tensor& b = read[1][i];
    ASSERT_EQ(a.nbytes(), b.nbytes());
    EXPECT_EQ(0, std::memcmp(a.raw_data(), b.raw_data(), static_cast<size_t>(a.nbytes())));
  }
  EXPECT_EQ(0, std::memcmp(read[0][0].raw_data(), values.data(), values.size() * sizeof(float)));
  // A small file in huge-page mode is mapped as it is.
  SetWeightMemoryMode(WeightMemory::kHugePages);
  const std::string small = TempPath("small.safetensors");
  WriteSafetensors(small, SampleTensors(), {});
  EXPECT_EQ(SafetensorsFile::Open(small).Get("ids").nbytes(), 24);
  SetWeightMemoryMode(before);
  std::remove(path.c_str());
  std::remove(small.c_str());
}

TEST(SafetensorsTest, NamesFollowDataOffsets) {
  const std::string header = R"({"b":{"dtype":"U8","shape":[1],"data_offsets":[1,2]},)"
                             R"("z":{"dtype":"U8","shape":[0],"data_offsets":[0,0]},)"
                             R"("a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})";
  const SafetensorsFile file = Parse(Image(header, std::string("\x05\x06", 2)));
  EXPECT_EQ(file.names(), (std::vector<std::string>{"z", "a", "b"}));
  ExpectTensor(file.Get("b"), kU8, {1}, {6});
  EXPECT_TRUE(file.metadata().empty());
}

TEST(SafetensorsTest, ReadsEveryDTypeName) {
  for (const char* name : {"F64", "F32", "F16", "BF16", "I64", "I32", "I16", "I8", "U64", "U32",
                           "U16", "U8", "BOOL", "F8_E4M3", "F8_E5M2"}) {
    const std::optional<DataType> dtype = DataTypeFromSafetensorsName(name);
    ASSERT_TRUE(dtype.has_value()) << name;
    EXPECT_EQ(SafetensorsNameOf(*dtype), std::string(name));
  }
  EXPECT_EQ(DataTypeFromSafetensorsName("F8_E4M3")->ToString(), "float8_e4m3fn");
  EXPECT_FALSE(DataTypeFromSafetensorsName("f32").has_value());
  EXPECT_FALSE(SafetensorsNameOf(DataType::Int(4)).has_value());
}

// One well-formed entry for building malformed files around it.
const char* const kEntry = R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
const std::string kFour("\x00\x00\x80\x3f", 4);

TEST(SafetensorsErrorsTest, FileLevel) {
  EXPECT_RUNTIME_ERROR(Parse("12345"), "mem: file is too small for a safetensors header (5 bytes)");
  EXPECT_RUNTIME_ERROR(Parse(Image(std::string(20, ' '), "", 100)),
                       "mem: header size 100 runs past the end of the file (28 bytes)");
  EXPECT_RUNTIME_ERROR(Parse(Image("{}", "", uint64_t{1} << 40)),
                       "mem: header size 1099511627776 exceeds the limit of 100000000 bytes");
  EXPECT_RUNTIME_ERROR(Parse(Image("[]", "")), "mem: header does not start with '{'");
  EXPECT_RUNTIME_ERROR(Parse(Image("", "")), "mem: header does not start with '{'");
  EXPECT_RUNTIME_ERROR(Parse(Image(R"({"a":})", "")), "mem: header is not valid json (at byte 6)");
  EXPECT_RUNTIME_ERROR(Parse(Image(R"({"a":1} x)", "")),
                       "mem: header is not valid json (at byte 9)");
  // A truncated file whose header is cut off mid-way.
  const std::string whole = Image(kEntry, kFour);
  EXPECT_RUNTIME_ERROR(Parse(whole.substr(0, 30)),
                       "mem: header size 54 runs past the end of the file (30 bytes)");
}

TEST(SafetensorsErrorsTest, Entries) {
  EXPECT_RUNTIME_ERROR(
      Parse(Image(R"({"w":{"dtype":"F7","shape":[1],"data_offsets":[0,4]}})", kFour)),
      "mem: tensor 'w': unknown dtype 'F7'");
  EXPECT_RUNTIME_ERROR(Parse(Image(R"({"w":{"shape":[1],"data_offsets":[0,4]}})", kFour)),
                       "mem: tensor 'w': dtype is missing or not a string");
  EXPECT_RUNTIME_ERROR(Parse(Image(R"({"w":{"dtype":"F32","data_offsets":[0,4]}})", kFour)),
                       "mem: tensor 'w': shape is missing or not a list");
  EXPECT_RUNTIME_ERROR(
      Parse(Image(R"({"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", kFour)),
      "mem: tensor 'w': shape must hold non-negative integers");
  EXPECT_RUNTIME_ERROR(
      Parse(Image(R"({"w":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}})", kFour)),
      "mem: tensor 'w': shape must hold non-negative integers");
  EXPECT_RUNTIME_ERROR(
      Parse(Image(R"({"w":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]}})",
                  kFour)),
      "mem: tensor 'w': shape [4294967296, 4294967296] is too large");
  EXPECT_RUNTIME_ERROR(Parse(Image(R"({"w":{"dtype":"F32","shape":[1]}})", kFour)),
                       "mem: tensor 'w': data_offsets must be two non-negative integers");
  EXPECT_RUNTIME_ERROR(
      Parse(Image(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4,8]}})", kFour)),
      "mem: tensor 'w': data_offsets must be two non-negative integers");
  EXPECT_RUNTIME_ERROR(Parse(Image(R"({"w":3})", kFour)),
                       "mem: tensor 'w': entry is not an object");
  EXPECT_RUNTIME_ERROR(
      Parse(Image(R"({"w":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})", "\x01\x02")),
      "mem: tensor 'w': bool values must be 0 or 1");
}

TEST(SafetensorsErrorsTest, Offsets) {
  EXPECT_RUNTIME_ERROR(
      Parse(Image(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,8]}})", kFour)),
      "mem: tensor 'w': data_offsets [0, 8] exceed the data size (4 bytes)");
  EXPECT_RUNTIME_ERROR(
      Parse(Image(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", kFour)),
      "mem: tensor 'w': data_offsets [0, 4] hold 4 bytes but float32[2] needs 8");
  EXPECT_RUNTIME_ERROR(
      Parse(Image(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})", kFour)),
      "mem: tensor 'w': data_offsets [4, 0] are reversed");
  EXPECT_RUNTIME_ERROR(Parse(Image(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                                   R"("b":{"dtype":"F16","shape":[2],"data_offsets":[2,6]}})",
                                   std::string(6, '\0'))),
                       "mem: tensor 'b' overlaps tensor 'a'");
  EXPECT_RUNTIME_ERROR(Parse(Image(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                                   R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
                                   std::string(12, '\0'))),
                       "mem: data bytes [4, 8] belong to no tensor");
  EXPECT_RUNTIME_ERROR(Parse(Image(kEntry, kFour + "xxxx")),
                       "mem: data bytes [4, 8] belong to no tensor");
}

TEST(SafetensorsErrorsTest, HeaderEntries) {
  EXPECT_RUNTIME_ERROR(Parse(Image(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                                   R"("w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                                   kFour)),
                       "mem: duplicate entry 'w' in the header");
  EXPECT_RUNTIME_ERROR(Parse(Image(R"({"__metadata__":{"k":1}})", "")),
                       "mem: __metadata__ value of 'k' is not a string");
  EXPECT_RUNTIME_ERROR(Parse(Image(R"({"__metadata__":[]})", "")),
                       "mem: __metadata__ is not an object");
}

TEST(SafetensorsErrorsTest, OpenAndLookup) {
  const std::string missing = TempPath("missing.safetensors");
  EXPECT_RUNTIME_ERROR(SafetensorsFile::Open(missing),
                       missing + ": cannot open: No such file or directory");
  const std::string dir = ::testing::TempDir();
  EXPECT_RUNTIME_ERROR(SafetensorsFile::Open(dir), dir + ": not a regular file");
  const std::string empty = TempPath("empty.safetensors");
  { std::ofstream(empty, std::ios::binary); }
  EXPECT_RUNTIME_ERROR(SafetensorsFile::Open(empty),
                       empty + ": file is too small for a safetensors header (0 bytes)");
  std::remove(empty.c_str());
  EXPECT_RUNTIME_ERROR(Parse(Image(kEntry, kFour)).Get("nope"), "mem: no tensor named 'nope'");
}

TEST(SafetensorsErrorsTest, Writer) {
  const std::vector<NamedTensor> dup = {{"a", F32({1}, {1})}, {"a", F32({1}, {2})}};
  EXPECT_RUNTIME_ERROR(SerializeSafetensors(dup), "safetensors: duplicate tensor name 'a'");
  const std::vector<NamedTensor> reserved = {{"__metadata__", F32({1}, {1})}};
  EXPECT_RUNTIME_ERROR(SerializeSafetensors(reserved),
                       "safetensors: '__metadata__' cannot name a tensor");
  const std::vector<NamedTensor> undefined = {{"u", Tensor()}};
  EXPECT_RUNTIME_ERROR(SerializeSafetensors(undefined), "safetensors: tensor 'u' is undefined");
  const std::vector<NamedTensor> ok = {{"a", F32({1}, {1})}};
  EXPECT_RUNTIME_ERROR(SerializeSafetensors(ok, {{"k", "1"}, {"k", "2"}}),
                       "safetensors: duplicate metadata key 'k'");
  const std::vector<NamedTensor> bad_name = {{"\xff", F32({1}, {1})}};
  EXPECT_RUNTIME_ERROR(SerializeSafetensors(bad_name),
                       "safetensors: tensor names and metadata must be valid utf-8");
  EXPECT_RUNTIME_ERROR(WriteSafetensors("/nonexistent_dir/x.safetensors", ok),
                       "/nonexistent_dir/x.safetensors: cannot write: No such file or directory");
  EXPECT_RUNTIME_ERROR(WriteSafetensors("/nonexistent_dir/x.safetensors", dup),
                       "/nonexistent_dir/x.safetensors: duplicate tensor name 'a'");
}

// Found by fuzz_safetensors: a number too large for a double escaped as a json exception.
TEST(SafetensorsWriteTest, AnOutOfRangeNumberInTheHeaderIsNamed) {
  const std::string header = "{\"a\": {\"dtype\": 1e999999}}";
  std::string image = LittleEndian64(header.size()) + header;
  EXPECT_RUNTIME_ERROR(SafetensorsFile::FromMemory("mem", nullptr, image.data(), image.size()),
                       "mem: header holds a number out of range");
}

// Written whole or not at all: through a temporary file renamed over the target, which a
// failed write removes.
TEST(SafetensorsWriteTest, AFailedWriteLeavesNoFile) {
  const std::string dir = TempPath("atomic_dir");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/target");  // a directory: the rename must fail
  const std::vector<NamedTensor> ok = {{"a", F32({2}, {1, 2})}};
  EXPECT_RUNTIME_ERROR(WriteSafetensors(dir + "/target", ok),
                       dir + "/target: cannot write: Is a directory");
  std::vector<std::string> left;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    left.push_back(entry.path().filename());
  EXPECT_THAT(left, ::testing::ElementsAre("target"));
  // A successful write replaces an existing file whole.
  std::ofstream(dir + "/out", std::ios::binary) << "old contents";
  WriteSafetensors(dir + "/out", ok);
  EXPECT_EQ(ReadAll(dir + "/out"), SerializeSafetensors(ok));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pipesplit::runtime
