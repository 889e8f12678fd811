// The builtin registry and the core builtins (builtins.h).
#include "pipesplit/runtime/exec/builtins.h"

#include <chrono>
#include <memory>

#include "pipesplit/ir/protocol.h"
#include "pipesplit/runtime/dist/collectives.h"
#include "pipesplit/runtime/exec/kv_cache.h"
#include "pipesplit/runtime/exec/paged_kv_cache.h"

namespace pipesplit::runtime {

const BuiltinFn* BuiltinRegistry::Find(std::string_view name) const {
  auto it = fns_.find(std::string(name));
  return it == fns_.end() ? nullptr : &it->second;
}

void RegisterCoreBuiltins(BuiltinRegistry* registry) {
  registry->Register(ir::protocol::kTupleGetItem, [](BuiltinCall& call) -> Value {
    if (call.args.size() != 2) throw RuntimeError("vm.builtin.tuple_getitem takes 2 arguments");
    const PrimScalar* index = call.args[1].as_prim();
    if (index == nullptr || index->is_float()) {
      throw RuntimeError("vm.builtin.tuple_getitem: the index must be an integer prim value");
    }
    if (const auto* tuple = call.args[0].as_tuple()) {
      if (index->int_value < 0 || index->int_value >= static_cast<int64_t>(tuple->size())) {
        throw RuntimeError("vm.builtin.tuple_getitem: index " + std::to_string(index->int_value) +
                           " is out of range for a tuple of " + std::to_string(tuple->size()));
      }
      return (*tuple)[index->int_value];
    }
    if (const auto* object = dynamic_cast<const FieldObject*>(call.args[0].as_object())) {
      return object->GetField(index->int_value);
    }
    throw RuntimeError("vm.builtin.tuple_getitem: expected a tuple, got " +
                       call.args[0].Describe());
  });
  registry->Register(ir::protocol::kStageBoundary, [](BuiltinCall& call) -> Value {
    if (call.args.size() == 1) return call.args[0];
    return Value::MakeTuple(call.args);
  });
  registry->Register("vm.builtin.reshape", [](BuiltinCall& call) -> Value {
    if (call.args.size() != 2) throw RuntimeError("vm.builtin.reshape takes 2 arguments");
    const Tensor& data = call.args[0].ExpectTensor("vm.builtin.reshape: the data");
    const Shape* shape = call.args[1].as_shape();
    if (shape == nullptr) {
      throw RuntimeError("vm.builtin.reshape: the shape must be a shape, got " +
                         call.args[1].Describe());
    }
    if (ShapeNumel(*shape, "vm.builtin.reshape") != data.numel()) {
      throw RuntimeError("vm.builtin.reshape: cannot view " + data.ToString() + " as " +
                         ShapeToString(*shape));
    }
    return data.WithShape(*shape);
  });
  RegisterKvCacheBuiltins(registry);
  RegisterPagedKvCacheBuiltins(registry);
  RegisterCclBuiltins(
      registry, std::make_shared<Collectives>(nullptr, 0, 1, 1, std::chrono::milliseconds(0)));
}

}  // namespace pipesplit::runtime
