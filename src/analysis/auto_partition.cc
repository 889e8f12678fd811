// The automatic partitioner (see auto_partition.h): the joint problem of several functions,
// the exact min-max solver, and the stage summaries.
#include "pipesplit/analysis/auto_partition.h"

#include <algorithm>
#include <limits>
#include <map>
#include <queue>
#include <set>
#include <stdexcept>

#include "pipesplit/support/check.h"

namespace pipesplit::analysis {

namespace {

constexpr int64_t kInfinity = std::numeric_limits<int64_t>::max() / 4;

std::string Bytes(int64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char text[64];
  std::snprintf(text, sizeof(text), u == 0 ? "%.0f %s" : "%.2f %s", v, units[u]);
  return std::to_string(b) + " bytes (" + text + ")";
}

}  // namespace

void PartitionProblem::Prepare() {
  std::map<int64_t, std::vector<int>> items;  // index -> items reading it
  for (const auto& [item, index] : weight_reads) items[index].push_back(item);
  single_prefix_.assign(time.size(), 0);
  multi_.clear();
  for (auto& [index, list] : items) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    int64_t bytes = index < static_cast<int64_t>(weight_bytes.size()) ? weight_bytes[index] : 0;
    if (list.size() == 1) {
      single_prefix_[list[0] + 1] += bytes;
    } else {
      multi_.emplace_back(bytes, std::move(list));
    }
  }
  for (size_t k = 1; k < single_prefix_.size(); ++k) single_prefix_[k] += single_prefix_[k - 1];
}

int64_t PartitionProblem::StageWeightBytes(int a, int b) const {
  int64_t total = single_prefix_[b] - single_prefix_[a];
  for (const auto& [bytes, list] : multi_) {
    auto it = std::lower_bound(list.begin(), list.end(), a);
    if (it != list.end() && *it < b) total += bytes;
  }
  return total;
}

int64_t PartitionProblem::StageMemory(int a, int b) const {
  int64_t act_max = 0;
  for (size_t f = 0; f < act.size(); ++f) {
    act_max = std::max(act_max, act[f][b] - act[f][a] + recv[f][a]);
  }
  return StageWeightBytes(a, b) + act_max;
}

namespace {

// For each start a, the last end b with StageMemory(a, b) <= limit (a when none).
std::vector<int> MemoryReach(const PartitionProblem& p, int64_t limit) {
  const int k = p.size();
  std::vector<int> reach(k + 1, 0);
  for (int a = 0; a <= k; ++a) {
    if (limit <= 0) {
      reach[a] = k;
      continue;
    }
    int lo = a, hi = k;  // memory grows with b: find the last b with memory <= limit
    while (lo < hi) {
      int mid = lo + (hi - lo + 1) / 2;
      if (p.StageMemory(a, mid) <= limit) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    reach[a] = lo;
  }
  return reach;
}

// Whether `stages` stages of time <= limit each reach the end; fills parent[s][c] (the start of
// the stage s ending at c) when `parent` is given.
bool Feasible(const PartitionProblem& p, int stages, int64_t limit, const std::vector<int>& reach,
              std::vector<std::vector<int>>* parent) {
  const int k = p.size();
  std::vector<char> prev(k + 1, 0), next(k + 1, 0);
  prev[0] = 1;
  if (parent != nullptr) parent->assign(stages + 1, std::vector<int>(k + 1, -1));
  for (int s = 1; s <= stages; ++s) {
    // Starts a with slack limit + time[a] - xfer[a]; stage (a, c] fits when
    // time[c] + xfer[c] <= slack and c <= reach[a].
    using Entry = std::pair<int64_t, int>;  // slack, start
    std::priority_queue<Entry> heap;
    std::fill(next.begin(), next.end(), 0);
    bool any = false;
    for (int c = 1; c <= k; ++c) {
      if (prev[c - 1]) heap.emplace(limit + p.time[c - 1] - p.xfer[c - 1], c - 1);
      while (!heap.empty() && reach[heap.top().second] < c) heap.pop();
      if (!heap.empty() && heap.top().first >= p.time[c] + p.xfer[c]) {
        next[c] = 1;
        any = true;
        if (parent != nullptr) (*parent)[s][c] = heap.top().second;
      }
    }
    if (!any) return false;
    prev.swap(next);
  }
  return prev[k] != 0;
}

}  // namespace

std::vector<int> SolvePartition(const PartitionProblem& p, int stages, int64_t memory_limit) {
  const int k = p.size();
  if (stages < 1 || k < stages) return {};
  std::vector<int> reach = MemoryReach(p, memory_limit);
  int64_t max_xfer = *std::max_element(p.xfer.begin(), p.xfer.end());
  int64_t lo = 0, hi = p.time[k] - p.time[0] + 2 * max_xfer;
  if (!Feasible(p, stages, hi, reach, nullptr)) return {};
  while (lo < hi) {  // the smallest feasible slowest-stage time
    int64_t mid = lo + (hi - lo) / 2;
    if (Feasible(p, stages, mid, reach, nullptr)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  std::vector<std::vector<int>> parent;
  PS_CHECK(Feasible(p, stages, lo, reach, &parent)) << "optimum lost";
  std::vector<int> cuts(stages + 1);
  cuts[stages] = k;
  for (int s = stages; s >= 1; --s) cuts[s - 1] = parent[s][cuts[s]];
  PS_CHECK(cuts[0] == 0) << "partition does not start at 0";
  return cuts;
}

int64_t MinFeasibleMemory(const PartitionProblem& p, int stages) {
  const int k = p.size();
  if (stages < 1 || k < stages) return -1;
  int64_t hi = p.StageMemory(0, k) + 1;
  for (int c = 0; c <= k; ++c) hi = std::max(hi, p.StageMemory(c, k) + 1);
  int64_t lo = 1;
  auto feasible = [&](int64_t limit) {
    return Feasible(p, stages, kInfinity, MemoryReach(p, limit), nullptr);
  };
  if (!feasible(hi)) return -1;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (feasible(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

PartitionResult PartitionFunctions(const std::vector<FunctionProfile>& profiles,
                                   const PartitionOptions& options) {
  PS_CHECK(!profiles.empty()) << "nothing to partition";
  const size_t nf = profiles.size();
  // Candidate cuts. One function: every cut point. Several: the weight sets read before a cut
  // (count, order-independent hash) common to every function, each function at its cheapest
  // cut point with that set.
  using Key = std::pair<int64_t, uint64_t>;
  std::vector<std::map<Key, int>> best(nf);
  for (size_t f = 0; f < nf; ++f) {
    const FunctionProfile& p = profiles[f];
    std::set<int64_t> seen;
    Key key{0, 0};
    for (size_t c = 0; c <= p.size(); ++c) {
      if (c > 0 && p.weight_index[c - 1] >= 0 && seen.insert(p.weight_index[c - 1]).second) {
        key.first += 1;
        key.second += static_cast<uint64_t>(p.weight_index[c - 1]) * 0x9e3779b97f4a7c15ULL + 1;
      }
      if (!p.cut_point[c]) continue;
      Key k = nf == 1 ? Key{static_cast<int64_t>(c), 0} : key;
      auto it = best[f].find(k);
      if (it == best[f].end() || p.cross_bytes[c] < p.cross_bytes[it->second]) best[f][k] = c;
    }
  }
  std::vector<std::vector<int>> pos(nf);  // per function: cut of each candidate
  for (size_t f = 0; f < nf; ++f) pos[f].push_back(0);
  for (const auto& [key, c0] : best[0]) {
    bool common = true;
    for (size_t f = 1; f < nf; ++f) common &= best[f].count(key) != 0;
    if (!common) continue;
    for (size_t f = 0; f < nf; ++f) pos[f].push_back(best[f].at(key));
  }
  for (size_t f = 0; f < nf; ++f) pos[f].push_back(static_cast<int>(profiles[f].size()));
  const int k = static_cast<int>(pos[0].size()) - 1;

  PartitionProblem prob;
  prob.time.assign(k + 1, 0);
  prob.xfer.assign(k + 1, 0);
  prob.act.assign(nf, std::vector<int64_t>(k + 1, 0));
  prob.recv.assign(nf, std::vector<int64_t>(k + 1, 0));
  prob.weight_bytes = profiles[0].weight_bytes;
  std::vector<std::vector<int64_t>> flops(nf, std::vector<int64_t>(k + 1, 0));
  for (size_t f = 0; f < nf; ++f) {
    const FunctionProfile& p = profiles[f];
    int item = 0;
    int64_t t = 0, a = 0, fl = 0;
    for (size_t i = 0; i <= p.size(); ++i) {
      while (item < k && pos[f][item + 1] <= static_cast<int>(i)) {
        ++item;
        prob.time[item] += t;
        prob.act[f][item] = a;
        flops[f][item] = fl;
      }
      if (i == p.size()) break;
      t += p.time_ps[i];
      a += p.act_bytes[i];
      fl += p.flops[i];
      if (p.weight_index[i] >= 0) prob.weight_reads.emplace_back(item, p.weight_index[i]);
    }
    for (int c = 1; c < k; ++c) {
      int64_t bytes = p.cross_bytes[pos[f][c]];
      prob.recv[f][c] = bytes;
      prob.xfer[c] +=
          options.bandwidth > 0
              ? static_cast<int64_t>(static_cast<double>(bytes) / options.bandwidth * 1e12)
              : 0;
    }
  }
  prob.Prepare();

  const int s = options.stages;
  if (k < s) {
    throw std::invalid_argument("cannot make " + std::to_string(s) + " stages: only " +
                                std::to_string(k - 1) + " cut point" + (k - 1 == 1 ? "" : "s") +
                                " (raise max-crossing or lower stages)");
  }
  std::vector<int> cuts = SolvePartition(prob, s, options.memory_limit);
  if (cuts.empty()) {
    int64_t need = MinFeasibleMemory(prob, s);
    throw std::invalid_argument("no partition into " + std::to_string(s) +
                                " stages fits the memory limit of " + Bytes(options.memory_limit) +
                                " per group; the smallest feasible limit is " + Bytes(need));
  }
  PartitionResult r;
  r.stages = s;
  r.memory_limit = options.memory_limit;
  for (size_t f = 0; f < nf; ++f) {
    r.functions.push_back(profiles[f].gvar->name_hint());
    std::vector<int> fc;
    for (int i = 1; i < s; ++i) fc.push_back(pos[f][cuts[i]]);
    r.cuts.push_back(fc);
  }
  for (int i = 0; i < s; ++i) {
    int a = cuts[i], b = cuts[i + 1];
    StageSummary st;
    st.time_ps = prob.StageTime(a, b);
    st.transfer_ps = prob.xfer[a] + prob.xfer[b];
    st.weight_bytes = prob.StageWeightBytes(a, b);
    st.memory_bytes = prob.StageMemory(a, b);
    for (size_t f = 0; f < nf; ++f) {
      st.flops += flops[f][b] - flops[f][a];
      st.act_bytes = std::max(st.act_bytes, prob.act[f][b] - prob.act[f][a]);
      st.recv_bytes += prob.recv[f][a];
      st.send_bytes += prob.recv[f][b];
    }
    std::set<int64_t> weights;
    for (const auto& [item, index] : prob.weight_reads) {
      if (item >= a && item < b) weights.insert(index);
    }
    st.weights.assign(weights.begin(), weights.end());
    r.slowest_ps = std::max(r.slowest_ps, st.time_ps);
    r.stage.push_back(std::move(st));
  }
  r.total_ps = prob.time[k];
  r.imbalance = r.total_ps > 0 ? static_cast<double>(r.slowest_ps) * s / r.total_ps : 1.0;
  return r;
}

}  // namespace pipesplit::analysis
