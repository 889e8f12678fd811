#include "pipesplit/ir/module.h"

#include "pipesplit/support/check.h"

namespace pipesplit::ir {

const IRModule::Member* IRModule::Find(std::string_view name) const {
  auto it = index_.find(std::string(name));
  return it == index_.end() ? nullptr : &members_[it->second];
}

GlobalVar IRModule::GetGlobalVar(std::string_view name) const {
  const Member* m = Find(name);
  return m ? m->gvar : nullptr;
}

Expr IRModule::Lookup(std::string_view name) const {
  const Member* m = Find(name);
  return m ? m->func : nullptr;
}

Function IRModule::LookupFunction(std::string_view name) const {
  return Cast<FunctionNode>(Lookup(name));
}

void IRModule::Add(GlobalVar gvar, Expr func) {
  PS_CHECK(gvar && func);
  bool inserted = index_.emplace(gvar->name_hint(), members_.size()).second;
  PS_CHECK(inserted) << "duplicate module member " << gvar->name_hint();
  members_.push_back({std::move(gvar), std::move(func)});
}

void IRModule::Update(const GlobalVar& gvar, Expr func) {
  auto it = index_.find(gvar->name_hint());
  PS_CHECK(it != index_.end()) << "no module member " << gvar->name_hint();
  members_[it->second].func = std::move(func);
}

void IRModule::Remove(std::string_view name) {
  auto it = index_.find(std::string(name));
  if (it == index_.end()) return;
  size_t pos = it->second;
  members_.erase(members_.begin() + static_cast<std::ptrdiff_t>(pos));
  index_.erase(it);
  for (auto& [key, index] : index_) {
    if (index > pos) --index;
  }
}

}  // namespace pipesplit::ir
