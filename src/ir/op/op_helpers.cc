#include "src/ir/op/op_families.h"

namespace pipesplit::ir {

OpParam Arg(std::string name) { return {std::move(name), OpParam::Kind::kArg, std::nullopt}; }
OpParam OptionalArg(std::string name, AttrValue default_value) {
  return {std::move(name), OpParam::Kind::kArg, std::move(default_value)};
}
OpParam Variadic(std::string name) {
  return {std::move(name), OpParam::Kind::kVariadic, std::nullopt};
}
OpParam Attr(std::string name, AttrValue default_value) {
  return {std::move(name), OpParam::Kind::kAttr, std::move(default_value)};
}
OpParam RequiredAttr(std::string name) {
  return {std::move(name), OpParam::Kind::kAttr, std::nullopt};
}
OpParam SInfoArgs(std::string name) {
  return {std::move(name), OpParam::Kind::kSInfoArgs, AttrValue()};
}

void InferFail(std::string message) { throw InferError{std::move(message)}; }

std::string OpDisplayName(const CallNode& call) {
  if (const OpNode* op = call.op_node()) {
    std::string_view name = op->name();
    if (name.substr(0, 6) == "relax.") name.remove_prefix(6);
    return "R." + std::string(name);
  }
  return "call";
}

const StructInfo& ArgSInfo(const CallNode& call, size_t i) {
  if (i >= call.args().size()) {
    InferFail(OpDisplayName(call) + " expects at least " + std::to_string(i + 1) +
              " arguments, got " + std::to_string(call.args().size()));
  }
  return call.args()[i]->struct_info();
}

const TensorSInfoNode& TensorArg(const CallNode& call, size_t i) {
  const auto* t = As<TensorSInfoNode>(ArgSInfo(call, i));
  if (t == nullptr) {
    InferFail(OpDisplayName(call) + " expects a tensor as argument " + std::to_string(i + 1));
  }
  return *t;
}

StructInfo DeclaredResult(const CallNode& call) {
  const auto& s = call.sinfo_args();
  if (s.empty()) return ObjectSInfo();
  if (s.size() == 1) return s[0];
  return TupleSInfo(s);
}

}  // namespace pipesplit::ir
