// One worker of a session (pipeline_worker.h).
//
// Preconditions: options.group_size >= 1 and `transport` has the session's workers. Steps:
//   1. Resolve and check the schedule (ScheduleError before anything runs).
//   2. Check the entry against the session; load the weights the group's stage reads, each
//      checked against how the stage reads it.
//   3. Register the worker-group builtins: sends go to the computing micro-batch's outbox,
//      receives come from its inbox or, when the schedule receives right before computing,
//      straight from the link; the dispatcher calls the group's stage.
//   4. Run: check the inputs, then walk the group's actions: recv (ahead into the inbox, or
//      left to the compute), compute (a fresh call of the entry), send (the outbox onto the
//      link); record slices.
#include "pipesplit/runtime/exec/pipeline_worker.h"

#include <cstring>
#include <exception>
#include <utility>

#include "pipesplit/ir/protocol.h"
#include "pipesplit/runtime/dist/collectives.h"
#include "pipesplit/runtime/exec/paged_kv_cache.h"
#include "pipesplit/runtime/exec/weight_table.h"

namespace pipesplit::runtime {

namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

PipelineWorker::PipelineWorker(const ir::IRModule& mod, std::string entry,
                               const WeightSource& weights, const SessionOptions& options,
                               Transport& transport, int worker, TraceRecorder* recorder)
    : mod_(mod),
      entry_(std::move(entry)),
      options_(options),
      transport_(transport),
      worker_(worker),
      group_(worker / options.group_size),
      recorder_(recorder != nullptr && worker % options.group_size == 0 ? recorder : nullptr),
      schedule_(ResolveSchedule(options)) {  // step 1, before anything runs
  report_.worker = worker_;
  report_.group = group_;
  auto start = std::chrono::steady_clock::now();
  try {
    CheckEntry();
    LoadWeights(weights);
    RegisterBuiltins();
  } catch (...) {
    ThrowAsWorkerError();
  }
  setup_seconds_ = SecondsSince(start);
}

PipelineWorker::~PipelineWorker() = default;

// Step 2a: the entry fits the session; the stage function of this group exists.
void PipelineWorker::CheckEntry() {
  layout_ = AnalyzeEntry(mod_, entry_);
  if (layout_.stages.empty() && options_.num_groups != 1) {
    throw RuntimeError("'" + entry_ + "' is not split into pipeline stages; run it with one group");
  }
  if (!layout_.stages.empty() && static_cast<int>(layout_.stages.size()) != options_.num_groups) {
    throw RuntimeError("'" + entry_ + "' has " + std::to_string(layout_.stages.size()) +
                       " pipeline stages but the session has " +
                       std::to_string(options_.num_groups) + " groups");
  }
  report_.function = layout_.stages.empty() ? entry_ : layout_.stages[group_];
  stage_func_ = mod_.LookupFunction(report_.function);
  if (!stage_func_) throw RuntimeError("stage function '" + report_.function + "' is missing");
  recvs_per_microbatch_ = ir::CountPackedCalls(*stage_func_, ir::protocol::kRecvFromPrevGroup);
}

// Step 2b: the weights the stage reads, and only those; in a tensor-parallel module, this
// worker's shard of each.
void PipelineWorker::LoadWeights(const WeightSource& weights) {
  const TensorParallelPlan plan = TensorParallelPlanOf(mod_);
  CheckGroupSize(plan, options_.group_size);
  std::shared_ptr<const WeightSource> shard =
      WeightsOfShard(plan, weights, worker_ % options_.group_size, options_.kernels);
  weights_ = std::make_shared<WeightTable>(group_);
  weights_->LoadReadsOf(*stage_func_, report_.function, *shard, report_);
}

// Step 3.
void PipelineWorker::RegisterBuiltins() {
  RegisterWorkerBuiltins(
      &builtins_, group_, options_.num_groups,
      [this](BuiltinCall& call) { return SendToNextGroup(call); },
      [this](BuiltinCall& call) { return RecvFromPrevGroup(call); },
      std::make_shared<Collectives>(&transport_, worker_, options_.num_groups, options_.group_size,
                                    options_.timeout));
  interpreter_ = std::make_unique<Interpreter>(mod_, builtins_, options_.kernels);
  interpreter_->set_metadata(options_.metadata);
}

Value PipelineWorker::SendToNextGroup(BuiltinCall& call) {
  if (call.args.size() != 1) throw RuntimeError("send_to_next_group takes one tensor");
  if (worker_ + options_.group_size >= transport_.num_workers()) {
    throw RuntimeError("send_to_next_group called on the last group");
  }
  outbox_[current_].push_back(call.args[0].ExpectTensor("the value sent"));
  return Value();
}

Value PipelineWorker::RecvFromPrevGroup(BuiltinCall& call) {
  const int prev = worker_ - options_.group_size;
  if (prev < 0) throw RuntimeError("recv_from_prev_group called on the first group");
  Tensor t;
  auto it = inbox_.find(current_);
  if (it != inbox_.end() && !it->second.empty()) {
    t = std::move(it->second.front());
    it->second.pop_front();
  } else if (lazy_recv_ == current_) {
    auto begin = std::chrono::steady_clock::now();
    t = transport_.Recv(worker_, prev, options_.timeout);
    Record(TraceSlice::Kind::kRecv, current_, begin);
  } else {
    throw RuntimeError("the stage receives more tensors than the schedule took for it");
  }
  return DeliverReceived(std::move(t), call, prev);
}

void CheckReceived(const Tensor& t, const BuiltinCall& call, int from) {
  if (call.out_sinfo == nullptr) return;
  const auto* declared = ir::As<ir::TensorSInfoNode>(*call.out_sinfo);
  if (declared == nullptr) return;
  Shape dims = call.interpreter.ResolveShape(*declared, *call.frame);
  if (!MatchesDeclared(t, *declared, dims)) {
    throw RuntimeError("received " + t.ToString() + " from worker " + std::to_string(from) +
                       " but the receive declares " + DescribeDeclared(*declared, dims));
  }
}

Value DeliverReceived(Tensor t, const BuiltinCall& call, int from) {
  if (call.args.empty()) {
    CheckReceived(t, call, from);
    return t;
  }
  const Tensor* dest = call.args.size() == 1 ? call.args[0].as_tensor() : nullptr;
  if (dest == nullptr) {
    throw RuntimeError("recv_from_prev_group takes no argument or one destination tensor");
  }
  if (dest->dtype() != t.dtype() || dest->shape() != t.shape()) {
    throw RuntimeError("received " + t.ToString() + " from worker " + std::to_string(from) +
                       " into a destination of " + dest->ToString());
  }
  std::memcpy(const_cast<void*>(dest->raw_data()), t.raw_data(), t.nbytes());
  return Value();
}

void RegisterWorkerBuiltins(BuiltinRegistry* registry, int group, int num_groups, BuiltinFn send,
                            BuiltinFn recv, const std::shared_ptr<Collectives>& collectives) {
  RegisterCoreBuiltins(registry);
  RegisterCclBuiltins(registry, collectives);
  // A paged KV cache created on the worker holds its group's slice of the layer partition.
  RegisterPagedKvCacheBuiltins(registry, {group, num_groups});
  registry->Register(ir::protocol::kSendToNextGroup, std::move(send));
  registry->Register(ir::protocol::kRecvFromPrevGroup, std::move(recv));
  registry->Register(ir::protocol::kDispatchFunctionByGroup,
                     [group](BuiltinCall& call) { return DispatchToGroup(call, group); });
}

Value DispatchToGroup(BuiltinCall& call, int group) {
  const auto* table = call.args.empty() ? nullptr : call.args[0].as_tuple();
  if (table == nullptr || group >= static_cast<int>(table->size())) {
    throw RuntimeError("DispatchFunctionByGroup has no entry for group " + std::to_string(group));
  }
  const auto* item = (*table)[group].as_tuple();
  if (item == nullptr || item->empty()) throw RuntimeError("malformed dispatch table entry");
  std::vector<Value> args(item->begin() + 1, item->end());
  return call.interpreter.Invoke((*item)[0], std::move(args));
}

void PipelineWorker::Record(TraceSlice::Kind kind, int microbatch,
                            std::chrono::steady_clock::time_point begin) {
  if (recorder_ != nullptr) {
    recorder_->Add(kind, group_, microbatch, begin, std::chrono::steady_clock::now());
  }
}

RunResult PipelineWorker::Run(const std::vector<std::vector<Value>>& microbatches) {
  auto start = std::chrono::steady_clock::now();
  RunResult result;
  // Only the first worker of the last group keeps the outputs.
  result.holds_outputs = worker_ == (options_.num_groups - 1) * options_.group_size;
  result.outputs.resize(result.holds_outputs ? static_cast<size_t>(options_.num_microbatches) : 0);
  current_ = -1;
  inbox_.clear();
  outbox_.clear();
  lazy_recv_ = -1;
  try {
    if (static_cast<int>(microbatches.size()) != options_.num_microbatches) {
      throw RuntimeError("the run has " + std::to_string(options_.num_microbatches) +
                         " micro-batches but " + std::to_string(microbatches.size()) +
                         " input lists were given");
    }
    for (const std::vector<Value>& inputs : microbatches) {
      if (inputs.size() != layout_.num_inputs) {
        throw RuntimeError("'" + entry_ + "' takes " + std::to_string(layout_.num_inputs) +
                           " inputs, got " + std::to_string(inputs.size()));
      }
    }
    const std::vector<Action>& actions = schedule_.groups[group_];
    for (size_t i = 0; i < actions.size(); ++i) {
      RunAction(actions[i], i + 1 < actions.size() ? &actions[i + 1] : nullptr, microbatches,
                result);
    }
  } catch (...) {
    ThrowAsWorkerError();
  }
  if (result.holds_outputs) result.output = result.outputs[0];
  WorkerReport& report = result.workers.emplace_back(report_);
  report.seconds = SecondsSince(start) + std::exchange(setup_seconds_, 0.0);
  return result;
}

void PipelineWorker::RunAction(const Action& action, const Action* next,
                               const std::vector<std::vector<Value>>& microbatches,
                               RunResult& result) {
  const int k = action.microbatch;
  current_ = k;
  auto begin = std::chrono::steady_clock::now();
  switch (action.kind) {
    case ActionKind::kRecv:
      if (next != nullptr && *next == Action{ActionKind::kCompute, k}) {
        lazy_recv_ = k;  // the compute takes them, so a failing receive names its binding
        return;
      }
      for (size_t n = 0; n < recvs_per_microbatch_; ++n) {
        inbox_[k].push_back(
            transport_.Recv(worker_, worker_ - options_.group_size, options_.timeout));
      }
      Record(TraceSlice::Kind::kRecv, k, begin);
      return;
    case ActionKind::kCompute: {
      std::vector<Value> args = microbatches[k];
      if (layout_.has_packed_params) args.push_back(Value::MakeObject(weights_));
      Value out = interpreter_->Invoke(entry_, std::move(args));
      if (result.holds_outputs) result.outputs[k] = std::move(out);
      inbox_.erase(k);
      lazy_recv_ = -1;
      Record(TraceSlice::Kind::kCompute, k, begin);
      return;
    }
    case ActionKind::kSend:
      for (const Tensor& t : outbox_[k]) {
        transport_.Send(worker_, worker_ + options_.group_size, t);
      }
      outbox_.erase(k);
      Record(TraceSlice::Kind::kSend, k, begin);
      return;
  }
}

void PipelineWorker::ThrowAsWorkerError() const {
  try {
    throw;
  } catch (const TransportAborted& e) {
    throw WorkerError(worker_, group_, e.what(), /*aborted=*/true);
  } catch (const WorkerError&) {
    throw;
  } catch (const RuntimeError& e) {
    std::string where = options_.num_microbatches > 1 && current_ >= 0
                            ? "on micro-batch " + std::to_string(current_) + " "
                            : "";
    throw WorkerError(worker_, group_,
                      "failed " + where +
                          (dynamic_cast<const ExecutionError*>(&e) ? "" : "in '" + entry_ + "': ") +
                          e.what());
  } catch (const std::exception& e) {
    // Any other exception (a kernel or builtin that throws) fails the worker the same way, so
    // its caller aborts the other workers instead of leaving them to time out.
    throw WorkerError(worker_, group_, std::string("failed in '") + entry_ + "': " + e.what());
  }
}

RunResult RunPipelineWorker(const ir::IRModule& mod, const std::string& entry,
                            const std::vector<std::vector<Value>>& microbatches,
                            const WeightSource& weights, const SessionOptions& options,
                            Transport& transport, int worker, TraceRecorder* recorder) {
  return PipelineWorker(mod, entry, weights, options, transport, worker, recorder)
      .Run(microbatches);
}

}  // namespace pipesplit::runtime
