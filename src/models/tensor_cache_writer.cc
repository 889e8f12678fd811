// TVM's tensor cache, written as tvmjs.dump_tensor_cache writes it (tensor_cache_writer.h).
#include "pipesplit/models/tensor_cache_writer.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::models {
namespace {

using Json = nlohmann::ordered_json;

// Bytes of one element of MLC's dtype name (DataType's spelling: "float32", "uint32", ...).
int64_t ElementBytes(const std::string& dtype) {
  const std::optional<DataType> parsed = DataType::Parse(dtype);
  if (!parsed) throw std::invalid_argument("no element size for dtype '" + dtype + "'");
  return parsed->bytes();
}

// tvmjs's float32 -> bfloat16: round to nearest even while |x| is below the largest finite
// bfloat16 with its low bits cleared, truncation beyond (infinities, NaNs, the largest floats).
uint16_t TvmjsBFloat16(uint32_t bits) {
  constexpr uint32_t kLimit = 0x7f7f0000u;  // float32 max with its low 16 bits cleared
  if ((bits & 0x7fffffffu) < kLimit) bits += ((bits >> 16) & 1u) + 0x7fffu;
  return static_cast<uint16_t>(bits >> 16);
}

std::string Md5Hex(std::span<const uint8_t> data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &size, EVP_md5(), nullptr) != 1) {
    throw runtime::RuntimeError("cannot compute an md5 sum (OpenSSL's EVP_Digest failed)");
  }
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

void WriteText(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw runtime::RuntimeError("cannot write " + path.string());
}

}  // namespace

int64_t TensorCacheWriter::DtypeBytes(const std::string& dtype, int64_t elements) {
  return ElementBytes(dtype) * elements;
}

int64_t TensorCacheWriter::StoredBytes(const std::string& dtype, int64_t elements) {
  return dtype == "float32" ? 2 * elements : ElementBytes(dtype) * elements;
}

TensorCacheWriter::TensorCacheWriter(std::string dir, bool plan_only, int64_t shard_cap_bytes)
    : dir_(std::move(dir)), plan_only_(plan_only), cap_(shard_cap_bytes) {
  if (!plan_only_) {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) throw runtime::RuntimeError(fmt::format("cannot create {}: {}", dir_, ec.message()));
  }
}

void TensorCacheWriter::Add(const std::string& name, const std::vector<int64_t>& shape,
                            const std::string& dtype, std::span<const uint8_t> data) {
  int64_t elements = 1;
  for (int64_t d : shape) elements *= d;
  if (static_cast<int64_t>(data.size()) != ElementBytes(dtype) * elements) {
    throw std::logic_error(fmt::format("tensor '{}': {} bytes for {} elements of {}", name,
                                       data.size(), elements, dtype));
  }
  TensorCacheRecord record{name, shape, dtype, StoredBytes(dtype, elements), 0};
  if (dtype != "float32") return Append(std::move(record), data);
  stored_float32_ = true;
  std::vector<uint8_t> encoded(static_cast<size_t>(record.nbytes));
  for (int64_t i = 0; i < elements; ++i) {
    uint32_t bits;
    std::memcpy(&bits, data.data() + 4 * i, 4);
    const uint16_t half = TvmjsBFloat16(bits);
    std::memcpy(encoded.data() + 2 * i, &half, 2);
  }
  Append(std::move(record), encoded);
}

void TensorCacheWriter::Plan(const std::string& name, const std::vector<int64_t>& shape,
                             const std::string& dtype) {
  if (!plan_only_) throw std::logic_error("TensorCacheWriter::Plan on a writer that writes");
  int64_t elements = 1;
  for (int64_t d : shape) elements *= d;
  stored_float32_ = stored_float32_ || dtype == "float32";
  Append({name, shape, dtype, StoredBytes(dtype, elements), 0}, {});
}

void TensorCacheWriter::Append(TensorCacheRecord record, std::span<const uint8_t> stored) {
  const int64_t n = record.nbytes;
  if (pending_bytes_ + n >= cap_) {
    if (2 * n >= cap_) {  // a shard of its own, the open one stays open
      std::vector<uint8_t> own(stored.begin(), stored.end());
      std::vector<TensorCacheRecord> one{std::move(record)};
      one.front().byte_offset = 0;
      const int64_t keep_bytes = pending_bytes_;
      pending_bytes_ = n;
      Commit(own, one);
      pending_bytes_ = keep_bytes;
      return;
    }
    Commit(pending_, pending_records_);
    pending_bytes_ = 0;
  }
  record.byte_offset = pending_bytes_;
  pending_records_.push_back(std::move(record));
  pending_.insert(pending_.end(), stored.begin(), stored.end());
  pending_bytes_ += n;
}

// Writes `data` as the next shard (pending_bytes_ is its size) and empties both arguments.
void TensorCacheWriter::Commit(std::vector<uint8_t>& data,
                               std::vector<TensorCacheRecord>& records) {
  TensorCacheShard shard;
  shard.data_path = fmt::format("params_shard_{}.bin", shards_.size());
  shard.nbytes = pending_bytes_;
  shard.records = std::move(records);
  if (!plan_only_) {
    const std::filesystem::path path = std::filesystem::path(dir_) / shard.data_path;
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(data.data()),
              static_cast<std::streamsize>(data.size()));
    if (!out) throw runtime::RuntimeError("cannot write " + path.string());
    shard.md5sum = Md5Hex(data);
  }
  shards_.push_back(std::move(shard));
  data.clear();
  records.clear();
}

std::vector<TensorCacheShard> TensorCacheWriter::Finish(const TensorCacheMetadata& metadata) {
  if (pending_bytes_ != 0) Commit(pending_, pending_records_);
  pending_bytes_ = 0;
  if (!plan_only_) {
    const std::filesystem::path dir(dir_);
    WriteText(dir / "tensor-cache.json", TensorCacheJson(shards_, metadata, false));
    if (stored_float32_) {
      WriteText(dir / "tensor-cache-b16.json", TensorCacheJson(shards_, metadata, true));
    }
  }
  return shards_;
}

std::string TensorCacheJson(const std::vector<TensorCacheShard>& shards,
                            const TensorCacheMetadata& metadata, bool b16) {
  Json root = Json::object();
  root["metadata"] = {{"ParamSize", metadata.param_size},
                      {"ParamBytes", metadata.param_bytes},
                      {"BitsPerParam", metadata.bits_per_param}};
  root["records"] = Json::array();
  for (const TensorCacheShard& shard : shards) {
    Json records = Json::array();
    for (const TensorCacheRecord& r : shard.records) {
      const bool as_b16 = b16 && r.dtype == "float32";
      records.push_back({{"name", r.name},
                         {"shape", r.shape},
                         {"dtype", as_b16 ? "bfloat16" : r.dtype},
                         {"format", as_b16 ? "raw" : "f32-to-bf16"},
                         {"nbytes", r.nbytes},
                         {"byteOffset", r.byte_offset}});
    }
    root["records"].push_back({{"dataPath", shard.data_path},
                               {"format", "raw-shard"},
                               {"nbytes", shard.nbytes},
                               {"records", std::move(records)},
                               {"md5sum", shard.md5sum}});
  }
  return root.dump(4, ' ', /*ensure_ascii=*/true);
}

}  // namespace pipesplit::models
