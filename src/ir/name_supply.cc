#include "pipesplit/ir/name_supply.h"

namespace pipesplit::ir {

std::string NameSupply::FreshName(std::string_view hint) {
  std::string base(hint);
  auto [it, inserted] = next_suffix_.try_emplace(base, 1);
  if (inserted) return base;
  int& counter = it->second;  // references survive rehashing; iterators do not
  // Try base<k> for increasing k; each candidate found taken is skipped permanently, so the
  // total work over all calls is linear in the number of names handed out.
  while (true) {
    std::string candidate = base + std::to_string(counter++);
    if (next_suffix_.try_emplace(candidate, 1).second) return candidate;
  }
}

void NameSupply::Reserve(std::string_view name) { next_suffix_.try_emplace(std::string(name), 1); }

bool NameSupply::Contains(std::string_view name) const {
  return next_suffix_.count(std::string(name)) != 0;
}

}  // namespace pipesplit::ir
