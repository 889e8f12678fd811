// Automatic balanced partitioning of pipeline-parallel functions: where to place the stage
// boundaries of one or more functions that read the same weights (prefill and decode) so that
// the slowest stage is as fast as possible, under a per-group memory limit.
//
// Model. A function's single dataflow block is a sequence of bindings; a cut after the first
// c bindings is a *cut point* when the values live across it (defined before, used after) are
// all tensors, none of them a weight read from packed_params, and there are at most
// `max_crossing` of them (objects such as KV caches therefore stay with the stage that uses
// them). A binding takes max(flops / compute_rate, bytes / memory_rate) (a roofline); a stage
// takes the sum over its bindings plus the time to receive the values crossing its first cut
// and to send those crossing its last one at `bandwidth`. A stage's memory is the bytes of the
// distinct weights it reads plus its activations (every tensor its bindings produce, without
// reuse: an upper bound) plus the values it receives.
//
// Several functions are partitioned jointly: a common cut is one where every function has read
// the same set of weights (each function cuts at its cheapest cut point with that set), a stage
// takes the sum of its times over the functions and the largest of their activations.
//
// The partition is exact for this model: a binary search on the slowest stage time whose
// feasibility test sweeps the cut points once per stage, keeping the reachable starts in a heap
// ordered by slack: O(S x K log K) per probe for K cut points.
#ifndef PIPESPLIT_ANALYSIS_AUTO_PARTITION_H_
#define PIPESPLIT_ANALYSIS_AUTO_PARTITION_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "pipesplit/ir/module.h"

namespace pipesplit::analysis {

struct PartitionOptions {
  int stages = 2;
  int64_t memory_limit = 0;               // bytes per group; 0: no limit
  double bandwidth = 25e9;                // bytes/s between consecutive groups
  double compute_rate = 1e14;             // FLOP/s of a group
  double memory_rate = 1e12;              // bytes/s of a group's memory
  int max_crossing = 4;                   // at most this many values cross a cut point
  std::map<std::string, int64_t> assume;  // symbolic var bounds, overriding tir_var_upper_bound
};

// What the partitioner knows of one function. Cut c (0 <= c <= m) has c bindings before it.
struct FunctionProfile {
  ir::GlobalVar gvar;
  ir::Function func;
  std::vector<ir::Binding> bindings;  // of the single dataflow block
  std::vector<int64_t> flops;         // per binding
  std::vector<int64_t> time_ps;       // per binding (picoseconds)
  std::vector<int64_t> act_bytes;     // per binding: bytes of the tensors it produces
  std::vector<int64_t> weight_index;  // per binding: the packed_params index read, or -1
  std::vector<int64_t> weight_bytes;  // per packed_params index
  std::vector<int64_t> cross_bytes;   // per cut: bytes of the values live across it
  std::vector<int> cross_count;       // per cut: number of values live across it
  std::vector<bool> cut_point;        // per cut: allowed as a stage boundary (ends: false)
  std::vector<int> def_pos;           // per binding var: position; used by CrossingValues
  std::vector<int> last_use;          // per binding: last binding using its var (m: returned)

  size_t size() const { return bindings.size(); }
  // The vars live across cut c, in definition order.
  std::vector<ir::Var> CrossingValues(int cut) const;
};

// Profiles `func` (one dataflow block, `packed_params` last). Throws DiagnosticError naming the
// binding when a shape cannot be evaluated (a symbolic var without a bound).
FunctionProfile ProfileFunction(const ir::IRModule& mod, const ir::GlobalVar& gvar,
                                const ir::Function& func, const PartitionOptions& options);

// The abstract problem over candidate cuts 0..K (0 and K are the ends).
struct PartitionProblem {
  std::vector<int64_t> time;  // prefix time (ps) at each candidate
  std::vector<int64_t> xfer;  // time to pass the values crossing each candidate (0 at the ends)
  // Per function: prefix activation bytes and received bytes at each candidate.
  std::vector<std::vector<int64_t>> act, recv;
  // (item, packed_params index): item k lies between candidates k and k + 1.
  std::vector<std::pair<int, int64_t>> weight_reads;
  std::vector<int64_t> weight_bytes;  // per index

  int size() const { return static_cast<int>(time.size()) - 1; }  // K
  int64_t StageTime(int a, int b) const { return time[b] - time[a] + xfer[a] + xfer[b]; }
  int64_t StageWeightBytes(int a, int b) const;
  int64_t StageMemory(int a, int b) const;
  void Prepare();  // indexes weight_reads (call once after filling)

 private:
  std::vector<int64_t> single_prefix_;  // indices read in one item: prefix bytes by item
  std::vector<std::pair<int64_t, std::vector<int>>> multi_;  // other indices: bytes, items
};

// Candidate cuts 0..K of the optimal partition into `stages` stages, minimizing the slowest
// stage time with every stage's memory <= memory_limit (0: none); empty when infeasible.
std::vector<int> SolvePartition(const PartitionProblem& problem, int stages, int64_t memory_limit);
// The smallest memory limit under which a partition into `stages` stages exists (-1: none).
int64_t MinFeasibleMemory(const PartitionProblem& problem, int stages);

struct StageSummary {
  int64_t time_ps = 0, transfer_ps = 0, flops = 0, weight_bytes = 0, act_bytes = 0, recv_bytes = 0,
          send_bytes = 0, memory_bytes = 0;
  std::vector<int64_t> weights;  // packed_params indices read, ascending
};

struct PartitionResult {
  int stages = 0;
  std::vector<std::string> functions;
  std::vector<std::vector<int>> cuts;  // per function: the stages - 1 cuts (bindings before)
  std::vector<StageSummary> stage;
  int64_t memory_limit = 0;
  int64_t slowest_ps = 0, total_ps = 0;
  double imbalance = 0;  // slowest / (total compute / stages)
};

// Builds the joint problem of `profiles`, solves it and summarizes the stages. Throws
// std::invalid_argument with a lowercase message when no partition exists (too few cut points,
// or the memory limit: the message names the smallest feasible limit).
PartitionResult PartitionFunctions(const std::vector<FunctionProfile>& profiles,
                                   const PartitionOptions& options);

}  // namespace pipesplit::analysis

#endif  // PIPESPLIT_ANALYSIS_AUTO_PARTITION_H_
