#include "pipesplit/ir/attrs.h"

#include "pipesplit/ir/vdevice.h"

namespace pipesplit::ir {

const AttrList* AttrValue::as_list() const {
  auto* p = std::get_if<std::shared_ptr<const AttrList>>(&value_);
  return p ? p->get() : nullptr;
}

const AttrMap* AttrValue::as_map() const {
  auto* p = std::get_if<std::shared_ptr<const AttrMap>>(&value_);
  return p ? p->get() : nullptr;
}

const AttrCall* AttrValue::as_call() const {
  auto* p = std::get_if<std::shared_ptr<const AttrCall>>(&value_);
  return p ? p->get() : nullptr;
}

std::optional<int64_t> AttrValue::ToInt() const {
  if (const int64_t* v = as_int()) return *v;
  if (const PrimExpr* e = as_prim_expr()) {
    if ((*e)->dtype().is_integer()) return AsConstInt(*e);
  }
  return std::nullopt;
}

const AttrValue* FindAttr(const AttrMap& map, std::string_view key) {
  for (const auto& [k, v] : map) {
    if (k == key) return &v;
  }
  return nullptr;
}

AttrMap WithAttr(AttrMap map, std::string key, AttrValue value) {
  for (auto& [k, v] : map) {
    if (k == key) {
      v = std::move(value);
      return map;
    }
  }
  map.emplace_back(std::move(key), std::move(value));
  return map;
}

AttrMap WithoutAttr(AttrMap map, std::string_view key) {
  std::erase_if(map, [&](const auto& kv) { return kv.first == key; });
  return map;
}

AttrCall CompleteVDevice(const AttrCall& call) {
  if (call.callee != "I.vdevice" || call.args.empty() || call.args.size() > 3) return call;
  AttrCall out{.callee = call.callee, .args = {call.args[0]}, .kwargs = {}};
  // The configuration TVM's target constructor gives a bare "llvm" (host CPU, no triple).
  if (const std::string* target = call.args[0].as_string(); target && *target == "llvm") {
    out.args[0] =
        AttrMap{{"keys", AttrList{"cpu"}}, {"kind", "llvm"}, {"mtriple", ""}, {"tag", ""}};
  }
  // Positional, else keyword, else the default.
  auto param = [&](size_t index, std::string_view name, AttrValue default_value) {
    if (call.args.size() > index) return call.args[index];
    if (const AttrValue* v = FindAttr(call.kwargs, name)) return *v;
    return default_value;
  };
  out.args.push_back(param(1, "vdevice_id", 0));
  out.args.push_back(param(2, "memory_scope", "global"));
  for (const auto& [key, value] : call.kwargs) {
    if (key != "vdevice_id" && key != "memory_scope") out.kwargs.emplace_back(key, value);
  }
  return out;
}

}  // namespace pipesplit::ir
