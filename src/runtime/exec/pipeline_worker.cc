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

#include <exception>
#include <utility>

#include "pipesplit/ir/protocol.h"
#include "pipesplit/runtime/exec/paged_kv_cache.h"

namespace pipesplit::runtime {

// The weights one group loaded, standing in for packed_params.
class WeightTable : public FieldObject {
 public:
  explicit WeightTable(int group) : group_(group) {}
  std::string TypeName() const override {
    return "the weight table of group " + std::to_string(group_);
  }
  Value GetField(int64_t index) const override {
    auto it = tensors_.find(index);
    if (it == tensors_.end()) {
      throw RuntimeError("packed_params[" + std::to_string(index) +
                         "] is not loaded on this group: its stage does not read it");
    }
    return it->second;
  }
  void Add(int64_t index, Tensor tensor) { tensors_.emplace(index, std::move(tensor)); }

 private:
  int group_;
  std::map<int64_t, Tensor> tensors_;
};

namespace {

std::string DescribeDeclared(const ir::TensorSInfoNode& t, const Shape& dims) {
  std::string out = t.dtype().is_void() ? "tensor" : t.dtype().ToString();
  if (!t.shape())
    return out + "[" + (t.ndim() >= 0 ? std::to_string(t.ndim()) + " dims" : "?") + "]";
  out += "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    out += (i ? ", " : "") + (dims[i] >= 0 ? std::to_string(dims[i]) : std::string("?"));
  }
  return out + "]";
}

// Whether `t` has the dtype and the known dims (-1: any) of `declared`.
bool Matches(const Tensor& t, const ir::TensorSInfoNode& declared, const Shape& dims) {
  bool ok = declared.dtype().is_void() || declared.dtype() == t.dtype();
  if (declared.shape()) {
    ok &= dims.size() == t.shape().size();
    for (size_t i = 0; ok && i < dims.size(); ++i) ok &= dims[i] < 0 || dims[i] == t.shape()[i];
  } else if (declared.ndim() >= 0) {
    ok &= declared.ndim() == t.ndim();
  }
  return ok;
}

void CheckReceived(const Tensor& t, const BuiltinCall& call, int from) {
  if (call.out_sinfo == nullptr) return;
  const auto* declared = ir::As<ir::TensorSInfoNode>(*call.out_sinfo);
  if (declared == nullptr) return;
  Shape dims = call.interpreter.ResolveShape(*declared, *call.frame);
  if (!Matches(t, *declared, dims)) {
    throw RuntimeError("received " + t.ToString() + " from worker " + std::to_string(from) +
                       " but the receive declares " + DescribeDeclared(*declared, dims));
  }
}

// A weight whose dtype or static dims contradict how the stage reads it.
void CheckWeight(const Tensor& t, const ir::WeightRead& read, const std::string& name,
                 const std::string& function) {
  const auto* declared = ir::As<ir::TensorSInfoNode>(read.sinfo);
  if (declared == nullptr) return;
  Shape dims;
  if (declared->shape()) {
    for (const ir::PrimExpr& d : *declared->shape()) dims.push_back(ir::AsConstInt(d).value_or(-1));
  }
  if (!Matches(t, *declared, dims)) {
    throw RuntimeError("packed_params[" + std::to_string(read.index) + "] ('" + name + "') is " +
                       t.ToString() + " but '" + function + "' reads it as " +
                       DescribeDeclared(*declared, dims));
  }
}

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

// Step 2b: the weights the stage reads, and only those.
void PipelineWorker::LoadWeights(const WeightSource& weights) {
  weights_ = std::make_shared<WeightTable>(group_);
  for (const ir::WeightRead& read : ir::WeightReadsOf(*stage_func_)) {
    Tensor t = weights.Load(read.index);
    CheckWeight(t, read, weights.Name(read.index), report_.function);
    report_.weight_bytes += t.nbytes();
    report_.weight_indices.push_back(read.index);
    weights_->Add(read.index, std::move(t));
  }
}

// Step 3.
void PipelineWorker::RegisterBuiltins() {
  RegisterCoreBuiltins(&builtins_);
  // A paged KV cache created on this worker holds its group's slice of the layer partition.
  RegisterPagedKvCacheBuiltins(&builtins_, {group_, options_.num_groups});
  builtins_.Register(ir::protocol::kSendToNextGroup,
                     [this](BuiltinCall& call) { return SendToNextGroup(call); });
  builtins_.Register(ir::protocol::kRecvFromPrevGroup,
                     [this](BuiltinCall& call) { return RecvFromPrevGroup(call); });
  builtins_.Register(ir::protocol::kDispatchFunctionByGroup,
                     [this](BuiltinCall& call) { return DispatchByGroup(call); });
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
  CheckReceived(t, call, prev);
  return t;
}

Value PipelineWorker::DispatchByGroup(BuiltinCall& call) {
  const auto* table = call.args.empty() ? nullptr : call.args[0].as_tuple();
  if (table == nullptr || group_ >= static_cast<int>(table->size())) {
    throw RuntimeError("DispatchFunctionByGroup has no entry for group " + std::to_string(group_));
  }
  const auto* item = (*table)[group_].as_tuple();
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
  result.outputs.resize(static_cast<size_t>(options_.num_microbatches));
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
  if (worker_ == (options_.num_groups - 1) * options_.group_size) {
    result.output = result.outputs[0];
  } else {
    result.outputs.clear();
    result.holds_outputs = false;
  }
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
      result.outputs[k] = interpreter_->Invoke(entry_, std::move(args));
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
