// The parts of a session (session.h) every launcher and worker shares: in-memory weights, the
// layout of an entry, the schedule a session runs and the capacity of its links.
#include "pipesplit/runtime/exec/session.h"

#include <algorithm>

#include "pipesplit/ir/protocol.h"

namespace pipesplit::runtime {

EntryLayout AnalyzeEntry(const ir::IRModule& mod, const std::string& entry) {
  EntryLayout layout;
  layout.func = mod.LookupFunction(entry);
  if (!layout.func) throw RuntimeError("the module has no Relax function '" + entry + "'");
  const auto& params = layout.func->params();
  layout.has_packed_params =
      !params.empty() && params.back()->name_hint() == ir::protocol::kPackedParams;
  layout.num_inputs = params.size() - (layout.has_packed_params ? 1 : 0);
  if (const ir::CallNode* dispatch = ir::FindDispatchCall(*layout.func)) {
    std::optional<std::vector<const ir::TupleNode*>> table = ir::ReadDispatchTable(*dispatch);
    if (!table) throw RuntimeError("'" + entry + "' has a malformed dispatch table");
    for (const ir::TupleNode* item : *table) {
      const auto* gvar = item != nullptr ? ir::As<ir::GlobalVarNode>(item->fields()[0]) : nullptr;
      if (gvar == nullptr) throw RuntimeError("'" + entry + "' has a malformed dispatch table");
      layout.stages.push_back(gvar->name_hint());
    }
  }
  return layout;
}

std::vector<std::string> GroupFunctions(const ir::IRModule& mod, const std::string& entry,
                                        int num_groups) {
  std::vector<std::string> stages = AnalyzeEntry(mod, entry).stages;
  if (stages.empty()) stages.assign(static_cast<size_t>(std::max(num_groups, 0)), entry);
  return stages;
}

Schedule ResolveSchedule(const SessionOptions& options) {
  if (options.num_microbatches < 1) throw ScheduleError("it has no micro-batches");
  Schedule schedule = options.schedule
                          ? *options.schedule
                          : MakePipelineSchedule(options.num_groups, options.num_microbatches);
  if (static_cast<int>(schedule.groups.size()) != options.num_groups) {
    throw ScheduleError("it has " + std::to_string(schedule.groups.size()) +
                        " groups but the session has " + std::to_string(options.num_groups));
  }
  if (schedule.num_microbatches != options.num_microbatches) {
    throw ScheduleError("it has " + std::to_string(schedule.num_microbatches) +
                        " micro-batches but the run has " +
                        std::to_string(options.num_microbatches));
  }
  CheckSchedule(schedule, options.max_in_flight);
  return schedule;
}

size_t LinkCapacity(const ir::IRModule& mod, const std::string& entry,
                    const SessionOptions& options) {
  size_t most = 1;
  for (const std::string& stage : AnalyzeEntry(mod, entry).stages) {
    if (ir::Function f = mod.LookupFunction(stage)) {
      most = std::max(most, ir::CountPackedCalls(*f, ir::protocol::kSendToNextGroup));
    }
  }
  return most * static_cast<size_t>(std::max(options.max_in_flight, 1));
}

}  // namespace pipesplit::runtime
