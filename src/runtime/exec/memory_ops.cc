// The explicit memory of a memory-planned module (TVM's StaticPlanBlockMemory output, MLC's
// phase 5): R.memory.alloc_storage gives a zeroed byte buffer (a Storage object),
// R.memory.alloc_tensor a tensor viewing it at a byte offset, R.builtin.alloc_tensor a fresh
// zeroed tensor, R.memory.kill_storage / kill_tensor end a lifetime (the buffer is freed when
// the last tensor viewing it goes). Such tensors are the destinations kernels called
// destination-passing write into (interpreter.h); the planner guarantees that tensors sharing
// a storage are not live at once.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "pipesplit/runtime/exec/interpreter.h"
#include "src/runtime/exec/op_name.h"

namespace pipesplit::runtime {
namespace {

// A buffer of R.memory.alloc_storage.
class Storage : public Object {
 public:
  explicit Storage(int64_t nbytes) : nbytes_(nbytes) {
    TensorBuilder builder(DataType::UInt(8), {nbytes > 0 ? nbytes : 1});
    std::memset(builder.raw_data(), 0, static_cast<size_t>(builder.nbytes()));
    bytes_ = std::move(builder).Publish();
  }
  std::string TypeName() const override { return "storage"; }
  int64_t nbytes() const { return nbytes_; }
  const Tensor& bytes() const { return bytes_; }

 private:
  int64_t nbytes_;
  Tensor bytes_;
};

void ExpectArgs(const ir::CallNode& call, const std::vector<Value>& args, size_t n) {
  if (args.size() != n) {
    throw RuntimeError(OpName(call) + " takes " + std::to_string(n) + " arguments, got " +
                       std::to_string(args.size()));
  }
}

const Shape& ShapeArg(const ir::CallNode& call, const Value& v, const char* what) {
  const Shape* shape = v.as_shape();
  if (shape == nullptr) {
    throw RuntimeError(OpName(call) + ": " + what + " must be a shape, got " + v.Describe());
  }
  return *shape;
}

DataType DTypeArg(const ir::CallNode& call, const Value& v) {
  const DataType* dtype = v.as_dtype();
  if (dtype == nullptr) {
    throw RuntimeError(OpName(call) + ": the dtype must be a dtype, got " + v.Describe());
  }
  return *dtype;
}

int64_t IntArg(const ir::CallNode& call, const Value& v, const char* what) {
  const PrimScalar* p = v.as_prim();
  if (p == nullptr || p->is_float()) {
    throw RuntimeError(OpName(call) + ": " + what + " must be an integer, got " + v.Describe());
  }
  return p->int_value;
}

void ExpectCpu(const ir::CallNode& call, int64_t device) {
  if (device != 0) {
    throw RuntimeError(OpName(call) + ": device index " + std::to_string(device) +
                       " does not exist (the runtime has one device, 0)");
  }
}

}  // namespace

bool IsMemoryOp(const std::string& name) {
  return name == "relax.memory.alloc_storage" || name == "relax.memory.alloc_tensor" ||
         name == "relax.memory.kill_storage" || name == "relax.memory.kill_tensor" ||
         name == "relax.builtin.alloc_tensor";
}

Value RunMemoryOp(const ir::CallNode& call, const std::vector<Value>& args) {
  const std::string& name = call.op_node()->name();
  if (name == "relax.memory.alloc_storage") {  // (size in bytes, device, scope, dtype)
    ExpectArgs(call, args, 4);
    const Shape& size = ShapeArg(call, args[0], "the size");
    if (size.size() != 1 || size[0] < 0) {
      throw RuntimeError(OpName(call) + ": the size must be one non-negative byte count, got " +
                         ShapeToString(size));
    }
    ExpectCpu(call, IntArg(call, args[1], "the device index"));
    return Value::MakeObject(std::make_shared<const Storage>(size[0]));
  }
  if (name == "relax.memory.alloc_tensor") {  // (storage, offset, shape, dtype[, device])
    if (args.size() != 4) ExpectArgs(call, args, 5);
    const auto* storage = dynamic_cast<const Storage*>(args[0].as_object());
    if (storage == nullptr) {
      throw RuntimeError(OpName(call) +
                         ": the storage must be one of R.memory.alloc_storage, got " +
                         args[0].Describe());
    }
    const int64_t offset = IntArg(call, args[1], "the offset");
    const Shape& shape = ShapeArg(call, args[2], "the shape");
    const DataType dtype = DTypeArg(call, args[3]);
    CheckStorableDType(dtype, "R.memory.alloc_tensor");
    const int64_t nbytes = ShapeNumel(shape, "R.memory.alloc_tensor") * dtype.bytes();
    if (offset < 0 || offset % dtype.bytes() != 0 || offset > storage->nbytes() ||
        nbytes > storage->nbytes() - offset) {
      throw RuntimeError(OpName(call) + ": a " + dtype.ToString() + ShapeToString(shape) +
                         " tensor at byte offset " + std::to_string(offset) +
                         " does not fit a storage of " + std::to_string(storage->nbytes()) +
                         " bytes");
    }
    const Tensor& bytes = storage->bytes();
    return Tensor::View(dtype, shape, static_cast<const char*>(bytes.raw_data()) + offset,
                        bytes.storage());
  }
  if (name == "relax.builtin.alloc_tensor") {  // (shape, dtype, device[, scope])
    if (args.size() != 3) ExpectArgs(call, args, 4);
    TensorBuilder builder(DTypeArg(call, args[1]), ShapeArg(call, args[0], "the shape"));
    ExpectCpu(call, IntArg(call, args[2], "the device index"));
    if (builder.nbytes() > 0) std::memset(builder.raw_data(), 0, builder.nbytes());
    return std::move(builder).Publish();
  }
  // kill_storage / kill_tensor: the frame drops its values at their last use already.
  ExpectArgs(call, args, 1);
  return Value();
}

}  // namespace pipesplit::runtime
