// Step 5 of BuildStagePlan (symbolic variables per stage). Private to the pipeline-parallel
// rewrite. It works on the plan through its public interface only (StagePlan::ForwardValue
// for the tensors it must forward), so this file does not depend on pipeline_stage_plan.cc.
#ifndef PIPESPLIT_SRC_TRANSFORM_PIPELINE_SYMBOLS_H_
#define PIPESPLIT_SRC_TRANSFORM_PIPELINE_SYMBOLS_H_

#include <vector>

#include "pipesplit/support/diagnostic.h"
#include "pipesplit/transform/pipeline_stage_plan.h"

namespace pipesplit::transform {

struct BindingSymbols;
// Fills Stage::shape_vars, weight_shape_vars and cast_weight_reads and Transfer::erase_shape,
// forwarding tensors that carry symbolic vars born in earlier stages. Reports what cannot be
// derived into `errors`. `symbols[s][i]` is CollectBindingSymbols of binding i of stage s (the
// caller collects them in its own walk of the bindings).
void PlanSymbols(StagePlan& plan, DiagnosticList* errors,
                 std::vector<std::vector<BindingSymbols>> symbols);

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

// Whether a struct info (null included) has no symbolic part: every dim and value is a
// constant and no tensor is shaped by a shape var. Such a struct info mentions no symbolic
// var and every rewrite keeps it as it is (the common case in a static model, decided in a
// few compares). False is conservative: function types, non-constant dims.
bool IsStaticStructInfo(const ir::StructInfo& sinfo);
bool AllConstDims(const std::vector<ir::PrimExpr>& dims);
}  // namespace pipesplit::transform

#endif  // PIPESPLIT_SRC_TRANSFORM_PIPELINE_SYMBOLS_H_
