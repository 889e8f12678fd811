// Drives the serving example (`pipesplit example llama --serving`) through the interpreter as
// MLC's engine does: create_paged_kv_cache, add sequences, begin_forward, embed + a model
// function, end_forward; and greedy generation over several requests at once.
#ifndef PIPESPLIT_TESTS_SERVING_SERVING_DRIVER_H_
#define PIPESPLIT_TESTS_SERVING_SERVING_DRIVER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pipesplit/ir/module.h"
#include "pipesplit/runtime/exec/interpreter.h"
#include "pipesplit/runtime/io/safetensors.h"

namespace pipesplit::serving_test {

using Tokens = std::vector<int64_t>;

class ServingModel {
 public:
  // `weights` in packed_params order.
  ServingModel(ir::IRModule mod, std::vector<runtime::NamedTensor> weights);
  // model.py and params.safetensors (tensors in its packed_params metadata order) of `dir`.
  static std::unique_ptr<ServingModel> Load(const std::string& dir);

  // A cache from create_paged_kv_cache (page size 16, no sliding window).
  runtime::Value CreateCache(int64_t max_batch_size = 8, int64_t max_total_seq_len = 512) const;
  void AddSequence(const runtime::Value& kv, int64_t id) const;
  void BeginForward(const runtime::Value& kv, const Tokens& ids, const Tokens& lengths) const;
  void EndForward(const runtime::Value& kv) const;

  // embed: (n, H) for n token ids.
  runtime::Tensor Embed(const Tokens& ids) const;
  // The model functions inside a forward the caller began; each returns the logits.
  runtime::Tensor Prefill(const runtime::Value& kv, const Tokens& ids) const;  // (1,1,V)
  runtime::Tensor Decode(const runtime::Value& kv, int64_t id) const;          // (1,1,V)
  runtime::Tensor BatchPrefill(const runtime::Value& kv, const std::vector<Tokens>& p) const;
  runtime::Tensor BatchDecode(const runtime::Value& kv, const Tokens& ids) const;  // (b,1,V)

  runtime::Interpreter& interpreter() const { return *interp_; }

 private:
  runtime::Value Builtin(const std::string& name, std::vector<runtime::Value> args) const;
  runtime::Tensor Logits(const std::string& function, std::vector<runtime::Value> args) const;

  ir::IRModule mod_;
  runtime::Value params_;
  std::unique_ptr<runtime::BuiltinRegistry> builtins_;
  std::unique_ptr<runtime::Interpreter> interp_;
};

// Logits (any shape ending in V) as rows of V doubles.
std::vector<std::vector<double>> LogitRows(const runtime::Tensor& logits);
int64_t ArgMax(const std::vector<double>& row);

struct GreedyResult {
  std::vector<Tokens> tokens;                            // new tokens per request
  std::vector<std::vector<std::vector<double>>> logits;  // per request, per step
};

// All requests in one cache: one batch_prefill of every prompt, then batch_decode steps.
GreedyResult Greedy(const ServingModel& model, const std::vector<Tokens>& prompts,
                    int max_new_tokens);
// {"tokens": [[...]], "logits": [[[...]]]}
std::string GreedyJson(const GreedyResult& result);
std::vector<Tokens> ReadPrompts(const std::string& path);

}  // namespace pipesplit::serving_test

#endif  // PIPESPLIT_TESTS_SERVING_SERVING_DRIVER_H_
