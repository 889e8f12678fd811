// One worker of a generation session (serving_worker.h).
//
// Preconditions: the module has embed, batch_prefill, batch_decode
// and a cache creator in MLC's form. Steps:
//   1. Check the functions and their stages against the groups; find the hidden size.
//   2. Load the weights of the group's stages (and embed's on group 0), this worker's shard of
//      each in a tensor-parallel module (groups of its tensor_parallel_shards workers).
//   3. Register the builtins: the KV cache's for this group, sends straight onto the link to
//      the next group, receives straight from the previous one, the dispatcher.
// CreateCache calls the module's creator on this worker (ProbeCacheArguments calls it for a
// cache of one page and keeps the arguments the creator passes to the builtin).
// Execute: sequence changes (forks, removals, additions), begin_forward, the stage, end_forward;
// the first worker of the last group hands the logits to worker 0.
#include "src/serve/engine/serving_worker.h"

#include <algorithm>
#include <utility>

#include "pipesplit/ir/protocol.h"
#include "pipesplit/runtime/dist/collectives.h"
#include "pipesplit/runtime/exec/pipeline_worker.h"
#include "pipesplit/runtime/exec/weight_table.h"
#include "pipesplit/serve/engine/engine.h"
#include "pipesplit/support/check.h"

namespace pipesplit::serve::engine {
namespace {

// The tensor type of `func`'s param `index` (null when it is not a tensor).
const ir::TensorSInfoNode* TensorParam(const ir::FunctionNode& func, size_t index) {
  if (func.params().size() <= index) return nullptr;
  return ir::As<ir::TensorSInfoNode>(func.params()[index]->struct_info());
}

double SecondsSince(std::chrono::steady_clock::time_point begin) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
}

}  // namespace

ServingWorker::ServingWorker(const ir::IRModule& mod, const runtime::WeightSource& weights,
                             const runtime::SessionOptions& options, runtime::Transport& transport,
                             int worker, runtime::TraceRecorder* recorder)
    : mod_(mod),
      options_(options),
      transport_(transport),
      worker_(worker),
      group_(worker / options.group_size),
      last_(group_ == options.num_groups - 1),
      recorder_(recorder) {
  report_.worker = worker_;
  report_.group = group_;
  // Step 1.
  const std::pair<const char*, size_t> model_functions[] = {{serve_fn::kBatchPrefill, 3},
                                                            {serve_fn::kBatchDecode, 2}};
  for (const auto& [name, inputs] : model_functions) {
    runtime::EntryLayout layout = runtime::AnalyzeEntry(mod_, name);
    const int stages = layout.stages.empty() ? 1 : static_cast<int>(layout.stages.size());
    if (stages != options_.num_groups) {
      throw runtime::RuntimeError("'" + std::string(name) + "' has " + std::to_string(stages) +
                                  " pipeline stage" + (stages == 1 ? "" : "s") +
                                  " but the session has " + std::to_string(options_.num_groups) +
                                  " groups");
    }
    if (layout.num_inputs != inputs || !layout.has_packed_params) {
      throw runtime::RuntimeError("'" + std::string(name) + "' must take " +
                                  std::to_string(inputs) +
                                  " inputs and packed_params, as MLC's Llama exports it");
    }
  }
  runtime::EntryLayout embed = runtime::AnalyzeEntry(mod_, serve_fn::kEmbed);
  if (embed.num_inputs != 1)
    throw runtime::RuntimeError("'embed' must take one input, the token ids");
  const ir::TensorSInfoNode* input =
      TensorParam(*runtime::AnalyzeEntry(mod_, serve_fn::kBatchPrefill).func, 0);
  std::optional<int64_t> hidden;
  if (input != nullptr && input->shape() && input->shape()->size() == 3) {
    hidden = ir::AsConstInt((*input->shape())[2]);
  }
  if (!hidden) {
    throw runtime::RuntimeError(
        "batch_prefill's input_embeds must be a tensor (1, seq_len, hidden) with a "
        "static hidden size");
  }
  hidden_ = *hidden;
  hidden_dtype_ = input->dtype();

  // Step 2: in a tensor-parallel module, this worker's shard of each weight.
  const runtime::TensorParallelPlan plan = runtime::TensorParallelPlanOf(mod_);
  runtime::CheckGroupSize(plan, options_.group_size);
  std::shared_ptr<const runtime::WeightSource> shard =
      runtime::WeightsOfShard(plan, weights, worker_ % options_.group_size, options_.kernels);
  weights_ = std::make_shared<runtime::WeightTable>(group_);
  for (const char* name : {serve_fn::kBatchPrefill, serve_fn::kBatchDecode}) {
    const std::string stage = StageNames(name)[group_];
    ir::Function f = mod_.LookupFunction(stage);
    if (!f) throw runtime::RuntimeError("stage function '" + stage + "' is missing");
    weights_->LoadReadsOf(*f, stage, *shard, report_);
    report_.function += (report_.function.empty() ? "" : ", ") + stage;
  }
  if (group_ == 0) weights_->LoadReadsOf(*embed.func, serve_fn::kEmbed, *shard, report_);

  // Step 3.
  runtime::RegisterWorkerBuiltins(
      &builtins_, group_, options_.num_groups,
      [this](runtime::BuiltinCall& call) { return SendToNextGroup(call); },
      [this](runtime::BuiltinCall& call) { return RecvFromPrevGroup(call); },
      std::make_shared<runtime::Collectives>(&transport_, worker_, options_.num_groups,
                                             options_.group_size, options_.timeout));
  interpreter_ = std::make_unique<runtime::Interpreter>(mod_, builtins_, options_.kernels);
  interpreter_->set_metadata(options_.metadata);
  // The cache builtin keeps the arguments of the last cache it creates.
  const runtime::BuiltinFn* create = builtins_.Find(runtime::paged_kv::kCreate);
  PS_CHECK(create != nullptr);
  builtins_.Register(runtime::paged_kv::kCreate,
                     [this, inner = *create](runtime::BuiltinCall& call) {
                       create_args_ = call.args;
                       return inner(call);
                     });
}

std::vector<runtime::Value> ServingWorker::ProbeCacheArguments() {
  CreateCache({1, kPageSize, kPageSize});
  cache_value_ = runtime::Value();
  cache_ = nullptr;
  return create_args_;
}

void ServingWorker::CreateCache(const CacheShape& shape) {
  const char* creator = mod_.LookupFunction(serve_fn::kCreateTirPagedKvCache)
                            ? serve_fn::kCreateTirPagedKvCache
                            : serve_fn::kCreatePagedKvCache;
  if (!mod_.LookupFunction(creator)) {
    throw runtime::RuntimeError(
        "the module has neither 'create_tir_paged_kv_cache' nor "
        "'create_paged_kv_cache'");
  }
  std::vector<runtime::Value> shape_args;
  for (int64_t v : {shape.max_batch_size, shape.max_total_seq_len, shape.prefill_chunk_size,
                    kPageSize, int64_t{0}}) {
    shape_args.push_back(runtime::Value::MakeShape({v}));
  }
  cache_value_ = interpreter_->Invoke(creator, std::move(shape_args));
  cache_ = dynamic_cast<const runtime::PagedKvCache*>(cache_value_.as_object());
  if (cache_ == nullptr) {
    throw runtime::RuntimeError(std::string("'") + creator + "' did not return a paged KV cache");
  }
}

ServingWorker::~ServingWorker() = default;

std::vector<std::string> ServingWorker::StageNames(const std::string& function) const {
  std::vector<std::string> stages = runtime::AnalyzeEntry(mod_, function).stages;
  if (stages.empty()) stages.assign(static_cast<size_t>(options_.num_groups), function);
  return stages;
}

Command ServingWorker::Receive() {
  return DecodeCommand(transport_.Recv(worker_, 0, options_.timeout));
}

runtime::Value ServingWorker::SendToNextGroup(runtime::BuiltinCall& call) {
  if (call.args.size() != 1) throw runtime::RuntimeError("send_to_next_group takes one tensor");
  if (last_) throw runtime::RuntimeError("send_to_next_group called on the last group");
  auto begin = std::chrono::steady_clock::now();
  const runtime::Tensor& sent = call.args[0].ExpectTensor("the value sent");
  // A copy: in a memory-planned module the sent tensor views a storage the stage may reuse
  // once the send is done, and the threads transport hands the tensor itself over.
  transport_.Send(worker_, worker_ + options_.group_size,
                  runtime::FromBytes(sent.dtype(), sent.shape(), sent.raw_data(), sent.nbytes()));
  waiting_seconds_ += SecondsSince(begin);
  Record(runtime::TraceSlice::Kind::kSend, batch_, begin);
  return runtime::Value();
}

runtime::Value ServingWorker::RecvFromPrevGroup(runtime::BuiltinCall& call) {
  if (group_ == 0) throw runtime::RuntimeError("recv_from_prev_group called on the first group");
  auto begin = std::chrono::steady_clock::now();
  const int prev = worker_ - options_.group_size;
  runtime::Tensor t = transport_.Recv(worker_, prev, options_.timeout);
  waiting_seconds_ += SecondsSince(begin);
  Record(runtime::TraceSlice::Kind::kRecv, batch_, begin);
  return DeliverReceived(std::move(t), call, prev);
}

// The step's input embeddings: group 0 embeds the tokens, the other groups' stages do not
// read them (they receive their hidden states) and get zeros of the same shape.
runtime::Tensor ServingWorker::Embeddings(const Command& command) {
  const int64_t n = static_cast<int64_t>(command.tokens.size());
  runtime::Shape shape = command.kind == StepKind::kPrefill ? runtime::Shape{1, n, hidden_}
                                                            : runtime::Shape{n, 1, hidden_};
  if (group_ != 0) {
    runtime::TensorBuilder zeros(hidden_dtype_, shape);
    std::fill_n(static_cast<char*>(zeros.raw_data()), zeros.nbytes(), 0);
    return std::move(zeros).Publish();
  }
  runtime::Tensor ids = runtime::MakeIntTensor(DataType::Int(32), {n}, command.tokens);
  runtime::Value embedded =
      interpreter_->Invoke(serve_fn::kEmbed, {ids, runtime::Value::MakeObject(weights_)});
  const runtime::Tensor& e = embedded.ExpectTensor("embed's result");
  if (e.numel() != n * hidden_) {
    throw runtime::RuntimeError("embed returned " + e.ToString() + " for " + std::to_string(n) +
                                " tokens of hidden size " + std::to_string(hidden_));
  }
  return e.WithShape(shape);
}

runtime::Tensor ServingWorker::Execute(const Command& command) {
  PS_CHECK(cache_ != nullptr &&
           (command.kind == StepKind::kPrefill || command.kind == StepKind::kDecode));
  auto begin = std::chrono::steady_clock::now();
  batch_ = command.batch;
  for (size_t i = 0; i + 2 < command.forks.size(); i += 3) {
    cache_->ForkSequence(command.forks[i], command.forks[i + 1], command.forks[i + 2]);
  }
  for (int64_t id : command.remove) cache_->RemoveSequence(id);
  for (int64_t id : command.add) cache_->AddSequence(id);
  cache_->BeginForward(command.seq_ids, command.lengths);
  std::vector<runtime::Value> args = {Embeddings(command)};
  const bool prefill = command.kind == StepKind::kPrefill;
  if (prefill) {
    std::vector<int64_t> positions;
    int64_t end = 0;
    for (int64_t length : command.lengths) positions.push_back((end += length) - 1);
    args.push_back(runtime::MakeIntTensor(DataType::Int(32),
                                          {static_cast<int64_t>(positions.size())}, positions));
  }
  args.push_back(cache_value_);
  args.push_back(runtime::Value::MakeObject(weights_));
  runtime::Value out = interpreter_->Invoke(
      prefill ? serve_fn::kBatchPrefill : serve_fn::kBatchDecode, std::move(args));
  cache_->EndForward();
  busy_seconds_ += SecondsSince(begin) - std::exchange(waiting_seconds_, 0.0);
  Record(runtime::TraceSlice::Kind::kCompute, batch_, begin);
  // The last group's workers hold the same logits; its first worker hands them on.
  if (!last_ || worker_ % options_.group_size != 0) return runtime::Tensor();
  const runtime::Value::Tuple* fields = out.as_tuple();
  if (fields == nullptr || fields->empty()) {
    throw runtime::RuntimeError("the step's function returned no (logits, kv cache) tuple");
  }
  const runtime::Tensor& logits = (*fields)[0].ExpectTensor("the logits");
  const int64_t rows = static_cast<int64_t>(command.seq_ids.size());
  if (logits.dtype() != DataType::Float(32) || logits.ndim() != 3 || logits.numel() % rows != 0 ||
      logits.shape()[prefill ? 1 : 0] != rows) {
    throw runtime::RuntimeError("the logits of " + std::to_string(rows) + " sequences are " +
                                logits.ToString() + ", not float32 " +
                                (prefill ? "[1, rows, vocab]" : "[rows, 1, vocab]"));
  }
  runtime::Tensor flat = logits.WithShape({rows, logits.numel() / rows});
  if (worker_ != 0) transport_.Send(worker_, 0, flat);
  return flat;
}

void ServingWorker::Record(runtime::TraceSlice::Kind kind, int64_t batch,
                           std::chrono::steady_clock::time_point begin) {
  if (recorder_ != nullptr) {
    recorder_->Add(kind, group_, static_cast<int>(batch), begin, std::chrono::steady_clock::now());
  }
}

}  // namespace pipesplit::serve::engine
