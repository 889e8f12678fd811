// Tensor-parallel shards of a weight (shard.h).
#include "pipesplit/runtime/io/shard.h"

#include <fmt/format.h>

#include <cstring>
#include <numeric>

namespace pipesplit::runtime {
namespace {

std::string JoinInts(const std::vector<int64_t>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out;
}

// The dim `spec` cuts in a tensor of `ndim` dims, or -1 when out of range.
int64_t ResolveDim(const ShardSpec& spec, int64_t ndim) {
  const int64_t dim = spec.dim < 0 ? spec.dim + ndim : spec.dim;
  return dim >= 0 && dim < ndim ? dim : -1;
}

}  // namespace

std::string ShardSpec::Describe() const {
  std::string out = fmt::format("ShardSingleDim {}(dim {}", name.empty() ? "" : name + " ", dim);
  if (!segs.empty()) out += ", segments [" + JoinInts(segs) + "]";
  return out + ")";
}

std::pair<std::optional<Shape>, std::string> ShardShape(const Shape& full, const ShardSpec& spec,
                                                        int64_t shards) {
  const int64_t dim = ResolveDim(spec, static_cast<int64_t>(full.size()));
  if (dim < 0) {
    return {std::nullopt, fmt::format("dim {} is out of range for {} dims", spec.dim, full.size())};
  }
  if (shards < 1) return {std::nullopt, fmt::format("{} shards", shards)};
  Shape shape = full;
  if (spec.segs.empty()) {
    if (full[dim] % shards != 0) {
      return {std::nullopt,
              fmt::format("dim {} ({}) is not divisible by {} shards", dim, full[dim], shards)};
    }
    shape[dim] = full[dim] / shards;
    return {shape, ""};
  }
  for (int64_t seg : spec.segs) {
    if (seg < 1) return {std::nullopt, fmt::format("segment length {} is below 1", seg)};
  }
  const int64_t per_shard = std::accumulate(spec.segs.begin(), spec.segs.end(), int64_t{0});
  if (full[dim] != per_shard * shards) {
    return {std::nullopt, fmt::format("dim {} is {} but {} shards of segments [{}] need {}", dim,
                                      full[dim], shards, JoinInts(spec.segs), per_shard * shards)};
  }
  shape[dim] = per_shard;
  return {shape, ""};
}

Tensor ShardSingleDim(const Tensor& full, const ShardSpec& spec, int64_t shards, int64_t shard) {
  auto [shape, why] = ShardShape(full.shape(), spec, shards);
  if (!shape)
    throw RuntimeError("cannot cut " + full.ToString() + " by " + spec.Describe() + ": " + why);
  if (shard < 0 || shard >= shards) {
    throw RuntimeError(fmt::format("shard {} of {} does not exist", shard, shards));
  }
  if (full.dtype().bits() % 8 != 0) {
    throw RuntimeError("cannot cut " + full.ToString() + ": its elements are not whole bytes");
  }
  const int64_t dim = ResolveDim(spec, full.ndim());
  int64_t outer = 1, inner = full.element_bytes();
  for (int64_t i = 0; i < dim; ++i) outer *= full.dim(static_cast<int>(i));
  for (int64_t i = dim + 1; i < full.ndim(); ++i) inner *= full.dim(static_cast<int>(i));
  const std::vector<int64_t> segs =
      spec.segs.empty() ? std::vector<int64_t>{(*shape)[dim]} : spec.segs;
  const int64_t out_len = (*shape)[dim], in_len = full.dim(static_cast<int>(dim));
  TensorBuilder out(full.dtype(), *shape);
  const auto* src = static_cast<const char*>(full.raw_data());
  auto* dst = static_cast<char*>(out.raw_data());
  for (int64_t o = 0; o < outer; ++o) {
    int64_t in_offset = 0, out_offset = 0;  // along the dim, in elements of it
    for (int64_t seg : segs) {
      std::memcpy(dst + (o * out_len + out_offset) * inner,
                  src + (o * in_len + in_offset + shard * seg) * inner,
                  static_cast<size_t>(seg * inner));
      in_offset += seg * shards;
      out_offset += seg;
    }
  }
  return std::move(out).Publish();
}

ShardedWeights::ShardedWeights(const WeightSource& base,
                               std::vector<std::optional<ShardSpec>> specs, int64_t shards,
                               int64_t shard)
    : base_(base), specs_(std::move(specs)), shards_(shards), shard_(shard) {}

const ShardSpec* ShardedWeights::SpecOf(int64_t index) const {
  if (index < 0 || index >= static_cast<int64_t>(specs_.size())) return nullptr;
  const std::optional<ShardSpec>& spec = specs_[static_cast<size_t>(index)];
  return spec ? &*spec : nullptr;
}

void ShardedWeights::Fail(int64_t index, const Shape& full, const std::string& why) const {
  const WeightLocation where = base_.Locate(index);
  const std::string message = fmt::format(
      "packed_params[{}] ('{}') is stored as {} and cannot be cut into {} shards by {}: {}", index,
      base_.Name(index), ShapeToString(full), shards_, SpecOf(index)->Describe(), why);
  throw RuntimeError(where.file.empty() ? message : where.file + ": " + message);
}

Tensor ShardedWeights::Load(int64_t index) const {
  Tensor t = base_.Load(index);
  const ShardSpec* spec = SpecOf(index);
  if (spec == nullptr) return t;
  auto [shape, why] = ShardShape(t.shape(), *spec, shards_);
  if (!shape) Fail(index, t.shape(), why);
  return ShardSingleDim(t, *spec, shards_, shard_);
}

std::pair<DataType, Shape> ShardedWeights::TypeOf(int64_t index) const {
  auto [dtype, full] = base_.TypeOf(index);
  const ShardSpec* spec = SpecOf(index);
  if (spec == nullptr) return {dtype, full};
  auto [shape, why] = ShardShape(full, *spec, shards_);
  if (!shape) Fail(index, full, why);
  return {dtype, *shape};
}

}  // namespace pipesplit::runtime
