// Structural identity of TIR functions modulo renaming: vars and buffers are identified by the
// order in which a fixed traversal first meets them, never by name, so two kernels that differ
// only in the names of their vars and buffers are equal and hash alike. Block and function
// names, dtypes, shapes, loop kinds, attributes and every expression are compared.
#ifndef PIPESPLIT_SRC_ANALYSIS_STRUCTURAL_TIR_H_
#define PIPESPLIT_SRC_ANALYSIS_STRUCTURAL_TIR_H_

#include <string>

#include "pipesplit/ir/expr.h"

namespace pipesplit::analysis {

// A canonical serialization of `func`: equal for two functions exactly when they are equal
// modulo renaming. Hash it for the structural hash.
std::string TirCanonicalForm(const ir::PrimFuncNode& func);

}  // namespace pipesplit::analysis

#endif  // PIPESPLIT_SRC_ANALYSIS_STRUCTURAL_TIR_H_
