// Names of the function and module attributes pipesplit reads or writes.
//
// Attributes are stored by name in an AttrMap (R.func_attr({...}) in the script); these
// constants are the one spelling of each name the code uses.
#ifndef PIPESPLIT_IR_ATTR_NAMES_H_
#define PIPESPLIT_IR_ATTR_NAMES_H_

namespace pipesplit::ir::attr {

// The externally visible name of a public module member; the parser sets it from the function
// name unless the function is private, and it must equal the member's name.
inline constexpr const char kGlobalSymbol[] = "global_symbol";

// The number of leading parameters that are model inputs; the parameters after them hold the
// weights (packed_params in pipeline-parallel functions).
inline constexpr const char kNumInput[] = "num_input";

// N > 1 marks a function for the pipeline-parallel rewrite, which splits it into N stages.
inline constexpr const char kPipelineParallelStages[] = "pipeline_parallel_stages";

// When true, the function counts as pure even though it contains impure calls.
inline constexpr const char kForcePure[] = "relax.force_pure";

// {"n": 2048, ...}: upper bounds of a function's symbolic vars (read by the cost model).
inline constexpr const char kTirVarUpperBound[] = "tir_var_upper_bound";

// ["vocab_size", ...]: symbolic vars a function declares non-negative and leaves unbounded (MLC
// marks its vocabulary size so); the cost model counts them as 1 where nothing bounds them.
inline constexpr const char kTirNonNegativeVar[] = "tir_non_negative_var";

}  // namespace pipesplit::ir::attr

#endif  // PIPESPLIT_IR_ATTR_NAMES_H_
