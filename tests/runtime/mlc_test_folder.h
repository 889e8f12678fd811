// Test helpers for MLC model folders: write a small folder (tensor-cache.json and its shards)
// from tensors, find the 2026 corpus folders, and read the `_metadata` JSON of a corpus dump
// straight from its text (the 2026 dumps do not parse yet).
#ifndef PIPESPLIT_TESTS_RUNTIME_MLC_TEST_FOLDER_H_
#define PIPESPLIT_TESTS_RUNTIME_MLC_TEST_FOLDER_H_

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipesplit/runtime/tensor/half.h"
#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::testing_mlc {

namespace fs = std::filesystem;

struct TestRecord {
  std::string name;
  runtime::Tensor tensor;
  bool f32_to_bf16 = false;  // format f32-to-bf16 (float32 stored as bfloat16, nearest even)
  int shard = 0;
};

// Writes `records` in the order given into params_shard_<k>.bin files and an index named
// `index_name`; returns the index as written.
inline nlohmann::ordered_json WriteMlcFolder(const fs::path& dir,
                                             const std::vector<TestRecord>& records,
                                             const std::string& index_name = "tensor-cache.json") {
  fs::create_directories(dir);
  int shards = 0;
  for (const TestRecord& r : records) shards = std::max(shards, r.shard + 1);
  nlohmann::ordered_json index = {{"metadata", {{"ParamSize", records.size()}}},
                                  {"records", nlohmann::ordered_json::array()}};
  for (int s = 0; s < shards; ++s) {
    std::string bytes;
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const TestRecord& r : records) {
      if (r.shard != s) continue;
      std::string data;
      const bool bf16 = r.f32_to_bf16 && r.tensor.dtype() == DataType::Float(32);
      if (bf16) {
        for (int64_t i = 0; i < r.tensor.numel(); ++i) {
          const uint16_t bits = runtime::FloatToBFloat16Bits(r.tensor.data<float>()[i]);
          data.append(reinterpret_cast<const char*>(&bits), 2);
        }
      } else {
        data.assign(static_cast<const char*>(r.tensor.raw_data()),
                    static_cast<size_t>(r.tensor.nbytes()));
      }
      list.push_back({{"name", r.name},
                      {"shape", r.tensor.shape()},
                      {"dtype", r.tensor.dtype().ToString()},
                      {"format", r.f32_to_bf16 ? "f32-to-bf16" : "raw"},
                      {"nbytes", data.size()},
                      {"byteOffset", bytes.size()}});
      bytes += data;
    }
    const std::string file = "params_shard_" + std::to_string(s) + ".bin";
    std::ofstream(dir / file, std::ios::binary) << bytes;
    index["records"].push_back(
        {{"dataPath", file}, {"format", "raw-shard"}, {"nbytes", bytes.size()}, {"records", list}});
  }
  std::ofstream(dir / index_name, std::ios::binary) << index.dump(4);
  return index;
}

// ../shared/corpus/mlc-llm-2026 beside the source tree (tests skip when it is absent).
inline fs::path Corpus2026() {
  return fs::path(PIPESPLIT_SOURCE_DIR) / "../shared/corpus/mlc-llm-2026";
}

inline std::string ReadWhole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The JSON `_metadata` returns in a dump: the R.str("...") literal after `def _metadata`,
// unescaped (\" and \\ only, as TVM prints it); null when absent.
inline nlohmann::json MetadataOfDump(const fs::path& dump) {
  const std::string text = ReadWhole(dump);
  size_t at = text.find("def _metadata");
  if (at == std::string::npos) return nullptr;
  at = text.find("R.str(\"", at);
  if (at == std::string::npos) return nullptr;
  std::string json;
  for (size_t i = at + 7; i < text.size() && text[i] != '"'; ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) ++i;
    json += text[i];
  }
  return nlohmann::json::parse(json);
}

}  // namespace pipesplit::testing_mlc

#endif  // PIPESPLIT_TESTS_RUNTIME_MLC_TEST_FOLDER_H_
