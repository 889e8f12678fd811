// The weights a group holds (weight_table.h).
#include "pipesplit/runtime/exec/weight_table.h"

#include <utility>

#include "pipesplit/ir/protocol.h"

namespace pipesplit::runtime {

std::string DescribeDeclared(const ir::TensorSInfoNode& t, const Shape& dims) {
  std::string out = t.dtype().is_void() ? "tensor" : t.dtype().ToString();
  if (!t.shape())
    return out + "[" + (t.ndim() >= 0 ? std::to_string(t.ndim()) + " dims" : "?") + "]";
  out += "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    out += (i ? ", " : "") + (dims[i] >= 0 ? std::to_string(dims[i]) : std::string("?"));
  }
  return out + "]";
}

bool MatchesDeclared(const Tensor& t, const ir::TensorSInfoNode& declared, const Shape& dims) {
  bool ok = declared.dtype().is_void() || declared.dtype() == t.dtype();
  if (declared.shape()) {
    ok &= dims.size() == t.shape().size();
    for (size_t i = 0; ok && i < dims.size(); ++i) ok &= dims[i] < 0 || dims[i] == t.shape()[i];
  } else if (declared.ndim() >= 0) {
    ok &= declared.ndim() == t.ndim();
  }
  return ok;
}

std::string WeightTable::TypeName() const {
  return "the weight table of group " + std::to_string(group_);
}

Value WeightTable::GetField(int64_t index) const {
  auto it = tensors_.find(index);
  if (it == tensors_.end()) {
    throw RuntimeError("packed_params[" + std::to_string(index) +
                       "] is not loaded on this group: its stage does not read it");
  }
  return it->second;
}

void WeightTable::LoadReadsOf(const ir::FunctionNode& func, const std::string& name,
                              const WeightSource& weights, WorkerReport& report) {
  for (const ir::WeightRead& read : ir::WeightReadsOf(func)) {
    if (Has(read.index)) continue;
    Tensor t = weights.Load(read.index);
    if (const auto* declared = ir::As<ir::TensorSInfoNode>(read.sinfo)) {
      Shape dims;
      if (declared->shape()) {
        for (const ir::PrimExpr& d : *declared->shape()) {
          dims.push_back(ir::AsConstInt(d).value_or(-1));
        }
      }
      if (!MatchesDeclared(t, *declared, dims)) {
        throw RuntimeError("packed_params[" + std::to_string(read.index) + "] ('" +
                           weights.Name(read.index) + "') is " + t.ToString() + " but '" + name +
                           "' reads it as " + DescribeDeclared(*declared, dims));
      }
    }
    report.weight_bytes += t.nbytes();
    report.weight_indices.push_back(read.index);
    tensors_.emplace(read.index, std::move(t));
  }
}

}  // namespace pipesplit::runtime
