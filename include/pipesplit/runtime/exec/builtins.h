// Builtins: the packed functions a module calls by name (R.call_packed and the packing ops),
// as the interpreter runs them. A registry maps names to functions; the core builtins are
// tuple_getitem, the stage boundary and the KV caches (kv_cache.h, paged_kv_cache.h); a worker
// adds the worker-group builtins (pipeline_worker.h).
#ifndef PIPESPLIT_RUNTIME_EXEC_BUILTINS_H_
#define PIPESPLIT_RUNTIME_EXEC_BUILTINS_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pipesplit/ir/struct_info.h"
#include "pipesplit/runtime/tensor/tensor.h"
#include "pipesplit/runtime/tensor/value.h"

namespace pipesplit::runtime {

class Collectives;
class Frame;
class Interpreter;

// What a builtin (packed function) receives.
struct BuiltinCall {
  Interpreter& interpreter;
  std::vector<Value>& args;
  // For destination-passing calls (call_dps_packed): the declared output, with symbolic dims
  // resolved as far as the frame knows them (-1 for dims it cannot resolve).
  const ir::StructInfo* out_sinfo = nullptr;
  const Frame* frame = nullptr;
  // call_dps_packed: the destination tensors out_sinfo declares (one per tensor field),
  // allocated zeroed on first use (RuntimeError when out_sinfo leaves a dim unknown). A builtin
  // that fills them returns the null Value, and the call then returns them (a tuple when
  // out_sinfo is a tuple); a builtin that returns a value (recv_from_prev_group) never needs
  // them.
  std::vector<TensorBuilder>& Outputs();
  std::optional<std::vector<TensorBuilder>> outputs;
};
using BuiltinFn = std::function<Value(BuiltinCall&)>;

class BuiltinRegistry {
 public:
  void Register(std::string name, BuiltinFn fn) { fns_[std::move(name)] = std::move(fn); }
  const BuiltinFn* Find(std::string_view name) const;

 private:
  std::unordered_map<std::string, BuiltinFn> fns_;
};

// Registers the builtins every run has: vm.builtin.tuple_getitem,
// mlc.pipeline_parallel_stage_boundary (the identity), the KV cache builtins (kv_cache.h), the
// paged KV cache builtins for worker group 0 of 1 (paged_kv_cache.h) and the collectives of a
// session of one worker (each the identity). The worker-group builtins (send, recv, dispatch,
// the collectives among the session's workers) are registered by the session.
void RegisterCoreBuiltins(BuiltinRegistry* registry);

// Registers runtime.disco.allreduce, allgather, broadcast_from_worker0 and scatter_from_worker0
// (the lowered R.ccl ops, ir/protocol.h) over `collectives`: arguments as TVM's legalization
// passes them (the tensor, the reduction kind as R.shape([kind]) for allreduce, in_group), the
// result returned (the destination of call_dps_packed is not needed).
void RegisterCclBuiltins(BuiltinRegistry* registry,
                         const std::shared_ptr<Collectives>& collectives);

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_EXEC_BUILTINS_H_
