// Weights cut at load time by the module's own kernels, as MLC-LLM's tensor-parallel modules
// describe it: a param of `_metadata` with "preprocs" is stored whole (the first preproc's
// in_shape) and each worker runs the preprocs, kernels of the module (`_shard_qkv`, `_shard_o`,
// ...) compiled with the rest of it, one after the other on the weight; the last one writes
// all the shards at once ([K, ...shard], its out_shape) and worker k of a group keeps slice k,
// as MLC's loader does with scatter_from_worker0.
//
// TypeOf needs no kernel (the last out_shape without its first dim, and out_dtype), so weight
// checks run before anything is built; Load needs the kernels.
#ifndef PIPESPLIT_RUNTIME_EXEC_PREPROC_WEIGHTS_H_
#define PIPESPLIT_RUNTIME_EXEC_PREPROC_WEIGHTS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pipesplit/runtime/io/mlc_params.h"
#include "pipesplit/runtime/io/weights.h"
#include "pipesplit/runtime/kernels/kernel_library.h"

namespace pipesplit::runtime {

// Field i of `inner`, run through preprocs[i] when it has any (then sliced to `shard` of
// `shards` along the first dim of the last preproc's output when `shards` > 1), else as it is.
// Errors (RuntimeError, naming the weight, its file and the kernel): a stored shape other than
// the first preproc's in_shape, a preproc whose in_shape is not the previous out_shape, a last
// out_shape that does not start with `shards`, no kernel library or no such kernel in it, a
// failing kernel.
class PreprocessedWeights : public WeightSource {
 public:
  PreprocessedWeights(std::shared_ptr<const WeightSource> inner,
                      std::vector<std::vector<MlcPreproc>> preprocs, int64_t shards, int64_t shard,
                      std::shared_ptr<const KernelLibrary> kernels);
  int64_t size() const override { return inner_->size(); }
  std::string Name(int64_t index) const override { return inner_->Name(index); }
  Tensor Load(int64_t index) const override;
  std::pair<DataType, Shape> TypeOf(int64_t index) const override;
  WeightLocation Locate(int64_t index) const override { return inner_->Locate(index); }

 private:
  const std::vector<MlcPreproc>* PreprocsOf(int64_t index) const;
  [[noreturn]] void Fail(int64_t index, const std::string& why) const;

  std::shared_ptr<const WeightSource> inner_;
  std::vector<std::vector<MlcPreproc>> preprocs_;
  int64_t shards_;
  int64_t shard_;
  std::shared_ptr<const KernelLibrary> kernels_;
};

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_EXEC_PREPROC_WEIGHTS_H_
