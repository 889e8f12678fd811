// Runtime values: descriptions and flattening.
#include "pipesplit/runtime/tensor/value.h"

namespace pipesplit::runtime {

const Tensor& Value::ExpectTensor(const std::string& what) const {
  if (const Tensor* t = as_tensor()) return *t;
  throw RuntimeError(what + " must be a tensor, got " + Describe());
}

std::string Value::Describe() const {
  if (is_null()) return "nothing";
  if (const Tensor* t = as_tensor()) return "tensor " + t->ToString();
  if (const Tuple* t = as_tuple()) return "tuple of " + std::to_string(t->size());
  if (const Shape* s = as_shape()) return "shape " + ShapeToString(*s);
  if (const PrimScalar* p = as_prim()) {
    return p->dtype.ToString() + " " +
           (p->is_float() ? std::to_string(p->float_value) : std::to_string(p->int_value));
  }
  if (const std::string* s = as_string()) return "string \"" + *s + "\"";
  if (const DataType* d = as_dtype()) return "dtype " + d->ToString();
  if (const Callable* c = as_callable()) return "function '" + c->name + "'";
  if (const Object* o = as_object()) return o->TypeName();
  return "value";
}

void Value::Flatten(std::vector<Tensor>* out) const {
  if (const Tensor* t = as_tensor()) {
    out->push_back(*t);
  } else if (const Tuple* tuple = as_tuple()) {
    for (const Value& v : *tuple) v.Flatten(out);
  }
}

}  // namespace pipesplit::runtime
