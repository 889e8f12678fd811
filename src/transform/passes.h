// Registry entries of the passes in this layer (one pass per file).
#ifndef PIPESPLIT_SRC_TRANSFORM_PASSES_H_
#define PIPESPLIT_SRC_TRANSFORM_PASSES_H_

#include "pipesplit/transform/pass.h"

namespace pipesplit::transform {

PassInfo AttachPipelineStagesPassInfo();
PassInfo LegalizeOpsPassInfo();
PassInfo AutoPipelineStagesPassInfo();
PassInfo PipelineParallelRewritePassInfo();
PassInfo VerifyPassInfo();
PassInfo ComputeInlinePassInfo();

}  // namespace pipesplit::transform

#endif  // PIPESPLIT_SRC_TRANSFORM_PASSES_H_
