// The weights a group holds (weight_table.h).
#include "pipesplit/runtime/exec/weight_table.h"

#include <fmt/format.h>

#include <utility>

#include "pipesplit/ir/protocol.h"
#include "pipesplit/runtime/exec/preproc_weights.h"
#include "pipesplit/runtime/io/mlc_params.h"
#include "pipesplit/support/diagnostic.h"

namespace pipesplit::runtime {

std::string DescribeDeclared(const ir::TensorSInfoNode& t, const Shape& dims) {
  std::string out = t.dtype().is_void() ? "tensor" : t.dtype().ToString();
  if (!t.shape())
    return out + "[" + (t.ndim() >= 0 ? std::to_string(t.ndim()) + " dims" : "?") + "]";
  out += "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    out += (i ? ", " : "") + (dims[i] >= 0 ? std::to_string(dims[i]) : std::string("?"));
  }
  return out + "]";
}

bool MatchesDeclared(DataType dtype, const Shape& shape, const ir::TensorSInfoNode& declared,
                     const Shape& dims) {
  bool ok = declared.dtype().is_void() || declared.dtype() == dtype;
  if (declared.shape()) {
    ok &= dims.size() == shape.size();
    for (size_t i = 0; ok && i < dims.size(); ++i) ok &= dims[i] < 0 || dims[i] == shape[i];
  } else if (declared.ndim() >= 0) {
    ok &= declared.ndim() == static_cast<int>(shape.size());
  }
  return ok;
}

bool MatchesDeclared(const Tensor& t, const ir::TensorSInfoNode& declared, const Shape& dims) {
  return MatchesDeclared(t.dtype(), t.shape(), declared, dims);
}

void CheckWeightType(const WeightSource& weights, int64_t index, DataType dtype, const Shape& shape,
                     const ir::StructInfo& read_as, const std::string& function) {
  const auto* declared = ir::As<ir::TensorSInfoNode>(read_as);
  if (declared == nullptr) return;
  Shape dims;
  if (declared->shape()) {
    for (const ir::PrimExpr& d : *declared->shape()) dims.push_back(ir::AsConstInt(d).value_or(-1));
  }
  if (MatchesDeclared(dtype, shape, *declared, dims)) return;
  const std::string message = fmt::format(
      "packed_params[{}] ('{}') is {}{} but '{}' reads it as {}", index, weights.Name(index),
      dtype.ToString(), ShapeToString(shape), function, DescribeDeclared(*declared, dims));
  const WeightLocation where = weights.Locate(index);
  const bool dtype_differs = !declared->dtype().is_void() && declared->dtype() != dtype;
  const pipesplit::Span field = dtype_differs ? where.dtype : where.shape;
  if (field.valid()) pipesplit::ThrowError(field, message);
  if (where.record.valid()) pipesplit::ThrowError(where.record, message);
  throw RuntimeError(where.file.empty() ? message : where.file + ": " + message);
}

void CheckWeightTypes(const ir::IRModule& mod, const WeightSource& all_weights) {
  // The preprocs, before anything is built: each names a kernel of the module and takes what
  // the one before it writes, and the last one writes one slice per shard.
  if (std::optional<MlcParamList> params = MlcParamsOfModule(mod)) {
    for (const MlcParam& param : params->params) {
      for (size_t i = 0; i < param.preprocs.size(); ++i) {
        const MlcPreproc& preproc = param.preprocs[i];
        const ir::IRModule::Member* member = mod.Find(preproc.func_name);
        if (member == nullptr || !ir::Is<ir::PrimFuncNode>(member->func)) {
          pipesplit::ThrowError(preproc.span,
                                fmt::format("the preproc of weight '{}' names '{}', which is not "
                                            "a kernel (T.prim_func) of the module",
                                            param.name, preproc.func_name));
        }
        if (i > 0 && preproc.in_shape != param.preprocs[i - 1].out_shape) {
          pipesplit::ThrowError(
              preproc.span,
              fmt::format("the preproc '{}' of weight '{}' takes {} but the one "
                          "before it writes {}",
                          preproc.func_name, param.name, ShapeToString(preproc.in_shape),
                          ShapeToString(param.preprocs[i - 1].out_shape)));
        }
      }
      const int64_t shards = params->tensor_parallel_shards;
      if (!param.preprocs.empty() && shards > 1 &&
          (param.preprocs.back().out_shape.empty() ||
           param.preprocs.back().out_shape[0] != shards)) {
        pipesplit::ThrowError(
            param.preprocs.back().span,
            fmt::format("the preproc '{}' of weight '{}' writes {}, which does not hold one "
                        "slice for each of the module's {} shards (tensor_parallel_shards)",
                        param.preprocs.back().func_name, param.name,
                        ShapeToString(param.preprocs.back().out_shape), shards));
      }
    }
  }
  std::shared_ptr<const WeightSource> shard0 =
      WeightsOfShard(TensorParallelPlanOf(mod), all_weights, 0);
  const WeightSource& weights = *shard0;
  auto source = [&](int64_t index) {
    const WeightLocation where = weights.Locate(index);
    return where.file.empty() ? std::string() : where.file + ": ";
  };
  for (const ir::IRModule::Member& member : mod.members()) {
    const auto* func = ir::As<ir::FunctionNode>(member.func);
    if (func == nullptr) continue;
    const std::string& name = member.gvar->name_hint();
    // The packed_params tuple as declared: every field, read or not.
    if (!func->params().empty() &&
        func->params().back()->name_hint() == ir::protocol::kPackedParams) {
      if (const auto* tuple = ir::As<ir::TupleSInfoNode>(func->params().back()->struct_info())) {
        const int64_t declared = static_cast<int64_t>(tuple->fields().size());
        if (declared != weights.size()) {
          throw RuntimeError(fmt::format("{}'{}' takes {} weights in packed_params but {} {} given",
                                         source(0), name, declared, weights.size(),
                                         weights.size() == 1 ? "is" : "are"));
        }
        for (int64_t i = 0; i < declared; ++i) {
          auto [dtype, shape] = weights.TypeOf(i);
          CheckWeightType(weights, i, dtype, shape, tuple->fields()[static_cast<size_t>(i)], name);
        }
      }
    }
    for (const ir::WeightRead& read : ir::WeightReadsOf(*func)) {
      if (read.index < 0 || read.index >= weights.size()) {
        throw RuntimeError(fmt::format("{}'{}' reads packed_params[{}] but {} weight{} {} given",
                                       source(read.index), name, read.index, weights.size(),
                                       weights.size() == 1 ? "" : "s",
                                       weights.size() == 1 ? "is" : "are"));
      }
      auto [dtype, shape] = weights.TypeOf(read.index);
      CheckWeightType(weights, read.index, dtype, shape, read.sinfo, name);
    }
  }
}

TensorParallelPlan TensorParallelPlanOf(const ir::IRModule& mod) {
  TensorParallelPlan plan;
  std::optional<MlcParamList> params = MlcParamsOfModule(mod);
  if (!params) return plan;
  plan.shards = params->tensor_parallel_shards;
  plan.span = params->shards_span;
  for (const MlcParam& p : params->params) {
    plan.specs.push_back(p.shard);
    plan.preprocs.push_back(p.preprocs);
  }
  return plan;
}

bool TensorParallelPlan::HasPreprocs() const {
  for (const std::vector<MlcPreproc>& list : preprocs) {
    if (!list.empty()) return true;
  }
  return false;
}

void CheckGroupSize(const TensorParallelPlan& plan, int group_size) {
  if (plan.shards == 1 || plan.shards == group_size) return;
  const std::string message = fmt::format(
      "the module is sharded for groups of {} workers (tensor_parallel_shards {}) but the "
      "session's groups have {} (--group-size {})",
      plan.shards, plan.shards, group_size, group_size);
  if (plan.span.valid()) pipesplit::ThrowError(plan.span, message);
  throw RuntimeError(message);
}

std::shared_ptr<const WeightSource> WeightsOfShard(const TensorParallelPlan& plan,
                                                   const WeightSource& weights, int64_t shard,
                                                   std::shared_ptr<const KernelLibrary> kernels) {
  const bool preprocs = plan.HasPreprocs();
  if (plan.shards == 1 && !preprocs) return {std::shared_ptr<void>(), &weights};
  if (static_cast<int64_t>(plan.specs.size()) != weights.size()) {
    throw RuntimeError(
        fmt::format("the module's _metadata describes {} params but {} weights are given",
                    plan.specs.size(), weights.size()));
  }
  std::shared_ptr<const WeightSource> cut =
      plan.shards == 1 ? std::shared_ptr<const WeightSource>(std::shared_ptr<void>(), &weights)
                       : std::make_shared<ShardedWeights>(weights, plan.specs, plan.shards, shard);
  if (!preprocs) return cut;
  return std::make_shared<PreprocessedWeights>(std::move(cut), plan.preprocs, plan.shards, shard,
                                               std::move(kernels));
}

std::string WeightTable::TypeName() const {
  return "the weight table of group " + std::to_string(group_);
}

Value WeightTable::GetField(int64_t index) const {
  auto it = tensors_.find(index);
  if (it == tensors_.end()) {
    throw RuntimeError("packed_params[" + std::to_string(index) +
                       "] is not loaded on this group: its stage does not read it");
  }
  return it->second;
}

void WeightTable::LoadReadsOf(const ir::FunctionNode& func, const std::string& name,
                              const WeightSource& weights, WorkerReport& report) {
  for (const ir::WeightRead& read : ir::WeightReadsOf(func)) {
    if (HasField(read.index)) continue;
    Tensor t = weights.Load(read.index);
    CheckWeightType(weights, read.index, t.dtype(), t.shape(), read.sinfo, name);
    report.weight_bytes += t.nbytes();
    report.weight_indices.push_back(read.index);
    tensors_.emplace(read.index, std::move(t));
  }
}

}  // namespace pipesplit::runtime
