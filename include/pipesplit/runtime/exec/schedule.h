// A pipeline schedule as data: for every group, the ordered actions it performs on the
// micro-batches of one run (receive micro-batch k from the previous group, compute k, send k
// to the next group). The same schedule drives the thread and the MPI transports.
//
// CheckSchedule proves a schedule before anything runs, by simulating it: every group
// computes every micro-batch once, after receiving it (groups after the first) and before
// sending it (groups before the last); every receive has its send and the link between two
// groups delivers in send order; at most `max_in_flight` micro-batches are sent but not yet
// received on a link (a send waits while the link is full); and the groups never all wait at
// once (no deadlock; a group receiving in another order than its predecessor sends waits for
// ever, so that is a deadlock too). A violation is a ScheduleError naming the group, action and
// cause.
#ifndef PIPESPLIT_RUNTIME_EXEC_SCHEDULE_H_
#define PIPESPLIT_RUNTIME_EXEC_SCHEDULE_H_

#include <string>
#include <vector>

#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::runtime {

enum class ActionKind { kRecv, kCompute, kSend };

struct Action {
  ActionKind kind;
  int microbatch;
  bool operator==(const Action&) const = default;
};

// "recv 3", "compute 3", "send 3".
std::string ToString(const Action& action);

struct Schedule {
  int num_microbatches = 1;
  std::vector<std::vector<Action>> groups;  // groups[g]: the actions of group g, in order
};

// The schedule is unmatched, unbounded or deadlocks; what() starts with "invalid schedule: ".
class ScheduleError : public RuntimeError {
 public:
  explicit ScheduleError(const std::string& what) : RuntimeError("invalid schedule: " + what) {}
};

// The forward pipeline: group g runs, for k = 0..M-1, recv k (g > 0), compute k, send k
// (g < G-1); group g computes k while group g+1 computes k-1.
Schedule MakePipelineSchedule(int num_groups, int num_microbatches);

// Throws ScheduleError unless `schedule` runs to completion with at most `max_in_flight`
// micro-batches in flight per link (see the header comment).
void CheckSchedule(const Schedule& schedule, int max_in_flight);

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_EXEC_SCHEDULE_H_
