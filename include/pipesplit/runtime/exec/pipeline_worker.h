// One worker of a session (session.h): the code every transport runs for each of its workers.
//
// A PipelineWorker is made once and run many times. Making it checks the schedule and the entry
// against the session, loads the weights its group's stage reads and registers the
// worker-group builtins; Run walks the group's schedule over one set of micro-batches. A
// generator that runs a step per token keeps its workers (and their weights) across steps.
//
// Errors: every failure, at construction or in Run, is a WorkerError naming the worker, its
// group, the micro-batch when there are several, the function and the binding; an abort
// caused by another worker is a WorkerError with aborted() set. A ScheduleError (the schedule
// is unmatched, unbounded, deadlocks or does not fit) is thrown as it is, before anything runs.
#ifndef PIPESPLIT_RUNTIME_EXEC_PIPELINE_WORKER_H_
#define PIPESPLIT_RUNTIME_EXEC_PIPELINE_WORKER_H_

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pipesplit/ir/module.h"
#include "pipesplit/runtime/dist/transport.h"
#include "pipesplit/runtime/exec/interpreter.h"
#include "pipesplit/runtime/exec/schedule.h"
#include "pipesplit/runtime/exec/session.h"
#include "pipesplit/runtime/exec/trace.h"

namespace pipesplit::runtime {

class Collectives;
class WeightTable;

class PipelineWorker {
 public:
  // Worker `worker` of the session `options` describes, talking over `transport` (which has
  // the session's workers). Records its group's slices into `recorder` (may be null) when it
  // is its group's first worker. `mod`, `transport` and `recorder` must outlive the worker.
  PipelineWorker(const ir::IRModule& mod, std::string entry, const WeightSource& weights,
                 const SessionOptions& options, Transport& transport, int worker,
                 TraceRecorder* recorder = nullptr);
  ~PipelineWorker();
  PipelineWorker(const PipelineWorker&) = delete;
  PipelineWorker& operator=(const PipelineWorker&) = delete;

  // Runs options.num_microbatches micro-batches (microbatches[k]: the inputs of k) through the
  // group's schedule. The result holds this worker's report and, on the first worker of the
  // last group, the outputs; its seconds include the set-up on the first run.
  RunResult Run(const std::vector<std::vector<Value>>& microbatches);

  const WorkerReport& report() const { return report_; }
  int group() const { return group_; }

 private:
  // Set-up steps (run by the constructor).
  void CheckEntry();
  void LoadWeights(const WeightSource& weights);
  void RegisterBuiltins();
  // The builtins of the protocol (ir/protocol.h) as this worker runs them.
  Value SendToNextGroup(BuiltinCall& call);
  Value RecvFromPrevGroup(BuiltinCall& call);
  // One action of the schedule; `next` is the action after it (null at the end).
  void RunAction(const Action& action, const Action* next,
                 const std::vector<std::vector<Value>>& microbatches, RunResult& result);
  void Record(TraceSlice::Kind kind, int microbatch, std::chrono::steady_clock::time_point begin);
  // The exception being handled, as the WorkerError this worker reports.
  [[noreturn]] void ThrowAsWorkerError() const;

  const ir::IRModule& mod_;
  const std::string entry_;
  const SessionOptions options_;
  Transport& transport_;
  const int worker_;
  const int group_;
  TraceRecorder* const recorder_;  // null unless this worker records its group
  Schedule schedule_;
  EntryLayout layout_;
  ir::Function stage_func_;
  size_t recvs_per_microbatch_ = 0;
  WorkerReport report_;
  double setup_seconds_ = 0;
  std::shared_ptr<WeightTable> weights_;
  BuiltinRegistry builtins_;
  std::unique_ptr<Interpreter> interpreter_;  // refers to builtins_

  // State of one run: the micro-batch being computed, tensors received ahead of its compute,
  // sends held for the send action, and the micro-batch whose compute takes its receives
  // straight from the link.
  int current_ = -1;
  std::map<int, std::deque<Tensor>> inbox_;
  std::map<int, std::vector<Tensor>> outbox_;
  int lazy_recv_ = -1;
};

// Registers what every worker of group `group` of `num_groups` runs: the core builtins, the
// paged KV cache's for its group, the dispatcher for its group, `send` / `recv` as the
// protocol's send_to_next_group / recv_from_prev_group, and the collectives (the lowered R.ccl
// ops) over `collectives`.
void RegisterWorkerBuiltins(BuiltinRegistry* registry, int group, int num_groups, BuiltinFn send,
                            BuiltinFn recv, const std::shared_ptr<Collectives>& collectives);

// mlc.multi_gpu.DispatchFunctionByGroup as group `group` runs it: calls the group's entry of
// the dispatch table (args[0]: a tuple per group of (stage function, its arguments...)).
Value DispatchToGroup(BuiltinCall& call, int group);

// RuntimeError when `t`, received from worker `from` by the recv_from_prev_group `call`,
// contradicts the type the call declares.
void CheckReceived(const Tensor& t, const BuiltinCall& call, int from);
// What a receive returns: `t` (checked by CheckReceived); or, when the call passes a
// destination (MLC's memory-planned `R.call_packed(recv_from_prev_group, alloc)`), nothing,
// `t` copied into the destination, which must have its dtype and shape.
Value DeliverReceived(Tensor t, const BuiltinCall& call, int from);

// PipelineWorker(...).Run(microbatches): one run of a worker made for it.
RunResult RunPipelineWorker(const ir::IRModule& mod, const std::string& entry,
                            const std::vector<std::vector<Value>>& microbatches,
                            const WeightSource& weights, const SessionOptions& options,
                            Transport& transport, int worker, TraceRecorder* recorder = nullptr);

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_EXEC_PIPELINE_WORKER_H_
