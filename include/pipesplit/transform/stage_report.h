// The stage report of pipeline-parallel-rewrite: for each split function and stage, the
// parameters used, the packed_params indices read (the weights that group must load) with
// their bytes, the values received, sent and forwarded with struct info and bytes (symbolic
// sizes stay symbolic), and the number of bindings.
#ifndef PIPESPLIT_TRANSFORM_STAGE_REPORT_H_
#define PIPESPLIT_TRANSFORM_STAGE_REPORT_H_

#include <string>
#include <vector>

#include "pipesplit/transform/pipeline_stage_plan.h"

namespace pipesplit::transform {

// JSON (pretty-printed, 2-space indent) or a human-readable table.
std::string StageReportJson(const std::vector<StagePlan>& plans);
std::string StageReportText(const std::vector<StagePlan>& plans);

// Bytes of a value of struct info `sinfo`: a decimal number, a symbolic expression
// ("n * 64"), or "?" when the shape is unknown.
std::string BytesOf(const ir::StructInfo& sinfo);

}  // namespace pipesplit::transform

#endif  // PIPESPLIT_TRANSFORM_STAGE_REPORT_H_
