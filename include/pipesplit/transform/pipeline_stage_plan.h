// The stage plan of the pipeline-parallel rewrite: which bindings, parameters, weights,
// values and symbolic variables each stage of a marked function gets. Built (and the input
// checked) by BuildStagePlan; consumed by the rewrite (pipeline_parallel_rewrite.cc) and by
// the stage report.
//
// Terms. A function marked `pipeline_parallel_stages = N` has N - 1 stage boundaries
// `b = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", v1..vm, ...)` cutting its
// single dataflow block into N stages. Boundary k (0-based) ends stage k. A *value* is
// identified by the original Var that defines it; the boundary var `b` (m == 1) and the
// unpacked fields `b[i]` are aliases of the values they carry.
#ifndef PIPESPLIT_TRANSFORM_PIPELINE_STAGE_PLAN_H_
#define PIPESPLIT_TRANSFORM_PIPELINE_STAGE_PLAN_H_

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "pipesplit/ir/module.h"

namespace pipesplit::transform {

// One value crossing a boundary from stage k to stage k + 1.
struct Transfer {
  ir::Var value;           // the original var defining the value (alias-resolved)
  ir::Var receiver;        // the original var standing for it in stage k + 1 (b, b[i], or `value`)
  bool forwarded = false;  // added by the pass, not listed in the boundary call
  bool erase_shape = false;  // received with unknown dims, then match_cast (re-derives
                             // symbolic vars that stage k + 1 cannot get from the caller)
};

struct Stage {
  int index = 0;
  std::vector<ir::Binding> bindings;   // the stage's own bindings (no boundaries, no unpacks)
  std::vector<ir::Var> params;         // original parameters used (StageParamOrder)
  std::vector<int64_t> weights;        // packed_params indices read, ascending, unique
  std::vector<ir::TirVar> shape_vars;  // symbolic vars passed by the caller in `s`, in order
  // Symbolic vars first bound inside the stage by a weight read (R.Object + match_cast).
  std::vector<ir::TirVar> weight_shape_vars;
  // Weight-read bindings that are emitted as R.Object + match_cast.
  std::vector<const ir::BindingNode*> cast_weight_reads;
};

struct StagePlan {
  ir::GlobalVar gvar;
  ir::Function func;
  int num_stages = 0;
  int64_t num_input = 0;
  ir::Var packed_params;
  ir::Var result;                                // the returned var (alias-resolved)
  std::vector<Stage> stages;                     // N stages
  std::vector<std::vector<Transfer>> transfers;  // N - 1 boundaries
  std::vector<ir::Binding> boundaries;           // the N - 1 boundary bindings
  // Alias var (boundary var or unpacked field) -> the value it stands for.
  std::unordered_map<const ir::VarNode*, ir::Var> aliases;

  // The value `var` stands for (itself unless it is an alias).
  const ir::Var& Resolve(const ir::Var& var) const;
  // Makes boundaries from_stage .. to_stage - 1 all carry `value` (the original var, not an
  // alias), appending a forwarded transfer to each boundary that does not pass it yet.
  void ForwardValue(const ir::Var& value, int from_stage, int to_stage);
};

// How a stage function orders the parameters of the split function it uses.
enum class StageParamOrder {
  kOriginal,  // as the split function declares them (the spec's order)
  kFirstUse,  // by first use in the stage's bindings (MLC-LLM's PipelineParallelRewrite)
};

struct StagePlanOptions {
  StageParamOrder param_order = StageParamOrder::kOriginal;
};

// The plan for `func`, or nullopt when the function is not to be split (no
// `pipeline_parallel_stages`, or it is 1). Throws DiagnosticError with every problem found in
// the input (bad marker count, missing num_input, packed_params not last, ...), each naming
// the function and the binding at fault.
std::optional<StagePlan> BuildStagePlan(const ir::GlobalVar& gvar, const ir::Function& func,
                                        const StagePlanOptions& options = {});

}  // namespace pipesplit::transform

#endif  // PIPESPLIT_TRANSFORM_PIPELINE_STAGE_PLAN_H_
