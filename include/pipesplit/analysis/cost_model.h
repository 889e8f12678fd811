// Cost model: an estimate of the work (FLOPs) and memory traffic (bytes) of every binding of a
// Relax function, for the automatic partitioner (auto_partition.h).
//
// High-level ops are costed from struct info (matmul 2*M*N*K, convolution, attention,
// norms, softmax, reductions; reshape/permute/take/... as zero-FLOP data movement; any other
// op with a tensor result as one FLOP per output element). `R.call_tir` kernels are costed
// from their TIR loop nests: for each block, the product of the extents of the loops around it
// (its spatial x reduction iterations) times the arithmetic of its body; a kernel whose extents
// cannot be evaluated falls back to one FLOP per output element. Bytes are the bytes of the
// tensor arguments plus those of the result.
//
// Symbolic dims are evaluated at a bound: an explicit assumption (`assume=n:2048`) first,
// else the function's `tir_var_upper_bound` attribute. A var the function lists in
// `tir_non_negative_var` and nothing else bounds (MLC's `vocab_size`: non-negative, unbounded)
// counts as 1, so its tensors are costed by their other dims (the head's weight and logits are
// then under-costed; `assume=vocab_size:32000` gives the true size). Any other unbound var is
// an error at the binding that needs it.
#ifndef PIPESPLIT_ANALYSIS_COST_MODEL_H_
#define PIPESPLIT_ANALYSIS_COST_MODEL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pipesplit/ir/module.h"

namespace pipesplit::analysis {

struct Cost {
  int64_t flops = 0;
  int64_t bytes = 0;  // bytes read + bytes written
};

// Values of a function's symbolic vars, by name.
class ShapeBounds {
 public:
  // `assume` overrides the function's tir_var_upper_bound entries; tir_non_negative_var entries
  // bounded by neither count as 1.
  ShapeBounds(const ir::Function& func, const std::map<std::string, int64_t>& assume);
  explicit ShapeBounds(std::map<std::string, int64_t> values) : values_(std::move(values)) {}

  // `e` with every var replaced by its bound (vars in `extra`, by identity, first) and folded;
  // nullopt when a var has no bound or the result is not a constant.
  std::optional<int64_t> Eval(const ir::PrimExpr& e, const ir::TirVarMap& extra = {}) const;
  // Total bytes of the tensors in `sinfo` (tuples summed, non-tensors 0); nullopt when a dim
  // cannot be evaluated or the dtype is unknown.
  std::optional<int64_t> Bytes(const ir::StructInfo& sinfo) const;
  // Number of elements of a tensor struct info; nullopt as for Bytes.
  std::optional<int64_t> Elements(const ir::StructInfo& sinfo) const;
  // The first var of `sinfo` without a bound ("" if none): for error messages.
  std::string FirstUnbound(const ir::StructInfo& sinfo) const;

 private:
  std::map<std::string, int64_t> values_;
};

class CostModel {
 public:
  explicit CostModel(const ir::IRModule& mod) : mod_(mod) {}

  // The cost of one binding; nullopt when a shape it needs cannot be evaluated.
  std::optional<Cost> BindingCost(const ir::Binding& binding, const ShapeBounds& bounds) const;

  // FLOPs of a TIR kernel whose symbolic vars take the values in `values` (by identity);
  // nullopt when a loop extent cannot be evaluated.
  static std::optional<int64_t> KernelFlops(const ir::PrimFunc& func, const ir::TirVarMap& values,
                                            const ShapeBounds& bounds);

 private:
  std::optional<int64_t> OpFlops(const ir::CallNode& call, const ShapeBounds& bounds) const;
  std::optional<int64_t> CallTirFlops(const ir::CallNode& call, const ShapeBounds& bounds) const;

  const ir::IRModule& mod_;
};

}  // namespace pipesplit::analysis

#endif  // PIPESPLIT_ANALYSIS_COST_MODEL_H_
