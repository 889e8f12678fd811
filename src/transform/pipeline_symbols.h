// Step 5 of BuildStagePlan (symbolic variables per stage) and the forwarding helper it
// shares with step 4. Private to the pipeline-parallel rewrite.
#ifndef PIPESPLIT_SRC_TRANSFORM_PIPELINE_SYMBOLS_H_
#define PIPESPLIT_SRC_TRANSFORM_PIPELINE_SYMBOLS_H_

#include <vector>

#include "pipesplit/support/diagnostic.h"
#include "pipesplit/transform/pipeline_stage_plan.h"

namespace pipesplit::transform {

// Ensures boundaries from_stage .. to_stage-1 all carry `value`, appending forwarded
// transfers where missing.
void ForwardValue(StagePlan* plan, const ir::Var& value, int from_stage, int to_stage);

// Fills Stage::shape_vars, weight_shape_vars and cast_weight_reads and Transfer::erase_shape,
// forwarding tensors that carry symbolic vars born in earlier stages. Reports what cannot be
// derived into `errors`.
void PlanSymbols(StagePlan& plan, DiagnosticList* errors);

// The symbolic vars a binding mentions, in order: those its value and annotation use, and
// (for a match_cast) those its target may define. Vars bound by nested functions' own
// signatures are left out.
struct BindingSymbols {
  std::vector<ir::TirVar> uses;
  std::vector<ir::TirVar> cast_targets;
};
BindingSymbols CollectBindingSymbols(const ir::Binding& binding);

// The distinct symbolic vars of a struct info, in order of appearance.
std::vector<ir::TirVar> SymbolsOf(const ir::StructInfo& sinfo);

}  // namespace pipesplit::transform

#endif  // PIPESPLIT_SRC_TRANSFORM_PIPELINE_SYMBOLS_H_
