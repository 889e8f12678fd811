// Well-formedness of Relax modules. The numbered invariants are listed in
// src/analysis/well_formed.cc's header comment; each violation is a located Diagnostic seeded
// with the offending node (notes point at related definitions).
#ifndef PIPESPLIT_ANALYSIS_WELL_FORMED_H_
#define PIPESPLIT_ANALYSIS_WELL_FORMED_H_

#include <vector>

#include "pipesplit/ir/module.h"
#include "pipesplit/support/diagnostic.h"

namespace pipesplit::analysis {

// Every violation found (empty when the module is well-formed).
std::vector<Diagnostic> CheckWellFormed(const ir::IRModule& mod);

// Throws DiagnosticError listing every violation.
void VerifyWellFormed(const ir::IRModule& mod);

}  // namespace pipesplit::analysis

#endif  // PIPESPLIT_ANALYSIS_WELL_FORMED_H_
