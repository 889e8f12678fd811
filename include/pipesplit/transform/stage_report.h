// The stage report of pipeline-parallel-rewrite: for each split function and stage, the
// parameters used, the packed_params indices read (the weights that group must load) with
// their bytes, the values received, sent and forwarded with struct info and bytes (symbolic
// sizes stay symbolic), and the number of bindings. When auto-pipeline-stages placed the
// boundaries, the report also gives its partition: per stage the modelled time, FLOPs, weight,
// activation and crossing bytes, and the imbalance against the ideal (total / stages). Given
// the split module, it adds the partition MLC-LLM's loader and KV cache take (mlc_partition.h).
#ifndef PIPESPLIT_TRANSFORM_STAGE_REPORT_H_
#define PIPESPLIT_TRANSFORM_STAGE_REPORT_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipesplit/analysis/auto_partition.h"
#include "pipesplit/transform/mlc_partition.h"
#include "pipesplit/transform/pipeline_stage_plan.h"

namespace pipesplit::transform {

// JSON (pretty-printed, 2-space indent) or a human-readable table; `partition` (may be null)
// adds a "partition" object / table, `mlc` (may be null) an "mlc" object (MlcPartitionJson, or
// {"error": message} when the partition could not be computed) / an "mlc partition" section.
std::string StageReportJson(const std::vector<StagePlan>& plans,
                            const analysis::PartitionResult* partition = nullptr,
                            const MlcPartitionOrError* mlc = nullptr);
std::string StageReportText(const std::vector<StagePlan>& plans,
                            const analysis::PartitionResult* partition = nullptr,
                            const MlcPartitionOrError* mlc = nullptr);

// The partition as JSON (the "partition" object of StageReportJson) and as a text table.
nlohmann::ordered_json PartitionJson(const analysis::PartitionResult& partition);
std::string PartitionText(const analysis::PartitionResult& partition);
// An SVG bar chart of the partition: per stage, time (compute + transfer) against the ideal,
// and memory (weights + activations + received) against the limit.
std::string PartitionSvg(const analysis::PartitionResult& partition);

// Bytes of a value of struct info `sinfo`: a decimal number, a symbolic expression
// ("n * 64"), or "?" when the shape is unknown.
std::string BytesOf(const ir::StructInfo& sinfo);

}  // namespace pipesplit::transform

#endif  // PIPESPLIT_TRANSFORM_STAGE_REPORT_H_
