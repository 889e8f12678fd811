// MLC model folders (mlc_folder.h).
//
// MlcTensorCache::OpenIndex, steps:
//   1. Parse the index (located JSON) and read each shard's fields and records, checking each
//      record's dtype, shape, format, nbytes (against shape and dtype) and extent (inside the
//      shard's declared nbytes), and that no name is recorded twice.
//   2. Map each shard; a missing shard or one shorter than a record needs is a DataFileError
//      naming the weight.
#include "pipesplit/runtime/io/mlc_folder.h"

#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <limits>

#include "pipesplit/runtime/tensor/half.h"
#include "pipesplit/support/check.h"
#include "pipesplit/support/diagnostic.h"
#include "src/runtime/io/json_document.h"
#include "src/runtime/io/mapped_file.h"

namespace pipesplit::runtime {

struct MlcTensorCache::Shard {
  std::string path;
  std::shared_ptr<const MappedFile> mapping;
};

namespace {

namespace fs = std::filesystem;

constexpr const char kRawShard[] = "raw-shard";
constexpr const char kRawFormat[] = "raw";
constexpr const char kF32ToBf16Format[] = "f32-to-bf16";

// A dtype as MLC spells it (TVM's names; float8 also in its older spelling), if storable.
std::optional<DataType> ParseMlcDtype(const std::string& text) {
  std::optional<DataType> dtype;
  if (text == "e4m3_float8") {
    dtype = DataType(DataType::Code::kFloat8E4M3FN, 8);
  } else if (text == "e5m2_float8") {
    dtype = DataType(DataType::Code::kFloat8E5M2, 8);
  } else {
    dtype = DataType::Parse(text);
  }
  if (!dtype || dtype->lanes() != 1 || !IsStorableDType(*dtype)) return std::nullopt;
  return dtype;
}

std::string Quoted(std::string_view name) { return "'" + std::string(name) + "'"; }

// Step 1 for one record of a shard whose data holds `shard_nbytes` bytes.
MlcRecord ReadRecord(const JsonValue& value, size_t shard, uint64_t shard_nbytes,
                     const std::string& data_path) {
  MlcRecord r;
  r.shard = shard;
  r.span = value.span();
  if (!value.IsObject())
    value.Fail(fmt::format("'{}' must be a record (an object)", value.Label()));
  JsonValue name = value.Field("name");
  r.name = name.String();
  if (r.name.empty()) name.Fail("a weight's name must not be empty");

  JsonValue dtype = value.Field("dtype");
  r.dtype_span = dtype.span();
  const std::string dtype_text = dtype.String();
  std::optional<DataType> parsed = ParseMlcDtype(dtype_text);
  if (!parsed)
    dtype.Fail(fmt::format("weight {}: unsupported dtype '{}'", Quoted(r.name), dtype_text));
  r.dtype = *parsed;

  JsonValue shape = value.Field("shape");
  r.shape_span = shape.span();
  uint64_t numel = 1;
  for (size_t i = 0, n = shape.ArraySize(); i < n; ++i) {
    const uint64_t dim = shape.At(i).Count();
    if (dim > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ||
        (dim != 0 && numel > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / dim)) {
      shape.Fail(fmt::format("weight {}: the shape is too large", Quoted(r.name)));
    }
    numel *= dim;
    r.shape.push_back(static_cast<int64_t>(dim));
  }

  if (std::optional<JsonValue> format = value.Find("format")) {
    const std::string text = format->String();
    if (text == kF32ToBf16Format) {
      r.format = MlcRecordFormat::kF32ToBf16;
    } else if (text != kRawFormat) {
      format->Fail(fmt::format("weight {}: unknown record format '{}' (expected '{}' or '{}')",
                               Quoted(r.name), text, kRawFormat, kF32ToBf16Format));
    }
  }

  JsonValue nbytes = value.Field("nbytes");
  r.nbytes = nbytes.Count();
  const DataType stored = r.stored_dtype();
  const uint64_t element = static_cast<uint64_t>(stored.bytes());
  if (numel > std::numeric_limits<uint64_t>::max() / element || numel * element != r.nbytes) {
    nbytes.Fail(fmt::format("weight {}: nbytes is {} but {}{} {} takes {} bytes", Quoted(r.name),
                            r.nbytes, r.dtype.ToString(), ShapeToString(r.shape),
                            stored == r.dtype
                                ? "stored as is"
                                : "stored as " + stored.ToString() + " (" + kF32ToBf16Format + ")",
                            numel * element));
  }
  JsonValue offset = value.Field("byteOffset");
  r.byte_offset = offset.Count();
  if (r.byte_offset > shard_nbytes || r.nbytes > shard_nbytes - r.byte_offset) {
    offset.Fail(fmt::format("weight {}: bytes [{}, {}) run past the {} bytes of shard '{}'",
                            Quoted(r.name), r.byte_offset, r.byte_offset + r.nbytes, shard_nbytes,
                            data_path));
  }
  return r;
}

// Step 2's message for a shard that holds `records`: "weight 'a'" or "weights 'a', ... (n)".
std::string HeldWeights(const std::vector<MlcRecord>& records, size_t shard) {
  std::vector<std::string> names;
  for (const MlcRecord& r : records) {
    if (r.shard == shard) names.push_back(r.name);
  }
  if (names.empty()) return "no weights";
  if (names.size() == 1) return "weight " + Quoted(names[0]);
  return fmt::format("weight {} and {} more", Quoted(names[0]), names.size() - 1);
}

}  // namespace

DataType MlcRecord::stored_dtype() const {
  return format == MlcRecordFormat::kF32ToBf16 && dtype == DataType::Float(32)
             ? DataType::BFloat16()
             : dtype;
}

bool MlcTensorCache::IsFolder(const std::string& dir) {
  std::error_code ec;
  return fs::is_directory(dir, ec) && (fs::exists(fs::path(dir) / kMlcTensorCacheFile, ec) ||
                                       fs::exists(fs::path(dir) / kMlcNdarrayCacheFile, ec));
}

MlcTensorCache MlcTensorCache::Open(const std::string& dir) {
  std::error_code ec;
  for (const char* name : {kMlcTensorCacheFile, kMlcNdarrayCacheFile}) {
    const fs::path index = fs::path(dir) / name;
    if (fs::exists(index, ec)) return OpenIndex(index.string());
  }
  throw RuntimeError(fmt::format("{}: not an MLC model folder: it holds neither {} nor {}", dir,
                                 kMlcTensorCacheFile, kMlcNdarrayCacheFile));
}

MlcTensorCache MlcTensorCache::OpenIndex(const std::string& index_path) {
  MlcTensorCache cache;
  cache.index_path_ = index_path;
  std::shared_ptr<const JsonDocument> doc = JsonDocument::Load(index_path);  // step 1
  JsonValue root = doc->root();
  if (!root.IsObject()) root.Fail("the index must be an object with \"records\"");
  JsonValue shards = root.Field("records");
  std::vector<uint64_t> shard_nbytes;
  for (size_t s = 0, n = shards.ArraySize(); s < n; ++s) {
    JsonValue shard = shards.At(s);
    if (!shard.IsObject())
      shard.Fail(fmt::format("'{}' must be a shard (an object)", shard.Label()));
    const std::string data_path = shard.Field("dataPath").String();
    if (std::optional<JsonValue> format = shard.Find("format")) {
      if (format->String() != kRawShard) {
        format->Fail(fmt::format("unsupported shard format '{}' (expected '{}')", format->String(),
                                 kRawShard));
      }
    }
    const uint64_t nbytes = shard.Field("nbytes").Count();
    JsonValue records = shard.Field("records");
    for (size_t i = 0, m = records.ArraySize(); i < m; ++i) {
      MlcRecord record = ReadRecord(records.At(i), s, nbytes, data_path);
      auto [it, inserted] = cache.by_name_.emplace(record.name, cache.records_.size());
      if (!inserted) {
        Diagnostic d{Severity::kError,
                     record.span,
                     fmt::format("weight {} is recorded twice", Quoted(record.name)),
                     {}};
        d.AddNote(cache.records_[it->second].span, "its first record");
        throw DiagnosticError(std::move(d));
      }
      cache.records_.push_back(std::move(record));
    }
    auto data = std::make_shared<Shard>();
    data->path = (fs::path(index_path).parent_path() / data_path).string();
    cache.shards_.push_back(std::move(data));
    shard_nbytes.push_back(nbytes);
  }
  for (size_t s = 0; s < cache.shards_.size(); ++s) {  // step 2
    Shard& shard = *cache.shards_[s];
    std::string error;
    shard.mapping = MapFile(shard.path, &error);
    if (shard.mapping == nullptr) {
      throw DataFileError(shard.path, fmt::format("{} (it holds {} of {})", error,
                                                  HeldWeights(cache.records_, s), index_path));
    }
  }
  for (const MlcRecord& r : cache.records_) {
    const Shard& shard = *cache.shards_[r.shard];
    if (r.byte_offset + r.nbytes > shard.mapping->size) {
      throw DataFileError(shard.path,
                          fmt::format("weight {} (bytes [{}, {})) runs past the end of the file "
                                      "({} bytes): the file is cut short",
                                      Quoted(r.name), r.byte_offset, r.byte_offset + r.nbytes,
                                      shard.mapping->size));
    }
  }
  return cache;
}

const MlcRecord* MlcTensorCache::Find(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : &records_[it->second];
}

Tensor MlcTensorCache::Load(const MlcRecord& record) const {
  PS_CHECK(record.shard < shards_.size()) << "record of an unknown shard";
  const std::shared_ptr<const MappedFile>& mapping = shards_[record.shard]->mapping;
  PS_CHECK(record.byte_offset + record.nbytes <= mapping->size) << "record past its shard";
  const unsigned char* p = mapping->data + record.byte_offset;
  if (record.stored_dtype() != record.dtype) {  // f32-to-bf16: the upper 16 bits of each float
    TensorBuilder builder(record.dtype, record.shape);
    float* out = builder.data<float>();
    for (int64_t i = 0; i < builder.numel(); ++i) {
      uint16_t bits;
      std::memcpy(&bits, p + 2 * i, 2);
      out[i] = BFloat16BitsToFloat(bits);
    }
    return std::move(builder).Publish();
  }
  const int64_t element = record.dtype.bytes();
  if (record.nbytes == 0 || record.dtype.is_bool() ||
      reinterpret_cast<uintptr_t>(p) % static_cast<uintptr_t>(element) != 0) {
    return FromBytes(record.dtype, record.shape, p, record.nbytes);
  }
  return Tensor::View(record.dtype, record.shape, p, mapping);
}

MlcWeights::MlcWeights(MlcTensorCache cache, const MlcParamList& params)
    : cache_(std::move(cache)) {
  std::unordered_map<std::string, size_t> seen;
  for (size_t i = 0; i < params.params.size(); ++i) {
    const MlcParam& p = params.params[i];
    auto [it, inserted] = seen.emplace(p.name, i);
    if (!inserted) {
      pipesplit::ThrowError(p.span, fmt::format("weight {} is listed twice in {} "
                                                "(packed_params[{}] and [{}])",
                                                Quoted(p.name), params.source, it->second, i));
    }
    const MlcRecord* record = cache_.Find(p.name);
    if (record == nullptr) {
      pipesplit::ThrowError(p.span, fmt::format("weight {} (packed_params[{}]) is not in {}",
                                                Quoted(p.name), i, cache_.index_path()));
    }
    // The stored weight is what the first preproc takes (MLC keeps sharded weights whole).
    if (!p.preprocs.empty() && record->shape != p.preprocs.front().in_shape) {
      pipesplit::ThrowError(
          p.preprocs.front().span,
          fmt::format("weight {} (packed_params[{}]) is stored as {} in {} but its preproc '{}' "
                      "takes {}",
                      Quoted(p.name), i, ShapeToString(record->shape), cache_.index_path(),
                      p.preprocs.front().func_name, ShapeToString(p.preprocs.front().in_shape)));
    }
    bound_.push_back(record);
  }
}

const MlcRecord& MlcWeights::Record(int64_t index) const {
  if (index < 0 || index >= size()) {
    throw RuntimeError(fmt::format("{}: packed_params[{}] does not exist ({} weights are bound)",
                                   cache_.index_path(), index, size()));
  }
  return *bound_[static_cast<size_t>(index)];
}

std::string MlcWeights::Name(int64_t index) const {
  if (index < 0 || index >= size()) return "param_" + std::to_string(index);
  return bound_[static_cast<size_t>(index)]->name;
}

Tensor MlcWeights::Load(int64_t index) const { return cache_.Load(Record(index)); }

std::pair<DataType, Shape> MlcWeights::TypeOf(int64_t index) const {
  const MlcRecord& r = Record(index);
  return {r.dtype, r.shape};
}

WeightLocation MlcWeights::Locate(int64_t index) const {
  if (index < 0 || index >= size()) return {cache_.index_path(), {}, {}, {}};
  const MlcRecord& r = *bound_[static_cast<size_t>(index)];
  return {cache_.index_path(), r.span, r.shape_span, r.dtype_span};
}

}  // namespace pipesplit::runtime
