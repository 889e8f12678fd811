// Collectives among the workers of a session (collectives.h).
#include "pipesplit/runtime/dist/collectives.h"

#include <fmt/format.h>

#include <cstring>
#include <utility>

#include "pipesplit/runtime/kernels/elementwise.h"

namespace pipesplit::runtime {

std::optional<ReduceKind> ReduceKindFromCode(int64_t code) {
  if (code < 0 || code > 4) return std::nullopt;
  return static_cast<ReduceKind>(code);
}

std::optional<ReduceKind> ReduceKindFromName(std::string_view name) {
  constexpr std::string_view kNames[] = {"sum", "prod", "min", "max", "avg"};
  for (int64_t i = 0; i < 5; ++i) {
    if (kNames[i] == name) return static_cast<ReduceKind>(i);
  }
  return std::nullopt;
}

Collectives::Collectives(Transport* transport, int worker, int num_groups, int group_size,
                         std::chrono::milliseconds timeout)
    : transport_(transport),
      worker_(worker),
      num_groups_(num_groups),
      group_size_(group_size),
      timeout_(timeout) {}

std::vector<int> Collectives::Members(bool in_group, bool across_groups_ok,
                                      const char* what) const {
  if (!in_group && num_groups_ > 1 && !across_groups_ok) {
    throw RuntimeError(fmt::format(
        "{} across the {} groups (in_group=False) cannot run: the groups of a pipeline run "
        "different stages; use in_group=True",
        what, num_groups_));
  }
  const int first = in_group || num_groups_ > 1 ? worker_ / group_size_ * group_size_ : 0;
  const int count = in_group || num_groups_ > 1 ? group_size_ : group_size_ * num_groups_;
  std::vector<int> members(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) members[static_cast<size_t>(i)] = first + i;
  return members;
}

Tensor Collectives::Receive(int from, const char* what) {
  try {
    return transport_->Recv(worker_, from, timeout_);
  } catch (const TransportAborted&) {
    throw;
  } catch (const RuntimeError& e) {
    throw RuntimeError(fmt::format("{}: {}", what, e.what()));
  }
}

std::vector<Tensor> Collectives::Exchange(const Tensor& x, const std::vector<int>& members,
                                          const char* what) {
  std::vector<Tensor> parts(members.size());
  for (size_t i = 0; i < members.size(); ++i) {
    const int peer = members[i];
    if (peer == worker_) {
      parts[i] = x;
    } else if (worker_ < peer) {  // the lower worker of a pair sends first
      transport_->Send(worker_, peer, x);
      parts[i] = Receive(peer, what);
    } else {
      parts[i] = Receive(peer, what);
      transport_->Send(worker_, peer, x);
    }
    if (parts[i].dtype() != x.dtype() || parts[i].shape() != x.shape()) {
      throw RuntimeError(fmt::format("{}: worker {} holds {} but worker {} sent {}", what, worker_,
                                     x.ToString(), peer, parts[i].ToString()));
    }
  }
  return parts;
}

Tensor Collectives::AllReduce(const Tensor& x, ReduceKind kind, bool in_group) {
  const char* what = "runtime.disco.allreduce";
  std::vector<int> members = Members(in_group, false, what);
  if (members.size() == 1) return x;
  std::vector<Tensor> parts = Exchange(x, members, what);
  Tensor out = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) {
    switch (kind) {
      case ReduceKind::kSum:
      case ReduceKind::kAvg:
        out = Add(out, parts[i]);
        break;
      case ReduceKind::kProd:
        out = Multiply(out, parts[i]);
        break;
      case ReduceKind::kMin:
        out = Minimum(out, parts[i]);
        break;
      case ReduceKind::kMax:
        out = Maximum(out, parts[i]);
        break;
    }
  }
  if (kind == ReduceKind::kAvg) {
    out = Divide(out, MakeScalar(out.dtype(), static_cast<double>(members.size())));
  }
  return out;
}

Tensor Collectives::AllGather(const Tensor& x, bool in_group) {
  const char* what = "runtime.disco.allgather";
  if (x.ndim() == 0) throw RuntimeError(std::string(what) + ": expects a tensor of 1 dim or more");
  std::vector<int> members = Members(in_group, false, what);
  if (members.size() == 1) return x;
  std::vector<Tensor> parts = Exchange(x, members, what);
  Shape shape = x.shape();
  shape[0] *= static_cast<int64_t>(members.size());
  TensorBuilder out(x.dtype(), shape);
  auto* dst = static_cast<char*>(out.raw_data());
  for (const Tensor& part : parts) {
    std::memcpy(dst, part.raw_data(), static_cast<size_t>(part.nbytes()));
    dst += part.nbytes();
  }
  return std::move(out).Publish();
}

Tensor Collectives::BroadcastFromWorker0(const Tensor& x, bool in_group) {
  const char* what = "runtime.disco.broadcast_from_worker0";
  std::vector<int> members = Members(in_group, true, what);
  if (members.size() == 1) return x;
  if (worker_ == members[0]) {
    for (size_t i = 1; i < members.size(); ++i) transport_->Send(worker_, members[i], x);
    return x;
  }
  Tensor t = Receive(members[0], what);
  if (x.defined() && (t.dtype() != x.dtype() || t.shape() != x.shape())) {
    throw RuntimeError(fmt::format("{}: worker {} expects {} but worker {} sent {}", what, worker_,
                                   x.ToString(), members[0], t.ToString()));
  }
  return t;
}

Tensor Collectives::ScatterFromWorker0(const Tensor& x, bool in_group) {
  const char* what = "runtime.disco.scatter_from_worker0";
  std::vector<int> members = Members(in_group, true, what);
  const auto n = static_cast<int64_t>(members.size());
  if (worker_ == members[0]) {
    if (x.ndim() == 0 || x.dim(0) != n) {
      throw RuntimeError(
          fmt::format("{}: worker {} scatters {} but its leading dim must be the {} "
                      "workers",
                      what, worker_, x.ToString(), n));
    }
    Shape part_shape(x.shape().begin() + 1, x.shape().end());
    const int64_t part_bytes = x.nbytes() / n;
    Tensor own;
    for (int64_t j = 0; j < n; ++j) {
      TensorBuilder part(x.dtype(), part_shape);
      std::memcpy(part.raw_data(), static_cast<const char*>(x.raw_data()) + j * part_bytes,
                  static_cast<size_t>(part_bytes));
      Tensor t = std::move(part).Publish();
      if (j == 0) {
        own = std::move(t);
      } else {
        transport_->Send(worker_, members[static_cast<size_t>(j)], t);
      }
    }
    return own;
  }
  Tensor t = Receive(members[0], what);
  if (x.defined() && x.ndim() > 0 &&
      (t.dtype() != x.dtype() || t.shape() != Shape(x.shape().begin() + 1, x.shape().end()))) {
    throw RuntimeError(fmt::format("{}: worker {} expects a part of {} but worker {} sent {}", what,
                                   worker_, x.ToString(), members[0], t.ToString()));
  }
  return t;
}

}  // namespace pipesplit::runtime
