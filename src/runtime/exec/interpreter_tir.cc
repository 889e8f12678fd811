// The interpreter's calls into compiled TIR kernels: R.call_tir, call_tir_with_grad and
// call_tir_inplace (see interpreter.h), and the allocation of destination-passing outputs.
#include <cstring>

#include "pipesplit/ir/attrs.h"
#include "pipesplit/runtime/exec/interpreter.h"
#include "src/runtime/exec/op_profile.h"

namespace pipesplit::runtime {
namespace {

// The fields of an out_sinfo: its tuple fields, or itself.
std::vector<const ir::StructInfo*> OutputFields(const ir::StructInfo& out_sinfo) {
  std::vector<const ir::StructInfo*> fields;
  if (const auto* tuple = ir::As<ir::TupleSInfoNode>(out_sinfo)) {
    for (const ir::StructInfo& f : tuple->fields()) fields.push_back(&f);
  } else {
    fields.push_back(&out_sinfo);
  }
  return fields;
}

TensorBuilder AllocateTensor(const Interpreter& interp, const ir::StructInfo& sinfo,
                             const Frame& frame, const std::string& what) {
  const auto* tensor = ir::As<ir::TensorSInfoNode>(sinfo);
  if (tensor == nullptr) throw RuntimeError(what + " is not declared as a tensor");
  if (tensor->dtype().is_void()) throw RuntimeError(what + " has no dtype");
  if (!tensor->shape()) throw RuntimeError(what + " has no shape");
  Shape shape = interp.ResolveShape(*tensor, frame);
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      throw RuntimeError(what + ": dim " + std::to_string(i) + " of its declared shape is unknown");
    }
  }
  TensorBuilder builder(tensor->dtype(), std::move(shape));
  // Kernels need not write every element; zeroes keep such outputs deterministic.
  if (builder.nbytes() > 0) std::memset(builder.raw_data(), 0, builder.nbytes());
  return builder;
}

// call_tir_inplace's inplace_indices (one int, or a list of ints).
std::vector<int64_t> InplaceIndices(const ir::CallNode& call) {
  const ir::AttrValue* v = ir::FindAttr(call.attrs(), "inplace_indices");
  if (v == nullptr) throw RuntimeError("R.call_tir_inplace has no inplace_indices");
  if (auto i = v->ToInt()) return {*i};
  std::vector<int64_t> out;
  if (const ir::AttrList* list = v->as_list()) {
    for (const ir::AttrValue& item : *list) {
      auto i = item.ToInt();
      if (!i) break;
      out.push_back(*i);
    }
    if (out.size() == list->size()) return out;
  }
  throw RuntimeError("R.call_tir_inplace: inplace_indices must be a list of integers");
}

}  // namespace

std::vector<TensorBuilder> Interpreter::AllocateOutputs(const ir::StructInfo& out_sinfo,
                                                        const Frame& frame,
                                                        const std::string& what) const {
  std::vector<const ir::StructInfo*> fields = OutputFields(out_sinfo);
  std::vector<TensorBuilder> out;
  out.reserve(fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    std::string name = fields.size() == 1 ? what : what + " " + std::to_string(i);
    out.push_back(AllocateTensor(*this, *fields[i], frame, name));
  }
  return out;
}

Value Interpreter::CallTIR(const ir::CallNode& call, std::shared_ptr<Frame>& frame) {
  const std::string& op = call.op_node()->script_name();
  const auto* gvar = call.args().empty() ? nullptr : ir::As<ir::GlobalVarNode>(call.args()[0]);
  if (gvar == nullptr || call.args().size() < 2 || call.sinfo_args().size() != 1) {
    throw RuntimeError(op + " needs a kernel (cls.f), its arguments and one out_sinfo");
  }
  const std::string& kernel = gvar->name_hint();
  if (!ir::Is<ir::PrimFuncNode>(mod_.Lookup(kernel))) {
    throw RuntimeError(op + " calls '" + kernel + "', which is not a prim function of the module");
  }
  if (!kernels_->Has(kernel)) {
    throw RuntimeError("kernel library '" + kernels_->path() + "' has no kernel '" + kernel +
                       "' (called by " + op + "): it was not built from this module");
  }

  std::vector<Value> args;
  Value inputs = Eval(call.args()[1], frame);
  if (const auto* tuple = inputs.as_tuple()) {
    args = *tuple;
  } else {
    args.push_back(std::move(inputs));
  }
  const size_t num_inputs = args.size();

  // Outputs: fresh ones go after the inputs; an in-place one replaces its input by a copy.
  std::vector<const ir::StructInfo*> fields = OutputFields(call.sinfo_args()[0]);
  std::vector<int64_t> inplace(fields.size(), -1);
  if (call.IsOp("relax.call_tir_inplace")) {
    inplace = InplaceIndices(call);
    if (inplace.size() != fields.size()) {
      throw RuntimeError(op + " has " + std::to_string(inplace.size()) + " inplace_indices for " +
                         std::to_string(fields.size()) + " outputs");
    }
  }
  Value::Tuple outputs;
  for (size_t i = 0; i < fields.size(); ++i) {
    std::string what = "output " + std::to_string(i) + " of kernel '" + kernel + "'";
    int64_t index = inplace[i];
    if (index >= 0) {
      if (index >= static_cast<int64_t>(num_inputs)) {
        throw RuntimeError(op + ": in-place index " + std::to_string(index) +
                           " is out of range for " + std::to_string(num_inputs) + " arguments");
      }
      const Tensor& input = args[index].ExpectTensor("in-place argument " + std::to_string(index));
      Tensor copy = FromBytes(input.dtype(), input.shape(), input.raw_data(), input.nbytes());
      args[index] = copy;
      outputs.push_back(std::move(copy));
    } else {
      Tensor fresh = AllocateTensor(*this, *fields[i], *frame, what).Publish();
      args.push_back(fresh);
      outputs.push_back(std::move(fresh));
    }
  }
  if (call.args().size() > 2) {
    Value tir_vars = Eval(call.args()[2], frame);
    const Shape* values = tir_vars.as_shape();
    if (values == nullptr) throw RuntimeError(op + ": tir_vars must be a shape");
    for (int64_t v : *values) {
      args.push_back(Value::MakePrim(PrimScalar{DataType::Int(64), v, 0}));
    }
  }
  {
    detail::KernelTimer timer(kernel);
    kernels_->Call(kernel, std::span<const Value>(args));
  }
  if (ir::Is<ir::TupleSInfoNode>(call.sinfo_args()[0])) return Value::MakeTuple(std::move(outputs));
  return outputs[0];
}

}  // namespace pipesplit::runtime
