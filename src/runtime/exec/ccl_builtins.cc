// The collectives' builtins: runtime.disco.allreduce, allgather, broadcast_from_worker0 and
// scatter_from_worker0 as TVM's legalized R.ccl ops call them (builtins.h, ir/protocol.h).
#include <memory>
#include <string>
#include <utility>

#include "pipesplit/ir/protocol.h"
#include "pipesplit/runtime/dist/collectives.h"
#include "pipesplit/runtime/exec/builtins.h"

namespace pipesplit::runtime {
namespace {

// The in_group flag of a call: a bool or an integer prim value.
bool InGroup(const BuiltinCall& call, size_t index, const char* name) {
  const PrimScalar* flag = index < call.args.size() ? call.args[index].as_prim() : nullptr;
  if (flag == nullptr || flag->is_float()) {
    throw RuntimeError(std::string(name) + ": argument " + std::to_string(index + 1) +
                       " (in_group) must be a boolean");
  }
  return flag->int_value != 0;
}

// The tensor of a call; a second tensor after the flags (an explicit destination, as in
// memory-planned modules) is refused by name.
const Tensor& Input(const BuiltinCall& call, size_t num_args, const char* name) {
  if (call.args.size() != num_args) {
    throw RuntimeError(std::string(name) + " takes " + std::to_string(num_args) +
                       " arguments here, got " + std::to_string(call.args.size()) +
                       (call.args.size() == num_args + 1
                            ? " (an explicit destination tensor is not supported; call it "
                              "destination-passing with call_dps_packed)"
                            : ""));
  }
  return call.args[0].ExpectTensor(std::string("the tensor of ") + name);
}

}  // namespace

void RegisterCclBuiltins(BuiltinRegistry* registry,
                         const std::shared_ptr<Collectives>& collectives) {
  registry->Register(ir::protocol::kAllReduce, [collectives](BuiltinCall& call) -> Value {
    const char* name = ir::protocol::kAllReduce;
    const Tensor& x = Input(call, 3, name);
    const Shape* kind = call.args[1].as_shape();
    std::optional<ReduceKind> reduce =
        kind != nullptr && kind->size() == 1 ? ReduceKindFromCode((*kind)[0]) : std::nullopt;
    if (!reduce) {
      throw RuntimeError(std::string(name) +
                         ": argument 2 must be R.shape([kind]) with kind 0 (sum), 1 (prod), 2 "
                         "(min), 3 (max) or 4 (avg), got " +
                         call.args[1].Describe());
    }
    return collectives->AllReduce(x, *reduce, InGroup(call, 2, name));
  });
  registry->Register(ir::protocol::kAllGather, [collectives](BuiltinCall& call) -> Value {
    const char* name = ir::protocol::kAllGather;
    const Tensor& x = Input(call, 2, name);
    return collectives->AllGather(x, InGroup(call, 1, name));
  });
  registry->Register(ir::protocol::kBroadcastFromWorker0,
                     [collectives](BuiltinCall& call) -> Value {
                       const char* name = ir::protocol::kBroadcastFromWorker0;
                       const Tensor& x = Input(call, 2, name);
                       return collectives->BroadcastFromWorker0(x, InGroup(call, 1, name));
                     });
  registry->Register(ir::protocol::kScatterFromWorker0, [collectives](BuiltinCall& call) -> Value {
    const char* name = ir::protocol::kScatterFromWorker0;
    const Tensor& x = Input(call, 2, name);
    return collectives->ScatterFromWorker0(x, InGroup(call, 1, name));
  });
}

}  // namespace pipesplit::runtime
