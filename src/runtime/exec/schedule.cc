// Pipeline schedules (see schedule.h).
//
// CheckSchedule, preconditions: none (any Schedule value may be passed).
//   1. Shape: at least one group and one micro-batch, every micro-batch index in range, no
//      receive on the first group and no send on the last.
//   2. Per group: every micro-batch computed exactly once, received once before its compute
//      (groups after the first) and sent once after it (groups before the last).
//   3. Simulation: every group advances while its next action can run (a receive needs its
//      micro-batch at the head of the link, which delivers in send order; a send needs room
//      on the link); when no group can advance before all are done, the schedule deadlocks
//      (also when a group receives in another order than its predecessor sends).
#include "pipesplit/runtime/exec/schedule.h"

#include <deque>

namespace pipesplit::runtime {

std::string ToString(const Action& action) {
  const char* kind = action.kind == ActionKind::kRecv      ? "recv "
                     : action.kind == ActionKind::kCompute ? "compute "
                                                           : "send ";
  return kind + std::to_string(action.microbatch);
}

Schedule MakePipelineSchedule(int num_groups, int num_microbatches) {
  Schedule schedule;
  schedule.num_microbatches = num_microbatches;
  schedule.groups.resize(num_groups > 0 ? num_groups : 0);
  for (int g = 0; g < num_groups; ++g) {
    for (int k = 0; k < num_microbatches; ++k) {
      if (g > 0) schedule.groups[g].push_back({ActionKind::kRecv, k});
      schedule.groups[g].push_back({ActionKind::kCompute, k});
      if (g + 1 < num_groups) schedule.groups[g].push_back({ActionKind::kSend, k});
    }
  }
  return schedule;
}

namespace {

std::string At(int group, const Action& action) {
  return "group " + std::to_string(group) + " '" + ToString(action) + "'";
}

// Step 1 and 2.
void CheckGroups(const Schedule& schedule) {
  const int num_groups = static_cast<int>(schedule.groups.size());
  const int m = schedule.num_microbatches;
  if (num_groups < 1) throw ScheduleError("it has no groups");
  if (m < 1) throw ScheduleError("it has no micro-batches");
  for (int g = 0; g < num_groups; ++g) {
    // 0: not seen, 1: received, 2: computed, 3: sent.
    std::vector<int> received(m, 0), computed(m, 0), sent(m, 0);
    for (const Action& a : schedule.groups[g]) {
      const int k = a.microbatch;
      if (k < 0 || k >= m) {
        throw ScheduleError(At(g, a) + " names a micro-batch outside 0.." + std::to_string(m - 1));
      }
      switch (a.kind) {
        case ActionKind::kRecv:
          if (g == 0) throw ScheduleError(At(g, a) + ": the first group has nothing to receive");
          if (received[k]++) throw ScheduleError(At(g, a) + " receives micro-batch twice");
          break;
        case ActionKind::kCompute:
          if (computed[k]++) throw ScheduleError(At(g, a) + " computes micro-batch twice");
          if (g > 0 && !received[k]) {
            throw ScheduleError(At(g, a) + " computes before receiving micro-batch " +
                                std::to_string(k));
          }
          break;
        case ActionKind::kSend:
          if (g + 1 == num_groups) {
            throw ScheduleError(At(g, a) + ": the last group has no next group to send to");
          }
          if (sent[k]++) throw ScheduleError(At(g, a) + " sends micro-batch twice");
          if (!computed[k]) {
            throw ScheduleError(At(g, a) + " sends before computing micro-batch " +
                                std::to_string(k));
          }
          break;
      }
    }
    for (int k = 0; k < m; ++k) {
      const std::string mb = "micro-batch " + std::to_string(k);
      if (!computed[k]) throw ScheduleError("group " + std::to_string(g) + " never computes " + mb);
      if (g > 0 && !received[k]) {
        throw ScheduleError("group " + std::to_string(g) + " never receives " + mb +
                            " that group " + std::to_string(g - 1) + " sends");
      }
      if (g + 1 < num_groups && !sent[k]) {
        throw ScheduleError("group " + std::to_string(g) + " never sends " + mb + " that group " +
                            std::to_string(g + 1) + " receives");
      }
    }
  }
}

}  // namespace

void CheckSchedule(const Schedule& schedule, int max_in_flight) {
  if (max_in_flight < 1)
    throw ScheduleError("at most " + std::to_string(max_in_flight) +
                        " micro-batches in flight per link: need at least 1");
  CheckGroups(schedule);
  const int num_groups = static_cast<int>(schedule.groups.size());
  // Step 3.
  std::vector<size_t> pc(num_groups, 0);
  std::vector<std::deque<int>> links(num_groups);  // links[g]: from group g to g+1
  for (;;) {
    bool progressed = false, done = true;
    for (int g = 0; g < num_groups; ++g) {
      while (pc[g] < schedule.groups[g].size()) {
        const Action& a = schedule.groups[g][pc[g]];
        if (a.kind == ActionKind::kRecv) {
          if (links[g - 1].empty() || links[g - 1].front() != a.microbatch) break;
          links[g - 1].pop_front();
        } else if (a.kind == ActionKind::kSend) {
          if (static_cast<int>(links[g].size()) >= max_in_flight) break;
          links[g].push_back(a.microbatch);
        }
        ++pc[g];
        progressed = true;
      }
      done &= pc[g] == schedule.groups[g].size();
    }
    if (done) return;
    if (progressed) continue;
    std::string waits;
    for (int g = 0; g < num_groups; ++g) {
      if (pc[g] == schedule.groups[g].size()) continue;
      const Action& a = schedule.groups[g][pc[g]];
      waits +=
          (waits.empty() ? "" : "; ") + At(g, a) +
          (a.kind == ActionKind::kRecv
               ? links[g - 1].empty() ? " waits for group " + std::to_string(g - 1) + " to send"
                                      : " waits, but the link from group " + std::to_string(g - 1) +
                                            " delivers micro-batch " +
                                            std::to_string(links[g - 1].front()) + " first"
               : " waits for room on the link to group " + std::to_string(g + 1) + " (" +
                     std::to_string(links[g].size()) + " in flight, at most " +
                     std::to_string(max_in_flight) + ")");
    }
    throw ScheduleError("it deadlocks: " + waits);
  }
}

}  // namespace pipesplit::runtime
