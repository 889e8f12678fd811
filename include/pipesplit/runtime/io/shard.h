// Tensor-parallel shards of a weight, cut at load time as MLC-LLM's ShardSingleDim strategy
// (mlc_llm/support/tensor_parallel.py) describes them.
//
// A strategy names one dim of the weight and, optionally, segments along it: the lengths, in
// one shard, of consecutive parts of that dim that are sharded each on its own (a fused qkv
// weight has the segments [q, k, v], a fused gate_up weight [i, i]). The weight as stored
// (unsharded) has, along the dim, each segment in turn at `shards` times its length; shard k of
// it is, for each segment in order, the k-th of its `shards` equal slices, concatenated. Without
// segments the dim is one segment, cut into `shards` equal slices.
//
// Where a strategy comes from: the `shard_strategy` of a param in a module's `_metadata`
// (mlc_params.h). ShardedWeights cuts every weight that has one as it is loaded, so a worker
// holds only its shard and the weight checks see the shard's type.
#ifndef PIPESPLIT_RUNTIME_IO_SHARD_H_
#define PIPESPLIT_RUNTIME_IO_SHARD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pipesplit/runtime/io/weights.h"
#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::runtime {

struct ShardSpec {
  std::string name;           // MLC's name of the strategy's kernel (`_shard_qkv`)
  int64_t dim = 0;            // the dim it cuts (negative: from the end)
  std::vector<int64_t> segs;  // segment lengths in one shard; empty: the whole dim

  // "ShardSingleDim _shard_qkv (dim 0, segments [128, 64, 64])", for messages.
  std::string Describe() const;
};

// The shape of one of `shards` shards of a weight of shape `full`, or the reason the weight
// cannot be cut so (a lowercase sentence: the dim is out of range, the dim's length is not
// the segments' sum times `shards`, or not divisible by `shards`).
std::pair<std::optional<Shape>, std::string> ShardShape(const Shape& full, const ShardSpec& spec,
                                                        int64_t shards);

// Shard `shard` (0-based) of `shards` of `full` (RuntimeError with ShardShape's reason when
// it cannot be cut). Bytes are copied as they are, whatever the dtype.
Tensor ShardSingleDim(const Tensor& full, const ShardSpec& spec, int64_t shards, int64_t shard);

// The weights of one worker of a tensor-parallel group: field i of `base`, cut to shard `shard`
// of `shards` when specs[i] holds a strategy, else as it is. TypeOf gives the shard's type; a
// stored weight that cannot be cut is a RuntimeError naming it, where it is stored and its
// strategy. `base` must outlive this.
class ShardedWeights : public WeightSource {
 public:
  ShardedWeights(const WeightSource& base, std::vector<std::optional<ShardSpec>> specs,
                 int64_t shards, int64_t shard);
  int64_t size() const override { return base_.size(); }
  std::string Name(int64_t index) const override { return base_.Name(index); }
  Tensor Load(int64_t index) const override;
  std::pair<DataType, Shape> TypeOf(int64_t index) const override;
  WeightLocation Locate(int64_t index) const override { return base_.Locate(index); }

 private:
  const ShardSpec* SpecOf(int64_t index) const;
  [[noreturn]] void Fail(int64_t index, const Shape& full, const std::string& why) const;

  const WeightSource& base_;
  std::vector<std::optional<ShardSpec>> specs_;
  int64_t shards_;
  int64_t shard_;
};

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_IO_SHARD_H_
