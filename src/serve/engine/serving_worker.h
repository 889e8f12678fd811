// One worker of a generation session (serve/generate.h): its group's weights (its shard of them
// in a tensor-parallel module), its paged KV cache (its shard's heads) and the commands it
// executes. Every worker of group g of G runs stage g of batch_prefill and batch_decode (the
// function itself when G is 1); the workers of group 0 also embed.
#ifndef PIPESPLIT_SRC_RUNTIME_SERVE_SERVING_WORKER_H_
#define PIPESPLIT_SRC_RUNTIME_SERVE_SERVING_WORKER_H_

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "pipesplit/ir/module.h"
#include "pipesplit/runtime/dist/transport.h"
#include "pipesplit/runtime/exec/builtins.h"
#include "pipesplit/runtime/exec/interpreter.h"
#include "pipesplit/runtime/exec/paged_kv_cache.h"
#include "pipesplit/runtime/exec/session.h"
#include "pipesplit/runtime/exec/trace.h"
#include "pipesplit/runtime/io/weights.h"
#include "src/serve/engine/command.h"

namespace pipesplit::runtime {
class WeightTable;
}

namespace pipesplit::serve::engine {

// The arguments of create_paged_kv_cache (page size kPageSize, no sliding window).
struct CacheShape {
  int64_t max_batch_size = 1;
  int64_t max_total_seq_len = 1;
  int64_t prefill_chunk_size = 1;
};

class ServingWorker {
 public:
  // Checks the module (its functions, their stages against options.num_groups, its shards
  // against options.group_size), loads the group's weights and registers the builtins: RuntimeError
  // when any of it fails. `mod`, `transport` and `recorder` (may be null: no trace) outlive the
  // worker.
  ServingWorker(const ir::IRModule& mod, const runtime::WeightSource& weights,
                const runtime::SessionOptions& options, runtime::Transport& transport, int worker,
                runtime::TraceRecorder* recorder);
  ~ServingWorker();
  ServingWorker(const ServingWorker&) = delete;
  ServingWorker& operator=(const ServingWorker&) = delete;

  // The arguments the module's cache creator passes to
  // vm.builtin.paged_attention_kv_cache_create (found by creating a cache of one page).
  std::vector<runtime::Value> ProbeCacheArguments();
  // Creates the group's cache; RuntimeError when the module's creator fails.
  void CreateCache(const CacheShape& shape);
  // The cache (after CreateCache).
  const runtime::PagedKvCache& cache() const { return *cache_; }

  // The next command from worker 0 (RuntimeError after the session's timeout).
  Command Receive();
  // Runs a step command: removals, additions, then begin_forward, the group's stage of the
  // step's function and end_forward on the cache. On the last group, the step's logits as
  // float32 [rows, vocab] (sent to worker 0 as well when this is not worker 0); elsewhere an
  // undefined tensor.
  runtime::Tensor Execute(const Command& command);
  // Seconds spent in Execute so far, less the waits for the neighbouring groups.
  double busy_seconds() const { return busy_seconds_; }

  const runtime::WorkerReport& report() const { return report_; }
  int group() const { return group_; }
  // The stage function of each group for `function` (the function itself when unsplit).
  std::vector<std::string> StageNames(const std::string& function) const;

 private:
  runtime::Value SendToNextGroup(runtime::BuiltinCall& call);
  runtime::Value RecvFromPrevGroup(runtime::BuiltinCall& call);
  runtime::Tensor Embeddings(const Command& command);
  void Record(runtime::TraceSlice::Kind kind, int64_t batch,
              std::chrono::steady_clock::time_point begin);

  const ir::IRModule& mod_;
  const runtime::SessionOptions options_;
  runtime::Transport& transport_;
  const int worker_;
  const int group_;
  const bool last_;
  runtime::TraceRecorder* const recorder_;
  runtime::WorkerReport report_;
  std::shared_ptr<runtime::WeightTable> weights_;
  runtime::BuiltinRegistry builtins_;
  std::unique_ptr<runtime::Interpreter> interpreter_;
  runtime::Value cache_value_;                    // the cache as the module's functions take it
  const runtime::PagedKvCache* cache_ = nullptr;  // owned by cache_value_
  std::vector<runtime::Value> create_args_;       // of the last cache created
  double busy_seconds_ = 0;
  double waiting_seconds_ = 0;  // in sends and receives of the step being executed
  int64_t hidden_ = 0;          // the hidden size of the input embeddings
  DataType hidden_dtype_;
  int64_t batch_ = 0;  // the batch of the step being executed (for the trace)
};

}  // namespace pipesplit::serve::engine

#endif  // PIPESPLIT_SRC_RUNTIME_SERVE_SERVING_WORKER_H_
