// MLC-LLM model folders as the weights of a run.
//
// `mlc_llm convert_weight` writes a folder of `params_shard_<k>.bin` data files and their index,
// `tensor-cache.json` (`ndarray-cache.json` before TVM's rename of Sept 2025; when both exist
// tensor-cache.json is read):
//
//   {"metadata": {...}, "records": [
//     {"dataPath": "params_shard_0.bin", "format": "raw-shard", "nbytes": N, "records": [
//       {"name": "model.embed_tokens.weight", "shape": [512, 256], "dtype": "float32",
//        "format": "f32-to-bf16", "nbytes": 262144, "byteOffset": 0}, ...]}, ...]}
//
// A record's format is `raw` (stored as its dtype) or `f32-to-bf16`, which applies to float32
// records only: each element is stored as its upper 16 bits (bfloat16) and decoded exactly to
// float32 by a shift; a record of another dtype under that format is stored as its own dtype.
// Records may be of any dtype the runtime stores (tensor/tensor.h): float32, float16, bfloat16,
// uint32 (packed 4-bit weights), int8, int32, ...
//
// The index is validated when the folder is opened, each fault a located error in it
// (`tensor-cache.json:12:17: error: ...`, at the record or field): malformed JSON, a field of
// the wrong type, an unknown dtype or format, a record whose nbytes disagrees with its shape
// and dtype, a record past the end of its shard as the index declares it, a name recorded
// twice. The shards are memory-mapped when the folder is opened; a shard missing or shorter than
// its records need is a DataFileError (`params_shard_1.bin: error: ...`) naming the weight.
// Tensors view the mapping where it is aligned to their element size, else they are copied;
// f32-to-bf16 float32 records are decoded into new tensors.
//
// Weights bind to packed_params by name, never by record order: MlcWeights takes the list of
// names (mlc_params.h) and finds each in the folder.
#ifndef PIPESPLIT_RUNTIME_IO_MLC_FOLDER_H_
#define PIPESPLIT_RUNTIME_IO_MLC_FOLDER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pipesplit/runtime/io/mlc_params.h"
#include "pipesplit/runtime/io/weights.h"

namespace pipesplit::runtime {

// A fault of a data file as a whole (no line to point at): reported as
// `<file>: error: <message>`; what() is "<file>: <message>".
class DataFileError : public RuntimeError {
 public:
  DataFileError(std::string file, const std::string& message)
      : RuntimeError(file + ": " + message), file_(std::move(file)), message_(message) {}
  const std::string& file() const { return file_; }
  std::string Report() const override { return file_ + ": error: " + message_ + "\n"; }

 private:
  std::string file_;
  std::string message_;
};

// The index file names, newest first.
inline constexpr const char kMlcTensorCacheFile[] = "tensor-cache.json";
inline constexpr const char kMlcNdarrayCacheFile[] = "ndarray-cache.json";
inline constexpr const char kMlcChatConfigFile[] = "mlc-chat-config.json";

enum class MlcRecordFormat { kRaw, kF32ToBf16 };

struct MlcRecord {
  std::string name;
  DataType dtype;  // as the record says (and as Load returns it)
  Shape shape;
  MlcRecordFormat format = MlcRecordFormat::kRaw;
  uint64_t byte_offset = 0;
  uint64_t nbytes = 0;
  size_t shard = 0;  // index into the shards
  Span span;         // the record in the index
  Span shape_span;
  Span dtype_span;

  // How the elements are stored: bfloat16 for a float32 record under f32-to-bf16.
  DataType stored_dtype() const;
};

class MlcTensorCache {
 public:
  // Whether `dir` holds an index (tensor-cache.json or ndarray-cache.json).
  static bool IsFolder(const std::string& dir);
  // Opens the folder's index (tensor-cache.json, else ndarray-cache.json) and its shards.
  static MlcTensorCache Open(const std::string& dir);
  // Opens the index at `index_path` (another name, such as tensor-cache-b16.json); shards are
  // found beside it.
  static MlcTensorCache OpenIndex(const std::string& index_path);

  const std::string& index_path() const { return index_path_; }
  // Records in index order.
  const std::vector<MlcRecord>& records() const { return records_; }
  // The record named `name`, or nullptr.
  const MlcRecord* Find(std::string_view name) const;
  // The record's tensor (float32 decoded from a f32-to-bf16 record).
  Tensor Load(const MlcRecord& record) const;

 private:
  struct Shard;

  std::string index_path_;
  std::vector<std::shared_ptr<Shard>> shards_;
  std::vector<MlcRecord> records_;
  std::unordered_map<std::string, size_t> by_name_;
};

// packed_params from an MLC folder: field i is the record named params[i].name (mlc_params.h).
class MlcWeights : public WeightSource {
 public:
  // Binds `params` to the folder's records. A DiagnosticError where a weight is named (the
  // module's _metadata, a names file) for a name the folder lacks, a name listed twice, or a
  // param with preprocs ("preprocs are not supported yet").
  MlcWeights(MlcTensorCache cache, const MlcParamList& params);

  int64_t size() const override { return static_cast<int64_t>(bound_.size()); }
  std::string Name(int64_t index) const override;
  Tensor Load(int64_t index) const override;
  std::pair<DataType, Shape> TypeOf(int64_t index) const override;
  WeightLocation Locate(int64_t index) const override;
  const MlcTensorCache& cache() const { return cache_; }

 private:
  const MlcRecord& Record(int64_t index) const;

  MlcTensorCache cache_;
  std::vector<const MlcRecord*> bound_;
};

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_IO_MLC_FOLDER_H_
