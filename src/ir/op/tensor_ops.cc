// Tensor operators: elementwise, linear algebra, manipulation, reductions, nn, creation.
#include "src/ir/op/op_families.h"

namespace pipesplit::ir {

void RegisterTensorOps() {}

}  // namespace pipesplit::ir
