// The well-formedness checker's comparison of a call_tir with its kernel's signature (invariant
// 17 of well_formed.cc): the arguments, the outputs not written in place and the tir_vars, in
// that order, are the prim function's parameters; tensors agree with their buffers in dtype, rank
// and constant dims where both sides know them.
#include <optional>

#include "pipesplit/ir/expr.h"
#include "pipesplit/ir/prim_text.h"
#include "pipesplit/ir/struct_info.h"
#include "pipesplit/ir/tir.h"
#include "pipesplit/script/printer.h"
#include "src/analysis/well_formed_checker.h"

namespace pipesplit::analysis {

using namespace ir;  // NOLINT: IR node names throughout

namespace {

// One value the call passes to the kernel.
struct Slot {
  std::string position;  // "argument 0", "output 1", "tir_vars entry 0"
  StructInfo sinfo;      // null for a tir_vars entry
};

std::string BufferText(const BufferNode& buffer) {
  std::string dims;
  for (const PrimExpr& dim : buffer.shape()) {
    if (!dims.empty()) dims += ", ";
    dims += dim ? FormatPrimExpr(dim, PrimTextOptions::Tir()).text : "?";
  }
  if (buffer.shape().size() == 1) dims += ",";
  return "T.Buffer((" + dims + "), \"" + buffer.dtype().ToString() + "\")";
}

// What differs between a tensor and the buffer it is passed as, or empty.
std::string Disagreement(const TensorSInfoNode& tensor, const BufferNode& buffer,
                         bool static_dims) {
  if (!tensor.dtype().is_void() && tensor.dtype() != buffer.dtype()) return "the dtypes differ";
  size_t rank = buffer.shape().size();
  if (tensor.ndim() >= 0 && static_cast<size_t>(tensor.ndim()) != rank) {
    return "the ranks differ";
  }
  if (!static_dims || !tensor.shape() || tensor.shape()->size() != rank) return {};
  for (size_t i = 0; i < rank; ++i) {
    const PrimExpr& a = (*tensor.shape())[i];
    const PrimExpr& b = buffer.shape()[i];
    std::optional<int64_t> x = a ? AsConstInt(a) : std::nullopt;
    std::optional<int64_t> y = b ? AsConstInt(b) : std::nullopt;
    if (x && y && *x != *y) return "dimension " + std::to_string(i) + " differs";
  }
  return {};
}

// The inplace_indices of a call_tir_inplace; nullopt when absent or malformed (the op's inference
// rule reports those).
std::optional<std::vector<int64_t>> InplaceIndices(const CallNode& call) {
  for (const auto& [key, value] : call.attrs()) {
    if (key != "inplace_indices") continue;
    std::vector<int64_t> out;
    if (std::optional<int64_t> one = value.ToInt()) return std::vector<int64_t>{*one};
    const AttrList* list = value.as_list();
    if (list == nullptr) return std::nullopt;
    for (const AttrValue& item : *list) {
      std::optional<int64_t> index = item.ToInt();
      if (!index) return std::nullopt;
      out.push_back(*index);
    }
    return out;
  }
  return std::nullopt;
}

}  // namespace

void CheckCallTirSignature(const CallNode& call, const PrimFuncNode& func, const std::string& name,
                           Span span, bool static_dims, std::vector<Diagnostic>* out) {
  if (call.args().size() < 2 || call.args()[1] == nullptr || call.sinfo_args().empty()) return;
  const auto* args = As<TupleSInfoNode>(call.args()[1]->struct_info());
  const StructInfo& out_sinfo = call.sinfo_args()[0];
  if (args == nullptr || out_sinfo == nullptr) return;  // inference reports these
  std::vector<StructInfo> outputs = {out_sinfo};
  if (const auto* tuple = As<TupleSInfoNode>(out_sinfo)) outputs = tuple->fields();
  std::vector<int64_t> inplace(outputs.size(), -1);
  if (call.IsOp("relax.call_tir_inplace")) {
    std::optional<std::vector<int64_t>> indices = InplaceIndices(call);
    if (!indices || indices->size() != outputs.size()) return;
    inplace = *indices;
  }
  std::vector<Slot> slots;
  slots.reserve(args->fields().size() + outputs.size() + 4);
  for (size_t i = 0; i < args->fields().size(); ++i) {
    slots.push_back({"argument " + std::to_string(i), args->fields()[i]});
  }
  size_t num_outputs = 0;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (inplace[i] >= 0) continue;  // written into an argument's buffer
    slots.push_back({"output " + std::to_string(i), outputs[i]});
    ++num_outputs;
  }
  size_t num_tir_vars = 0;
  if (call.args().size() >= 3 && call.args()[2] != nullptr) {
    const auto* shape = As<ShapeSInfoNode>(call.args()[2]->struct_info());
    if (shape == nullptr || shape->ndim() < 0) return;
    num_tir_vars = static_cast<size_t>(shape->ndim());
    for (size_t i = 0; i < num_tir_vars; ++i) {
      slots.push_back({"tir_vars entry " + std::to_string(i), nullptr});
    }
  }
  // Spelled only for a message (printing the callee costs more than checking the call).
  auto callee = [&] { return script::PrintShortCallee(call.op()); };
  auto kernel = [&] { return "prim function '" + name + "'"; };
  auto error = [&](std::string message) {
    out->push_back({Severity::kError, span, std::move(message), {}});
  };
  if (slots.size() != func.params().size()) {
    error(callee() + " passes " + Plural(slots.size(), "value", "values") + " (" +
          Plural(args->fields().size(), "argument", "arguments") + ", " +
          Plural(num_outputs, "output", "outputs") + ", " +
          Plural(num_tir_vars, "tir_vars entry", "tir_vars entries") + ") to " + kernel() +
          ", which has " + Plural(func.params().size(), "parameter", "parameters"));
    return;
  }
  for (size_t i = 0; i < slots.size(); ++i) {
    const TirVar& param = func.params()[i];
    if (param == nullptr) continue;
    const Buffer* buffer = func.BufferOf(param.get());
    const Slot& slot = slots[i];
    const auto* tensor = slot.sinfo ? As<TensorSInfoNode>(slot.sinfo) : nullptr;
    if (buffer != nullptr && *buffer != nullptr && tensor != nullptr) {
      std::string what = Disagreement(*tensor, **buffer, static_dims);
      if (what.empty()) continue;
      error(callee() + " to " + kernel() + ": " + slot.position + " is " +
            script::PrintShort(slot.sinfo) + " but buffer '" + (*buffer)->name() + "' is " +
            BufferText(**buffer) + " (" + what + ")");
    } else if (buffer == nullptr && param->dtype().code() != DataType::Code::kHandle &&
               tensor != nullptr) {
      error(callee() + " to " + kernel() + ": " + slot.position + " is " +
            script::PrintShort(slot.sinfo) + " but parameter '" + param->name() + "' is a " +
            param->dtype().ToString() + " scalar");
    } else if (slot.sinfo == nullptr && buffer != nullptr) {
      error(callee() + " to " + kernel() + ": " + slot.position + " is a scalar but parameter '" +
            param->name() + "' is buffer '" + (*buffer)->name() + "'");
    }
  }
}

}  // namespace pipesplit::analysis
