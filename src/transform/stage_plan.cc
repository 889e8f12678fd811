// The stage plan's own queries and edits (the data structure of pipeline_stage_plan.h), apart
// from the builder that fills it (pipeline_stage_plan.cc) and the symbolic-var step that edits
// it (pipeline_symbols.cc), so those two depend on the plan and not on each other.
#include <algorithm>

#include "pipesplit/transform/pipeline_stage_plan.h"

namespace pipesplit::transform {

using ir::Var;

const Var& StagePlan::Resolve(const Var& var) const {
  const Var* current = &var;
  // Alias chains are acyclic (an alias is defined after what it stands for).
  for (auto it = aliases.find(current->get()); it != aliases.end();
       it = aliases.find(current->get())) {
    current = &it->second;
  }
  return *current;
}

void StagePlan::ForwardValue(const Var& value, int from_stage, int to_stage) {
  for (int k = from_stage; k < to_stage; ++k) {
    std::vector<Transfer>& carried_by_k = transfers[k];
    bool carried = std::any_of(carried_by_k.begin(), carried_by_k.end(),
                               [&](const Transfer& tr) { return tr.value == value; });
    if (!carried) carried_by_k.push_back({value, value, /*forwarded=*/true, /*erase_shape=*/false});
  }
}

}  // namespace pipesplit::transform
