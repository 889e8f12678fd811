// Worker groups (see session.h): per-worker setup (stage, weights, builtins), the schedule
// walk that runs a worker's micro-batches, the in-process thread runner, and fault
// propagation.
//
// RunPipelineWorker, preconditions: options.group_size >= 1 and `transport` has the session's
// workers. Steps:
//   1. Resolve and check the schedule (ScheduleError before anything runs).
//   2. Check the entry against the session and inputs; load the group's weights.
//   3. Register the worker-group builtins: sends go to the computing micro-batch's outbox,
//      receives come from its inbox or, when the schedule receives right before computing,
//      straight from the link.
//   4. Walk the group's actions: recv (ahead into the inbox, or left to the compute), compute
//      (a fresh call of the entry), send (the outbox onto the link); record slices.
#include "pipesplit/runtime/session.h"

#include <algorithm>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "pipesplit/ir/functor.h"
#include "pipesplit/ir/protocol.h"
#include "pipesplit/runtime/interpreter.h"
#include "pipesplit/runtime/linalg.h"
#include "pipesplit/runtime/threading.h"
#include "src/runtime/transport_fault.h"

namespace pipesplit::runtime {
namespace {

// The weights one group loaded, standing in for packed_params.
class WeightTable : public FieldObject {
 public:
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
  int group_ = 0;
  std::map<int64_t, Tensor> tensors_;
};

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

void CheckReceived(const Tensor& t, const BuiltinCall& call, int from) {
  if (call.out_sinfo == nullptr) return;
  const auto* declared = ir::As<ir::TensorSInfoNode>(*call.out_sinfo);
  if (declared == nullptr) return;
  Shape dims = call.interpreter.ResolveShape(*declared, *call.frame);
  bool ok = declared->dtype().is_void() || declared->dtype() == t.dtype();
  if (declared->shape()) {
    ok &= dims.size() == t.shape().size();
    for (size_t i = 0; ok && i < dims.size(); ++i) ok &= dims[i] < 0 || dims[i] == t.shape()[i];
  } else if (declared->ndim() >= 0) {
    ok &= declared->ndim() == t.ndim();
  }
  if (!ok) {
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
  bool ok = declared->dtype().is_void() || declared->dtype() == t.dtype();
  if (declared->shape()) {
    for (const ir::PrimExpr& d : *declared->shape()) dims.push_back(ir::AsConstInt(d).value_or(-1));
    ok &= dims.size() == t.shape().size();
    for (size_t i = 0; ok && i < dims.size(); ++i) ok &= dims[i] < 0 || dims[i] == t.shape()[i];
  } else if (declared->ndim() >= 0) {
    ok &= declared->ndim() == t.ndim();
  }
  if (!ok) {
    throw RuntimeError("packed_params[" + std::to_string(read.index) + "] ('" + name + "') is " +
                       t.ToString() + " but '" + function + "' reads it as " +
                       DescribeDeclared(*declared, dims));
  }
}

// How many calls of packed function `symbol` the body of `function` contains.
size_t CountPackedCalls(const ir::FunctionNode& function, std::string_view symbol) {
  struct Counter : ir::ExprVisitor {
    std::string_view symbol;
    size_t count = 0;
    void VisitExpr_(const ir::CallNode& call) override {
      const ir::ExternFuncNode* callee = ir::PackedCallee(call);
      if (callee != nullptr && callee->global_symbol() == symbol) ++count;
      ExprVisitor::VisitExpr_(call);
    }
  } counter;
  counter.symbol = symbol;
  counter.VisitExpr(function.body());
  return counter.count;
}

}  // namespace

Tensor InMemoryWeights::Load(int64_t index) const {
  if (index < 0 || index >= size()) {
    throw RuntimeError("packed_params[" + std::to_string(index) +
                       "] does not exist: " + std::to_string(size()) + " weights given");
  }
  return tensors_[index];
}

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
      most = std::max(most, CountPackedCalls(*f, ir::protocol::kSendToNextGroup));
    }
  }
  return most * static_cast<size_t>(std::max(options.max_in_flight, 1));
}

RunResult RunPipelineWorker(const ir::IRModule& mod, const std::string& entry,
                            const std::vector<std::vector<Value>>& microbatches,
                            const WeightSource& weights, const SessionOptions& options,
                            Transport& transport, int worker, TraceRecorder* recorder) {
  const int group_size = options.group_size;
  const int num_workers = transport.num_workers();
  const int group = worker / group_size;
  const int num_microbatches = options.num_microbatches;
  const Schedule schedule = ResolveSchedule(options);  // before anything runs
  RunResult result;
  result.outputs.resize(static_cast<size_t>(num_microbatches));
  WorkerReport& report = result.workers.emplace_back();
  report.worker = worker;
  report.group = group;
  const bool record = recorder != nullptr && worker % group_size == 0;
  auto start = std::chrono::steady_clock::now();
  int current = -1;  // the micro-batch being computed
  try {
    EntryLayout layout = AnalyzeEntry(mod, entry);
    if (layout.stages.empty() && options.num_groups != 1) {
      throw RuntimeError("'" + entry +
                         "' is not split into pipeline stages; run it with one "
                         "group");
    }
    if (!layout.stages.empty() && static_cast<int>(layout.stages.size()) != options.num_groups) {
      throw RuntimeError("'" + entry + "' has " + std::to_string(layout.stages.size()) +
                         " pipeline stages but the session has " +
                         std::to_string(options.num_groups) + " groups");
    }
    report.function = layout.stages.empty() ? entry : layout.stages[group];
    ir::Function stage_func = mod.LookupFunction(report.function);
    if (!stage_func) throw RuntimeError("stage function '" + report.function + "' is missing");
    if (static_cast<int>(microbatches.size()) != num_microbatches) {
      throw RuntimeError("the run has " + std::to_string(num_microbatches) + " micro-batches but " +
                         std::to_string(microbatches.size()) + " input lists were given");
    }
    for (const std::vector<Value>& inputs : microbatches) {
      if (inputs.size() != layout.num_inputs) {
        throw RuntimeError("'" + entry + "' takes " + std::to_string(layout.num_inputs) +
                           " inputs, got " + std::to_string(inputs.size()));
      }
    }

    auto table = std::make_shared<WeightTable>();
    table->group_ = group;
    for (const ir::WeightRead& read : ir::WeightReadsOf(*stage_func)) {
      Tensor t = weights.Load(read.index);
      CheckWeight(t, read, weights.Name(read.index), report.function);
      report.weight_bytes += t.nbytes();
      report.weight_indices.push_back(read.index);
      table->tensors_.emplace(read.index, std::move(t));
    }

    // Per micro-batch: tensors received ahead of the compute, and sends held for the send.
    std::map<int, std::deque<Tensor>> inbox;
    std::map<int, std::vector<Tensor>> outbox;
    int lazy_recv = -1;  // the micro-batch whose compute takes its receives itself
    const int prev = worker - group_size, next = worker + group_size;
    BuiltinRegistry builtins;
    RegisterCoreBuiltins(&builtins);
    builtins.Register(ir::protocol::kSendToNextGroup, [&](BuiltinCall& call) -> Value {
      if (call.args.size() != 1) throw RuntimeError("send_to_next_group takes one tensor");
      if (next >= num_workers) throw RuntimeError("send_to_next_group called on the last group");
      outbox[current].push_back(call.args[0].ExpectTensor("the value sent"));
      return Value();
    });
    builtins.Register(ir::protocol::kRecvFromPrevGroup, [&](BuiltinCall& call) -> Value {
      if (prev < 0) throw RuntimeError("recv_from_prev_group called on the first group");
      Tensor t;
      auto it = inbox.find(current);
      if (it != inbox.end() && !it->second.empty()) {
        t = std::move(it->second.front());
        it->second.pop_front();
      } else if (lazy_recv == current) {
        auto begin = std::chrono::steady_clock::now();
        t = transport.Recv(worker, prev, options.timeout);
        if (record) {
          recorder->Add(TraceSlice::Kind::kRecv, group, current, begin,
                        std::chrono::steady_clock::now());
        }
      } else {
        throw RuntimeError("the stage receives more tensors than the schedule took for it");
      }
      CheckReceived(t, call, prev);
      return t;
    });
    builtins.Register(ir::protocol::kDispatchFunctionByGroup, [&](BuiltinCall& call) -> Value {
      const auto* table_value = call.args.empty() ? nullptr : call.args[0].as_tuple();
      if (table_value == nullptr || group >= static_cast<int>(table_value->size())) {
        throw RuntimeError("DispatchFunctionByGroup has no entry for group " +
                           std::to_string(group));
      }
      const auto* item = (*table_value)[group].as_tuple();
      if (item == nullptr || item->empty()) throw RuntimeError("malformed dispatch table entry");
      std::vector<Value> args(item->begin() + 1, item->end());
      return call.interpreter.Invoke((*item)[0], std::move(args));
    });

    Interpreter interpreter(mod, builtins, options.kernels);
    interpreter.set_metadata(options.metadata);
    const std::vector<Action>& actions = schedule.groups[group];
    const size_t recvs_per_microbatch =
        CountPackedCalls(*stage_func, ir::protocol::kRecvFromPrevGroup);
    const bool last_group = worker == (options.num_groups - 1) * group_size;
    for (size_t i = 0; i < actions.size(); ++i) {
      const Action& action = actions[i];
      const int k = action.microbatch;
      current = k;
      auto begin = std::chrono::steady_clock::now();
      switch (action.kind) {
        case ActionKind::kRecv:
          if (i + 1 < actions.size() && actions[i + 1] == Action{ActionKind::kCompute, k}) {
            lazy_recv = k;
            continue;
          }
          for (size_t n = 0; n < recvs_per_microbatch; ++n) {
            inbox[k].push_back(transport.Recv(worker, prev, options.timeout));
          }
          if (record) {
            recorder->Add(TraceSlice::Kind::kRecv, group, k, begin,
                          std::chrono::steady_clock::now());
          }
          break;
        case ActionKind::kCompute: {
          std::vector<Value> args = microbatches[k];
          if (layout.has_packed_params) args.push_back(Value::MakeObject(table));
          Value output = interpreter.Invoke(entry, std::move(args));
          if (last_group) result.outputs[k] = std::move(output);
          inbox.erase(k);
          lazy_recv = -1;
          if (record) {
            recorder->Add(TraceSlice::Kind::kCompute, group, k, begin,
                          std::chrono::steady_clock::now());
          }
          break;
        }
        case ActionKind::kSend:
          for (const Tensor& t : outbox[k]) transport.Send(worker, next, t);
          outbox.erase(k);
          if (record) {
            recorder->Add(TraceSlice::Kind::kSend, group, k, begin,
                          std::chrono::steady_clock::now());
          }
          break;
      }
    }
    if (last_group) result.output = result.outputs[0];
  } catch (const TransportAborted& e) {
    throw WorkerError(worker, group, e.what(), /*aborted=*/true);
  } catch (const WorkerError&) {
    throw;
  } catch (const RuntimeError& e) {
    std::string where = num_microbatches > 1 && current >= 0
                            ? "on micro-batch " + std::to_string(current) + " "
                            : "";
    throw WorkerError(worker, group,
                      "failed " + where +
                          (dynamic_cast<const ExecutionError*>(&e) ? "" : "in '" + entry + "': ") +
                          e.what());
  } catch (const std::exception& e) {
    // Any other exception (a kernel or builtin that throws) fails the worker the same way, so
    // its caller aborts the other workers instead of leaving them to time out.
    throw WorkerError(worker, group, std::string("failed in '") + entry + "': " + e.what());
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

RunResult RunWorker(const ir::IRModule& mod, const std::string& entry,
                    const std::vector<Value>& inputs, const WeightSource& weights,
                    const SessionOptions& options, Transport& transport, int worker) {
  SessionOptions single = options;
  single.num_microbatches = 1;
  return RunPipelineWorker(mod, entry, {inputs}, weights, single, transport, worker);
}

RunResult RunThreads(const ir::IRModule& mod, const std::string& entry,
                     const std::vector<Value>& inputs, const WeightSource& weights,
                     const SessionOptions& options) {
  SessionOptions single = options;
  single.num_microbatches = 1;
  return RunPipelineThreads(mod, entry, {inputs}, weights, single);
}

RunResult RunPipelineThreads(const ir::IRModule& mod, const std::string& entry,
                             const std::vector<std::vector<Value>>& microbatches,
                             const WeightSource& weights, const SessionOptions& options) {
  if (options.num_groups < 1 || options.group_size < 1) {
    throw RuntimeError("groups and group size must be at least 1");
  }
  ResolveSchedule(options);  // a bad schedule fails here, before any worker starts
  const int num_workers = options.num_groups * options.group_size;
  std::unique_ptr<Transport> transport =
      MakeThreadTransport(num_workers, LinkCapacity(mod, entry, options));
  if (std::optional<Fault> fault = FaultFromEnvironment()) {
    transport = InjectFault(std::move(transport), *fault, /*wire_capable=*/false);
  }
  const int worker_threads = options.threads_per_group > 0
                                 ? std::max(1, options.threads_per_group / options.group_size)
                                 : 0;
  const int blas_threads = options.blas_threads_per_group > 0
                               ? std::max(1, options.blas_threads_per_group / options.group_size)
                               : 0;
  const int blas_before = GetBlasThreads();
  if (blas_threads > 0) SetBlasThreads(blas_threads);
  TraceRecorder recorder;
  std::vector<RunResult> results(num_workers);
  std::mutex mu;
  std::optional<WorkerError> first_error;  // the root cause, not an abort it caused
  bool first_is_abort = false;
  std::vector<std::thread> threads;
  threads.reserve(num_workers);
  for (int w = 0; w < num_workers; ++w) {
    threads.emplace_back([&, w] {
      if (worker_threads > 0) SetThreadNumThreads(worker_threads);
      try {
        results[w] =
            RunPipelineWorker(mod, entry, microbatches, weights, options, *transport, w, &recorder);
      } catch (const WorkerError& e) {
        bool is_abort = e.aborted();
        {
          std::lock_guard<std::mutex> lock(mu);
          if (!first_error || (first_is_abort && !is_abort)) {
            first_error = e;
            first_is_abort = is_abort;
          }
        }
        transport->Abort(w, e.what());
      } catch (const std::exception& e) {
        WorkerError error(w, w / options.group_size, std::string("failed: ") + e.what());
        {
          std::lock_guard<std::mutex> lock(mu);
          if (!first_error || first_is_abort) {
            first_error = error;
            first_is_abort = false;
          }
        }
        transport->Abort(w, error.what());
      }
      SetThreadNumThreads(0);
    });
  }
  for (std::thread& t : threads) t.join();
  if (blas_threads > 0) SetBlasThreads(blas_before);
  if (first_error) throw *first_error;
  RunResult out;
  const RunResult& last = results[static_cast<size_t>(options.num_groups - 1) * options.group_size];
  out.output = last.output;
  out.outputs = last.outputs;
  out.trace.num_groups = options.num_groups;
  out.trace.num_microbatches = options.num_microbatches;
  for (RunResult& r : results) {
    out.workers.insert(out.workers.end(), r.workers.begin(), r.workers.end());
  }
  for (int g = 0; g < options.num_groups; ++g) {
    out.trace.group_functions.push_back(
        results[static_cast<size_t>(g) * options.group_size].workers.at(0).function);
  }
  out.trace.slices = recorder.Take();
  return out;
}

}  // namespace pipesplit::runtime
