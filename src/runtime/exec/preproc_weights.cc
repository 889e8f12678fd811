// Weights cut by the module's preproc kernels (preproc_weights.h).
#include "pipesplit/runtime/exec/preproc_weights.h"

#include <fmt/format.h>

#include <array>

#include "pipesplit/runtime/tensor/value.h"

namespace pipesplit::runtime {

PreprocessedWeights::PreprocessedWeights(std::shared_ptr<const WeightSource> inner,
                                         std::vector<std::vector<MlcPreproc>> preprocs,
                                         int64_t shards, int64_t shard,
                                         std::shared_ptr<const KernelLibrary> kernels)
    : inner_(std::move(inner)),
      preprocs_(std::move(preprocs)),
      shards_(shards),
      shard_(shard),
      kernels_(std::move(kernels)) {}

const std::vector<MlcPreproc>* PreprocessedWeights::PreprocsOf(int64_t index) const {
  if (index < 0 || index >= static_cast<int64_t>(preprocs_.size())) return nullptr;
  const std::vector<MlcPreproc>& list = preprocs_[static_cast<size_t>(index)];
  return list.empty() ? nullptr : &list;
}

void PreprocessedWeights::Fail(int64_t index, const std::string& why) const {
  const WeightLocation where = inner_->Locate(index);
  const std::string message =
      fmt::format("packed_params[{}] ('{}'): {}", index, inner_->Name(index), why);
  throw RuntimeError(where.file.empty() ? message : where.file + ": " + message);
}

std::pair<DataType, Shape> PreprocessedWeights::TypeOf(int64_t index) const {
  const std::vector<MlcPreproc>* list = PreprocsOf(index);
  if (list == nullptr) return inner_->TypeOf(index);
  const MlcPreproc& last = list->back();
  if (shards_ == 1) return {last.out_dtype, last.out_shape};
  if (last.out_shape.empty() || last.out_shape[0] != shards_) {
    Fail(index, fmt::format("its preproc '{}' writes {}, which does not hold one slice for each "
                            "of the group's {} workers",
                            last.func_name, ShapeToString(last.out_shape), shards_));
  }
  return {last.out_dtype, Shape(last.out_shape.begin() + 1, last.out_shape.end())};
}

Tensor PreprocessedWeights::Load(int64_t index) const {
  const std::vector<MlcPreproc>* list = PreprocsOf(index);
  if (list == nullptr) return inner_->Load(index);
  auto [dtype, shape] = TypeOf(index);  // checks the last out_shape
  Tensor value = inner_->Load(index);
  for (const MlcPreproc& preproc : *list) {
    if (value.shape() != preproc.in_shape) {
      Fail(index, fmt::format("its preproc '{}' takes {} but is given {}", preproc.func_name,
                              ShapeToString(preproc.in_shape), ShapeToString(value.shape())));
    }
    if (kernels_ == nullptr || !kernels_->Has(preproc.func_name)) {
      Fail(index,
           fmt::format("it is cut at load time by the kernel '{}', which {}", preproc.func_name,
                       kernels_ == nullptr ? "needs the module's compiled kernels"
                                           : "the module's kernel library does not have"));
    }
    Tensor out = TensorBuilder(preproc.out_dtype, preproc.out_shape).Publish();
    const std::array<Value, 2> args = {Value(value), Value(out)};
    kernels_->Call(preproc.func_name, args);
    value = std::move(out);
  }
  if (shards_ == 1) return value;
  const int64_t slice = value.nbytes() / shards_;
  return FromBytes(dtype, shape, static_cast<const char*>(value.raw_data()) + shard_ * slice,
                   slice);
}

}  // namespace pipesplit::runtime
