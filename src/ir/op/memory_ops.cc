// Memory operators of lowered Relax: builtin.alloc_tensor, memory.alloc_storage,
// memory.alloc_tensor, memory.kill_*, memory.view, memory.ensure_zero_offset and the vm.* forms.
#include "src/ir/op/op_families.h"

namespace pipesplit::ir {
namespace {

// The dtype carried by a R.dtype("...") argument.
DataType DTypeArg(const CallNode& call, size_t i) {
  ArgSInfo(call, i);
  const auto* imm = As<DataTypeImmNode>(call.args()[i]);
  if (imm == nullptr) Fail(call, ArgName(call, i) + " must be an R.dtype(...) value");
  return imm->value();
}

// The result of allocating a tensor of the shape in argument `shape_index`.
StructInfo AllocatedTensor(const CallNode& call, size_t shape_index, size_t dtype_index) {
  const ShapeSInfoNode& shape = ShapeArg(call, shape_index);
  return TensorLikeShape(shape, DTypeArg(call, dtype_index), "");
}

StructInfo InferBuiltinAllocTensor(const CallNode& call) {
  CheckArgCountBetween(call, 3, 4);
  if (call.args()[0]->kind() != NodeKind::kShapeExpr) {
    Fail(call, "shape must be an R.shape([...]) value");
  }
  return AllocatedTensor(call, 0, 1);
}

StructInfo InferMemAllocTensor(const CallNode& call) {
  CheckArgCountBetween(call, 4, 5);
  return AllocatedTensor(call, 2, 3);
}

StructInfo InferView(const CallNode& call) {
  CheckArgCount(call, 4);
  const TensorSInfoNode& data = TensorArg(call, 0);
  auto is_void = [&](size_t i) {
    const auto* t = As<TupleSInfoNode>(ArgSInfo(call, i));
    return t != nullptr && t->fields().empty();
  };
  const ShapeSInfoNode* view_shape = nullptr;
  if (!is_void(1)) view_shape = &ShapeArg(call, 1);
  DataType dtype = data.dtype();
  if (!is_void(2)) {
    if (const auto* imm = As<DataTypeImmNode>(call.args()[2])) {
      dtype = imm->value();
    } else if (ArgSInfo(call, 2)->kind() == NodeKind::kObjectSInfo) {
      dtype = DataType::Void();
    } else {
      Fail(call, "dtype must be an R.dtype(...) value");
    }
  }
  PrimExpr offset = Int64(0);
  if (!is_void(3)) {
    const auto* prim = As<PrimSInfoNode>(ArgSInfo(call, 3));
    if (prim == nullptr || prim->dtype() != DataType::Int(64)) {
      Fail(call, "relative_byte_offset must be an int64 R.Prim value");
    }
    offset = prim->value();
  }
  std::optional<std::vector<PrimExpr>> shape;
  int ndim = -1;
  if (view_shape != nullptr) {
    shape = view_shape->values();
    ndim = view_shape->ndim();
  } else {
    shape = data.shape();
    ndim = data.ndim();
  }
  // A view must stay inside the viewed tensor (checked when everything is constant).
  if (shape && data.shape() && !dtype.is_void() && !data.dtype().is_void() && offset) {
    auto in_bytes = AsConstInt(Mul(ShapeProduct(*data.shape()), Int64(data.dtype().bytes())));
    auto out_bytes = AsConstInt(Mul(ShapeProduct(*shape), Int64(dtype.bytes())));
    auto off = AsConstInt(offset);
    if (in_bytes && out_bytes && off && static_cast<__int128>(*out_bytes) + *off > *in_bytes) {
      Fail(call, "a view of " + std::to_string(*out_bytes) + " bytes at offset " +
                     std::to_string(*off) + " exceeds the " + std::to_string(*in_bytes) +
                     " bytes of the viewed tensor");
    }
  }
  if (shape) return MakeTensor(*shape, dtype, data.vdevice());
  return MakeTensorNdim(dtype, ndim, data.vdevice());
}

StructInfo InferEnsureZeroOffset(const CallNode& call) {
  CheckArgCount(call, 1);
  TensorArg(call, 0);
  return ArgSInfo(call, 0);
}

StructInfo InferVMAllocTensor(const CallNode& call) {
  CheckArgCount(call, 5);
  DataType dtype = DTypeArg(call, 3);
  const StructInfo& shape = ArgSInfo(call, 2);
  if (const auto* s = As<ShapeSInfoNode>(shape)) return TensorLikeShape(*s, dtype, "");
  return MakeTensorNdim(dtype, -1, "");
}

StructInfo ReturnVoid(const CallNode&) { return VoidSInfo(); }
StructInfo ReturnObject(const CallNode&) { return ObjectSInfo(); }

}  // namespace

void RegisterMemoryOps() {
  // TVM's memory planning gives the calls it makes the tensor as sinfo_args (printed, though
  // TVM's own constructor takes none).
  RegisterOp({.name = "relax.builtin.alloc_tensor",
              .params = {Arg("shape"), Arg("dtype"), Arg("runtime_device_index"),
                         OptionalArg("storage_scope", DefaultStr("global")), SInfoArgs()},
              .infer = InferBuiltinAllocTensor,
              .summary = "allocate a tensor (before memory planning)"});
  RegisterOp(
      {.name = "relax.memory.alloc_storage",
       .params = {Arg("size"), Arg("virtual_device_index"), Arg("storage_scope"), Arg("dtype")},
       .infer = ReturnObject,
       .summary = "allocate a storage buffer"});
  RegisterOp({.name = "relax.memory.alloc_tensor",
              .params = {Arg("storage"), Arg("offset"), Arg("shape"), Arg("dtype"),
                         OptionalArg("runtime_device_ind", DefaultInt(0))},
              .infer = InferMemAllocTensor,
              .summary = "allocate a tensor inside a storage buffer"});
  RegisterOp({.name = "relax.memory.kill_storage",
              .params = {Arg("storage")},
              .is_pure = false,
              .infer = ReturnVoid,
              .summary = "free a storage buffer"});
  RegisterOp({.name = "relax.memory.kill_tensor",
              .params = {Arg("tensor")},
              .is_pure = false,
              .infer = ReturnVoid,
              .summary = "free a tensor"});
  RegisterOp({.name = "relax.memory.view",
              .params = {Arg("data"), OptionalArg("shape", DefaultVoidTuple()),
                         OptionalArg("dtype", DefaultVoidTuple()),
                         OptionalArg("relative_byte_offset", DefaultVoidTuple())},
              .infer = InferView,
              .summary = "a view of a tensor with another shape, dtype or byte offset"});
  RegisterOp({.name = "relax.memory.ensure_zero_offset",
              .params = {Arg("data")},
              .infer = InferEnsureZeroOffset,
              .summary = "a copy of a tensor whose data starts at offset zero, if needed"});
  RegisterOp({.name = "relax.vm.alloc_storage",
              .params = {Arg("shape"), Arg("runtime_device_index"), Arg("dtype"),
                         OptionalArg("storage_scope", DefaultStr("global"))},
              .infer = ReturnObject,
              .summary = "allocate a storage buffer on the VM"});
  RegisterOp({.name = "relax.vm.alloc_tensor",
              .params = {Arg("storage"), Arg("offset"), Arg("shape"), Arg("dtype"),
                         OptionalArg("runtime_device_ind", DefaultInt(0))},
              .infer = InferVMAllocTensor,
              .summary = "allocate a tensor inside a VM storage buffer"});
  RegisterOp({.name = "relax.vm.kill_object",
              .params = {Arg("obj")},
              .is_pure = false,
              .infer = ReturnVoid,
              .summary = "release an object held by the VM"});
}

}  // namespace pipesplit::ir
