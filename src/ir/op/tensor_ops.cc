// Tensor operators: the entry point that registers every tensor op family.
#include "src/ir/op/op_families.h"

namespace pipesplit::ir {

void RegisterTensorOps() {
  RegisterElementwiseOps();
  RegisterManipulationOps();
  RegisterIndexingOps();
  RegisterReductionOps();
  RegisterCreationOps();
  RegisterLinearAlgebraOps();
  RegisterNNOps();
  RegisterConvPoolOps();
  RegisterMemoryOps();
  RegisterMiscOps();
}

}  // namespace pipesplit::ir
