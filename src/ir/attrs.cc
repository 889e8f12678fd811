#include "pipesplit/ir/attrs.h"

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

}  // namespace pipesplit::ir
