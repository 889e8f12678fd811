// Static checks of pipeline-staged modules (the output of pipeline-parallel-rewrite).
#ifndef PIPESPLIT_ANALYSIS_PIPELINE_CHECKS_H_
#define PIPESPLIT_ANALYSIS_PIPELINE_CHECKS_H_

#include <vector>

#include "pipesplit/ir/module.h"
#include "pipesplit/support/diagnostic.h"

namespace pipesplit::analysis {

// For every dispatcher (a call of mlc.multi_gpu.DispatchFunctionByGroup), checks that the
// runtime.disco.send_to_next_group calls of stage i pair up, in order, with the
// runtime.disco.recv_from_prev_group calls of stage i + 1: same count, and for each pair the
// same dtype, rank and (where both sides are known in the dispatcher's terms) dims. Returns
// one diagnostic per mismatch.
std::vector<Diagnostic> CheckSendRecvPairing(const ir::IRModule& mod);
// The same check for the dispatchers called in the Relax functions named by `members` only
// (a pass that built them checks its own work without walking the members it left alone).
std::vector<Diagnostic> CheckSendRecvPairing(const ir::IRModule& mod,
                                             const std::vector<ir::GlobalVar>& members);

}  // namespace pipesplit::analysis

#endif  // PIPESPLIT_ANALYSIS_PIPELINE_CHECKS_H_
