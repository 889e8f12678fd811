// Well-formedness of Relax modules and their TIR prim functions (TVM's relax.analysis.well_formed
// and tir.analysis.verify_well_formed, checked in linear time). The numbered invariants (1-9
// Relax, 10-16 and 18 TIR, 17 call_tir against its kernel's signature), and what is not checked,
// are listed in src/analysis/well_formed.cc's header comment. Each violation is a Diagnostic at the
// offending node's span (a var's use is located by the expression using it; notes point at related
// definitions), in walk order; every violation is reported, not just the first (one report per
// undefined var or symbolic var).
#ifndef PIPESPLIT_ANALYSIS_WELL_FORMED_H_
#define PIPESPLIT_ANALYSIS_WELL_FORMED_H_

#include <vector>

#include "pipesplit/ir/module.h"
#include "pipesplit/support/diagnostic.h"

namespace pipesplit::analysis {

struct WellFormedOptions {
  // Invariant 17 also compares dims that are constants on both sides of a call_tir (tensor and
  // buffer). Turn it off to accept modules whose kernels were written for other widths.
  bool call_tir_static_dims = true;
};

// Every violation found (empty when the module is well-formed).
std::vector<Diagnostic> CheckWellFormed(const ir::IRModule& mod,
                                        const WellFormedOptions& options = {});

// Throws DiagnosticError listing every violation.
void VerifyWellFormed(const ir::IRModule& mod);

}  // namespace pipesplit::analysis

#endif  // PIPESPLIT_ANALYSIS_WELL_FORMED_H_
