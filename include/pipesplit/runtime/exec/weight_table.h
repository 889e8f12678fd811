// The weights a worker group holds: the packed_params fields its functions read, loaded once
// and checked against how each function reads them, standing in for packed_params (an
// R.Object whose fields are the tensors; a field the group did not load is an error naming
// it). A pipeline worker loads its stage's weights; a serving worker the weights of every
// function its group runs.
#ifndef PIPESPLIT_RUNTIME_EXEC_WEIGHT_TABLE_H_
#define PIPESPLIT_RUNTIME_EXEC_WEIGHT_TABLE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pipesplit/ir/expr.h"
#include "pipesplit/ir/module.h"
#include "pipesplit/runtime/exec/session.h"
#include "pipesplit/runtime/io/mlc_params.h"
#include "pipesplit/runtime/io/shard.h"
#include "pipesplit/runtime/io/weights.h"
#include "pipesplit/runtime/tensor/value.h"

namespace pipesplit::runtime {

class WeightTable : public FieldObject {
 public:
  explicit WeightTable(int group) : group_(group) {}
  std::string TypeName() const override;
  // RuntimeError when field `index` was not loaded.
  Value GetField(int64_t index) const override;
  bool HasField(int64_t index) const override { return tensors_.count(index) != 0; }

  // Loads the fields `func` (named `name`) reads that are not loaded yet, each checked against
  // the struct info of its read (RuntimeError on a mismatch), and adds them to `report`
  // (weight_indices, weight_bytes).
  void LoadReadsOf(const ir::FunctionNode& func, const std::string& name,
                   const WeightSource& weights, WorkerReport& report);

 private:
  int group_;
  std::map<int64_t, Tensor> tensors_;
};

// Whether `t` (a tensor of `dtype` and `shape`) has the dtype and the known dims (-1: any) of
// `declared`, and how a declared type reads in a message ("float32[4, ?]").
bool MatchesDeclared(DataType dtype, const Shape& shape, const ir::TensorSInfoNode& declared,
                     const Shape& dims);
bool MatchesDeclared(const Tensor& t, const ir::TensorSInfoNode& declared, const Shape& dims);
std::string DescribeDeclared(const ir::TensorSInfoNode& declared, const Shape& dims);

// Checks that packed_params[index] of `weights`, of `dtype` and `shape`, is what `function`
// reads it as (`read_as`, a tensor type; anything else is not checked). The mismatch names the
// weight and where it is stored: a DiagnosticError at its record when the source has a text
// index (MLC's tensor-cache.json: at the dtype or shape field), else a RuntimeError
// "<file>: packed_params[i] ('name') is ... but 'f' reads it as ...".
void CheckWeightType(const WeightSource& weights, int64_t index, DataType dtype, const Shape& shape,
                     const ir::StructInfo& read_as, const std::string& function);
// CheckWeightType for every field of the packed_params tuple each Relax function of `mod`
// declares (whose count must be the weights') and every weight each one reads, before any
// worker starts; a read field that does not exist is a RuntimeError. A tensor-parallel module's
// weights are checked as the first worker of a group holds them (WeightsOfShard).
void CheckWeightTypes(const ir::IRModule& mod, const WeightSource& weights);

// How a module is written for tensor parallelism: the "tensor_parallel_shards" of its
// `_metadata` (1 without one) and the "shard_strategy" of each param (by packed_params index).
struct TensorParallelPlan {
  int64_t shards = 1;
  Span span;  // where shards is written (invalid when absent)
  std::vector<std::optional<ShardSpec>> specs;
  // The "preprocs" of each param (MLC's own sharded modules: kernels of the module that cut a
  // weight at load time, preproc_weights.h); empty lists when none has any.
  std::vector<std::vector<MlcPreproc>> preprocs;
  bool HasPreprocs() const;
};
TensorParallelPlan TensorParallelPlanOf(const ir::IRModule& mod);

// Whether a session with groups of `group_size` workers can run a module of `plan`: its groups
// must have plan.shards workers (any size when plan.shards is 1: the workers of a group then
// each run the whole stage). A mismatch is a DiagnosticError at the _metadata's
// tensor_parallel_shards when it is located, else a RuntimeError.
void CheckGroupSize(const TensorParallelPlan& plan, int group_size);

// The weights worker `shard` of a group holds under `plan`: `weights` itself when plan.shards is
// 1 and no param has preprocs, else each weight that has a strategy cut by ShardedWeights and
// each that has preprocs run through them by `kernels` (PreprocessedWeights: TypeOf works
// without kernels, Load needs them). A plan that describes another number of params than
// `weights` holds is a RuntimeError. `weights` must outlive it.
std::shared_ptr<const WeightSource> WeightsOfShard(
    const TensorParallelPlan& plan, const WeightSource& weights, int64_t shard,
    std::shared_ptr<const KernelLibrary> kernels = nullptr);

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_EXEC_WEIGHT_TABLE_H_
