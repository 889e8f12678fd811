// The pipeline-parallel rewrite as a function (the pass `pipeline-parallel-rewrite` calls
// it). See src/transform/pipeline_parallel_rewrite.cc.
#ifndef PIPESPLIT_TRANSFORM_PIPELINE_PARALLEL_REWRITE_H_
#define PIPESPLIT_TRANSFORM_PIPELINE_PARALLEL_REWRITE_H_

#include <vector>

#include "pipesplit/ir/module.h"
#include "pipesplit/transform/pipeline_stage_plan.h"

namespace pipesplit::transform {

// Splits every marked function of `mod`. Throws DiagnosticError listing every problem of
// every marked function. When `plans` is given, receives the stage plans used.
ir::IRModule RewritePipelineStages(const ir::IRModule& mod, std::vector<StagePlan>* plans = nullptr,
                                   const StagePlanOptions& options = {});

}  // namespace pipesplit::transform

#endif  // PIPESPLIT_TRANSFORM_PIPELINE_PARALLEL_REWRITE_H_
