// Collective operations among the workers of a session, over its point-to-point transport: what
// TVM's disco runs for `runtime.disco.allreduce`, `allgather`, `broadcast_from_worker0` and
// `scatter_from_worker0` (the lowered R.ccl ops).
//
// The workers of a session form num_groups groups of group_size consecutive workers (session.h).
// A collective `in_group` runs among the workers of the caller's group; otherwise among every
// worker of the session. The groups of a pipeline run different stages, so a collective across
// groups cannot meet its peers: an allreduce or allgather with in_group false in a session of
// several groups is an error, and a broadcast or scatter from worker 0 runs from the first worker
// of the caller's group (every group holds the same inputs).
//
// Determinism: every worker exchanges its tensor with each peer (pairs in ascending order of the
// peer, the lower worker sending first, which never deadlocks even when a send waits for its
// receive), then reduces the parts in worker order, ((x0 op x1) op x2) ..., so every worker of
// the group holds the same bits and a rerun gives them again.
#ifndef PIPESPLIT_RUNTIME_DIST_COLLECTIVES_H_
#define PIPESPLIT_RUNTIME_DIST_COLLECTIVES_H_

#include <chrono>
#include <optional>
#include <string_view>
#include <vector>

#include "pipesplit/runtime/dist/transport.h"
#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::runtime {

// TVM's reduction kinds, with the codes its legalized allreduce passes (R.shape([code])).
enum class ReduceKind { kSum = 0, kProd = 1, kMin = 2, kMax = 3, kAvg = 4 };
std::optional<ReduceKind> ReduceKindFromCode(int64_t code);
std::optional<ReduceKind> ReduceKindFromName(std::string_view name);  // "sum", ...

class Collectives {
 public:
  // Worker `worker` of num_groups x group_size over `transport`; null `transport` only when the
  // session has one worker (every collective is then the identity).
  Collectives(Transport* transport, int worker, int num_groups, int group_size,
              std::chrono::milliseconds timeout);

  // Every worker's `x` (same dtype and shape) reduced elementwise in worker order.
  Tensor AllReduce(const Tensor& x, ReduceKind kind, bool in_group);
  // Every worker's `x` concatenated along axis 0 in worker order.
  Tensor AllGather(const Tensor& x, bool in_group);
  // The first worker's `x` on every worker (checked against the caller's dtype and shape).
  Tensor BroadcastFromWorker0(const Tensor& x, bool in_group);
  // The first worker's `x` (leading dim = the workers) cut along axis 0: worker j gets x[j].
  // Other workers' `x` gives the shape they expect (x.shape[1:]); they may pass an undefined one.
  Tensor ScatterFromWorker0(const Tensor& x, bool in_group);

  int worker() const { return worker_; }
  int group_size() const { return group_size_; }

 private:
  // The workers a collective named `what` runs among (ascending).
  std::vector<int> Members(bool in_group, bool across_groups_ok, const char* what) const;
  // Each member's tensor, in member order (this worker's own is `x`).
  std::vector<Tensor> Exchange(const Tensor& x, const std::vector<int>& members, const char* what);
  Tensor Receive(int from, const char* what);

  Transport* transport_;
  int worker_;
  int num_groups_;
  int group_size_;
  std::chrono::milliseconds timeout_;
};

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_DIST_COLLECTIVES_H_
