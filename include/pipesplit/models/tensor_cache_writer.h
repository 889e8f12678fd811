// Writing an MLC weight folder's tensor cache as TVM's `tvmjs.dump_tensor_cache` writes it (what
// `mlc_llm convert_weight` calls): `params_shard_<k>.bin` files and `tensor-cache.json`.
//
// Layout, in the order tensors are added:
//   - a tensor joins the open shard unless the shard's bytes and its own reach the cap (32 MiB);
//     then a tensor of at least half the cap gets a shard of its own at once (the open shard
//     stays open and is numbered after it), and a smaller one closes the open shard and opens
//     the next;
//   - float32 tensors are stored as bfloat16 (`f32-to-bf16`: rounded to nearest even below the
//     bfloat16 limit, truncated beyond it), other dtypes as they are; every record says
//     "format": "f32-to-bf16" and keeps its dtype;
//   - each shard's record carries its md5sum; tensor-cache.json is indented by 4 as Python's
//     json.dump writes it; when a float32 tensor was stored, tensor-cache-b16.json lists the same
//     bytes as `bfloat16` `raw` records.
#ifndef PIPESPLIT_MODELS_TENSOR_CACHE_WRITER_H_
#define PIPESPLIT_MODELS_TENSOR_CACHE_WRITER_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace pipesplit::models {

struct TensorCacheRecord {
  std::string name;
  std::vector<int64_t> shape;
  std::string dtype;  // MLC's dtype name: "float32", "float16", "uint32", ...
  int64_t nbytes = 0;
  int64_t byte_offset = 0;
};

struct TensorCacheShard {
  std::string data_path;  // "params_shard_<k>.bin"
  int64_t nbytes = 0;
  std::string md5sum;  // empty when planned without data
  std::vector<TensorCacheRecord> records;
};

// The metadata MLC's convert_weight stores: parameters written, their bytes before the bfloat16
// encoding, and bits per parameter of the source (bytes * 8 / source parameters).
struct TensorCacheMetadata {
  int64_t param_size = 0;
  double param_bytes = 0;
  double bits_per_param = 0;
};

class TensorCacheWriter {
 public:
  static constexpr int64_t kShardCapBytes = int64_t{32} << 20;

  // Writes into `dir` (created if needed); with `plan_only`, computes the layout and writes
  // nothing (md5sums stay empty).
  TensorCacheWriter(std::string dir, bool plan_only = false,
                    int64_t shard_cap_bytes = kShardCapBytes);
  // Adds one tensor: its bytes in its dtype (float32: 4 bytes an element, encoded here).
  void Add(const std::string& name, const std::vector<int64_t>& shape, const std::string& dtype,
           std::span<const uint8_t> data);
  // Adds one tensor's record only (plan_only writers).
  void Plan(const std::string& name, const std::vector<int64_t>& shape, const std::string& dtype);
  // Closes the open shard, writes tensor-cache.json (and tensor-cache-b16.json) and returns the
  // shards. RuntimeError naming the file when one cannot be written.
  std::vector<TensorCacheShard> Finish(const TensorCacheMetadata& metadata);

  // The bytes a record of `dtype` stores for `elements` elements (float32: 2 each, as bfloat16).
  static int64_t StoredBytes(const std::string& dtype, int64_t elements);
  // The bytes of `elements` elements of `dtype` in memory (before the bfloat16 encoding).
  static int64_t DtypeBytes(const std::string& dtype, int64_t elements);

 private:
  void Append(TensorCacheRecord record, std::span<const uint8_t> stored);
  void Commit(std::vector<uint8_t>& data, std::vector<TensorCacheRecord>& records);

  std::string dir_;
  bool plan_only_;
  int64_t cap_;
  std::vector<uint8_t> pending_;
  int64_t pending_bytes_ = 0;  // == pending_.size() unless plan_only
  std::vector<TensorCacheRecord> pending_records_;
  std::vector<TensorCacheShard> shards_;
  bool stored_float32_ = false;
};

// The JSON text of tensor-cache.json for `shards` (or, with `b16`, of tensor-cache-b16.json).
std::string TensorCacheJson(const std::vector<TensorCacheShard>& shards,
                            const TensorCacheMetadata& metadata, bool b16);

}  // namespace pipesplit::models

#endif  // PIPESPLIT_MODELS_TENSOR_CACHE_WRITER_H_
