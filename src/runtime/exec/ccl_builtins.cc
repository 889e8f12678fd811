// The collectives' builtins: runtime.disco.allreduce, allgather, broadcast_from_worker0 and
// scatter_from_worker0 as TVM's legalized R.ccl ops call them (builtins.h, ir/protocol.h).
#include <cstring>
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

// The tensor of a call of `num_args` arguments (the flags included), or of one more: an
// explicit destination last, as memory-planned modules pass it (MLC's phase 5:
// `R.call_packed("runtime.disco.allreduce", x, R.shape([0]), 1, alloc)`).
// With a destination the tensor is a view of planned storage the caller may reuse as soon as
// the call returns, while a peer may still read what it was handed (the threads transport
// passes tensors without copying): the collective then works on a copy.
Tensor Input(const BuiltinCall& call, size_t num_args, const char* name) {
  if (call.args.size() != num_args && call.args.size() != num_args + 1) {
    throw RuntimeError(std::string(name) + " takes " + std::to_string(num_args) +
                       " arguments (or one more, the destination), got " +
                       std::to_string(call.args.size()));
  }
  const Tensor& x = call.args[0].ExpectTensor(std::string("the tensor of ") + name);
  if (call.args.size() == num_args) return x;
  return FromBytes(x.dtype(), x.shape(), x.raw_data(), x.nbytes());
}

// The result of a collective: returned, or copied into the call's destination (which must have
// its dtype and shape), the call then returning nothing.
Value Deliver(const BuiltinCall& call, size_t num_args, const char* name, Tensor result) {
  if (call.args.size() == num_args) return result;
  const Tensor& dest = call.args[num_args].ExpectTensor(std::string("the destination of ") + name);
  if (dest.dtype() != result.dtype() || dest.shape() != result.shape()) {
    throw RuntimeError(std::string(name) + ": the result is " + result.ToString() +
                       " but the destination is " + dest.ToString());
  }
  std::memcpy(const_cast<void*>(dest.raw_data()), result.raw_data(), result.nbytes());
  return Value();
}

}  // namespace

void RegisterCclBuiltins(BuiltinRegistry* registry,
                         const std::shared_ptr<Collectives>& collectives) {
  registry->Register(ir::protocol::kAllReduce, [collectives](BuiltinCall& call) -> Value {
    const char* name = ir::protocol::kAllReduce;
    const Tensor x = Input(call, 3, name);
    const Shape* kind = call.args[1].as_shape();
    std::optional<ReduceKind> reduce =
        kind != nullptr && kind->size() == 1 ? ReduceKindFromCode((*kind)[0]) : std::nullopt;
    if (!reduce) {
      throw RuntimeError(std::string(name) +
                         ": argument 2 must be R.shape([kind]) with kind 0 (sum), 1 (prod), 2 "
                         "(min), 3 (max) or 4 (avg), got " +
                         call.args[1].Describe());
    }
    return Deliver(call, 3, name, collectives->AllReduce(x, *reduce, InGroup(call, 2, name)));
  });
  registry->Register(ir::protocol::kAllGather, [collectives](BuiltinCall& call) -> Value {
    const char* name = ir::protocol::kAllGather;
    const Tensor x = Input(call, 2, name);
    return Deliver(call, 2, name, collectives->AllGather(x, InGroup(call, 1, name)));
  });
  registry->Register(
      ir::protocol::kBroadcastFromWorker0, [collectives](BuiltinCall& call) -> Value {
        const char* name = ir::protocol::kBroadcastFromWorker0;
        const Tensor x = Input(call, 2, name);
        return Deliver(call, 2, name, collectives->BroadcastFromWorker0(x, InGroup(call, 1, name)));
      });
  registry->Register(ir::protocol::kScatterFromWorker0, [collectives](BuiltinCall& call) -> Value {
    const char* name = ir::protocol::kScatterFromWorker0;
    const Tensor x = Input(call, 2, name);
    return Deliver(call, 2, name, collectives->ScatterFromWorker0(x, InGroup(call, 1, name)));
  });
}

}  // namespace pipesplit::runtime
