// Substitution of symbolic vars throughout a TIR function: in its statements and expressions
// and in the buffers (shapes, strides, offsets) it declares or reads, each buffer that mentions
// a substituted var being rebuilt once and every reference to it following.
#ifndef PIPESPLIT_IR_TIR_SUBSTITUTE_H_
#define PIPESPLIT_IR_TIR_SUBSTITUTE_H_

#include "pipesplit/ir/expr.h"
#include "pipesplit/ir/prim_expr.h"

namespace pipesplit::ir {

// `func` with every var of `vars` (by identity) replaced; the same node when none occurs.
// The vars replaced must not be ones the function defines (loop, block, let vars).
PrimFunc SubstituteTirVars(const PrimFunc& func, const TirVarMap& vars);

}  // namespace pipesplit::ir

#endif  // PIPESPLIT_IR_TIR_SUBSTITUTE_H_
