// Run-time values of Relax programs: tensors, tuples, shapes, scalars (prim values),
// strings, dtypes, callables and opaque objects. Values are cheap to copy (shared payloads)
// and immutable.
#ifndef PIPESPLIT_RUNTIME_TENSOR_VALUE_H_
#define PIPESPLIT_RUNTIME_TENSOR_VALUE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "pipesplit/ir/expr.h"
#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::runtime {

class Value;
class Frame;

// An opaque run-time object (R.Object values that are not tensors): e.g. the weight table
// a group loads for packed_params.
class Object {
 public:
  virtual ~Object() = default;
  virtual std::string TypeName() const = 0;
};

// An object whose fields vm.builtin.tuple_getitem can read (e.g. a group's weight table).
class FieldObject : public Object {
 public:
  virtual Value GetField(int64_t index) const = 0;
  // Whether GetField(index) has a value (a group's weight table holds its stages' weights).
  virtual bool HasField(int64_t index) const = 0;
};

// A scalar: an integer (also bool) or a float, with its dtype.
struct PrimScalar {
  DataType dtype = DataType::Int(64);
  int64_t int_value = 0;
  double float_value = 0;
  bool is_float() const { return dtype.is_float(); }
  double AsDouble() const { return is_float() ? float_value : static_cast<double>(int_value); }
};

// A function value: a module function, a nested function closing over its frame, or a
// packed function called by name.
struct Callable {
  const ir::FunctionNode* func = nullptr;  // null for packed functions
  std::string name;                        // function name, or the packed symbol
  std::shared_ptr<const Frame> captured;   // the defining frame of a nested function
  ir::Function keep_alive;                 // owns `func` for nested functions
};

class Value {
 public:
  using Tuple = std::vector<Value>;
  Value() = default;                     // the null value (what a call returning nothing gives)
  Value(Tensor t) : v_(std::move(t)) {}  // NOLINT
  static Value MakeTuple(Tuple fields) {
    Value v;
    v.v_ = std::make_shared<const Tuple>(std::move(fields));
    return v;
  }
  static Value MakeShape(Shape shape) {
    Value v;
    v.v_ = ShapeBox{std::move(shape)};
    return v;
  }
  static Value MakePrim(PrimScalar s) {
    Value v;
    v.v_ = s;
    return v;
  }
  static Value MakeString(std::string s) {
    Value v;
    v.v_ = StringBox{std::move(s)};
    return v;
  }
  static Value MakeDType(DataType t) {
    Value v;
    v.v_ = t;
    return v;
  }
  static Value MakeCallable(Callable c) {
    Value v;
    v.v_ = std::make_shared<const Callable>(std::move(c));
    return v;
  }
  static Value MakeObject(std::shared_ptr<const Object> o) {
    Value v;
    v.v_ = std::move(o);
    return v;
  }

  bool is_null() const { return std::holds_alternative<std::monostate>(v_); }
  const Tensor* as_tensor() const { return std::get_if<Tensor>(&v_); }
  const Tuple* as_tuple() const {
    auto* p = std::get_if<std::shared_ptr<const Tuple>>(&v_);
    return p ? p->get() : nullptr;
  }
  const Shape* as_shape() const {
    auto* p = std::get_if<ShapeBox>(&v_);
    return p ? &p->shape : nullptr;
  }
  const PrimScalar* as_prim() const { return std::get_if<PrimScalar>(&v_); }
  const std::string* as_string() const {
    auto* p = std::get_if<StringBox>(&v_);
    return p ? &p->text : nullptr;
  }
  const DataType* as_dtype() const { return std::get_if<DataType>(&v_); }
  const Callable* as_callable() const {
    auto* p = std::get_if<std::shared_ptr<const Callable>>(&v_);
    return p ? p->get() : nullptr;
  }
  const Object* as_object() const {
    auto* p = std::get_if<std::shared_ptr<const Object>>(&v_);
    return p ? p->get() : nullptr;
  }

  // The tensor, or RuntimeError "<what> must be a tensor, got <kind>".
  const Tensor& ExpectTensor(const std::string& what) const;
  // "tensor float32[2, 3]", "tuple of 2", "shape [1, 4]", "int64 5", ...
  std::string Describe() const;

  // Tensors of this value in depth-first order (tuples flattened).
  void Flatten(std::vector<Tensor>* out) const;

 private:
  struct ShapeBox {
    Shape shape;
  };
  struct StringBox {
    std::string text;
  };
  std::variant<std::monostate, Tensor, std::shared_ptr<const Tuple>, ShapeBox, PrimScalar,
               StringBox, DataType, std::shared_ptr<const Callable>, std::shared_ptr<const Object>>
      v_;
};

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_TENSOR_VALUE_H_
