// The name of a Relax call's operator as TVMScript spells it ("R.add"), for the interpreter's
// error messages.
#ifndef PIPESPLIT_SRC_RUNTIME_EXEC_OP_NAME_H_
#define PIPESPLIT_SRC_RUNTIME_EXEC_OP_NAME_H_

#include <string>

#include "pipesplit/ir/expr.h"
#include "pipesplit/ir/op.h"

namespace pipesplit::runtime {

inline const std::string& OpName(const ir::CallNode& call) { return call.op_node()->script_name(); }

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_SRC_RUNTIME_EXEC_OP_NAME_H_
