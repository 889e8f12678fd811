// Pass `verify`: the well-formedness check (analysis/well_formed.h) as a pass.
//
// Preconditions: none. Steps: 1. run CheckWellFormed; 2. throw every violation, or return
// the module unchanged.
#include "pipesplit/analysis/well_formed.h"
#include "src/transform/passes.h"

namespace pipesplit::transform {
namespace {

class VerifyPass : public Pass {
 public:
  std::string name() const override { return "verify"; }
  ir::IRModule Run(const ir::IRModule& mod, PassContext&) const override {
    analysis::VerifyWellFormed(mod);
    return mod;
  }
};

}  // namespace

PassInfo VerifyPassInfo() {
  return {"verify",
          "check that the module is well-formed (the module is not changed)",
          {},
          [](const PassOptions&) { return std::make_unique<VerifyPass>(); }};
}

}  // namespace pipesplit::transform
