// The serving example driven like MLC's engine (see serving_driver.h).
#include "tests/serving/serving_driver.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "pipesplit/ir/protocol.h"
#include "pipesplit/runtime/exec/paged_kv_cache.h"
#include "pipesplit/script/parser.h"

namespace pipesplit::serving_test {

using runtime::Tensor;
using runtime::Value;

namespace {

Value Int(int64_t v) { return Value::MakePrim({DataType::Int(64), v, 0}); }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The same values with another shape.
Tensor Reshape(const Tensor& t, runtime::Shape shape) {
  return runtime::MakeTensor(t.dtype(), std::move(shape), runtime::ToDoubleVector(t));
}

}  // namespace

ServingModel::ServingModel(ir::IRModule mod, std::vector<runtime::NamedTensor> weights)
    : mod_(std::move(mod)), builtins_(std::make_unique<runtime::BuiltinRegistry>()) {
  Value::Tuple fields;
  for (auto& [name, t] : weights) fields.emplace_back(std::move(t));
  params_ = Value::MakeTuple(std::move(fields));
  runtime::RegisterCoreBuiltins(builtins_.get());
  runtime::RegisterPagedKvCacheBuiltins(builtins_.get(), {0, 1});
  interp_ = std::make_unique<runtime::Interpreter>(mod_, *builtins_);
}

std::unique_ptr<ServingModel> ServingModel::Load(const std::string& dir) {
  ir::IRModule mod = script::ParseModule(ReadFile(dir + "/model.py"), dir + "/model.py");
  runtime::SafetensorsFile file = runtime::SafetensorsFile::Open(dir + "/params.safetensors");
  std::vector<runtime::NamedTensor> weights;
  for (const auto& [key, value] : file.metadata()) {
    if (key != ir::protocol::kPackedParams) continue;
    for (const auto& name : nlohmann::json::parse(value)) {
      weights.emplace_back(name.get<std::string>(), file.Get(name.get<std::string>()));
    }
  }
  if (weights.empty()) throw std::runtime_error(dir + "/params.safetensors: no packed_params");
  return std::make_unique<ServingModel>(std::move(mod), std::move(weights));
}

Value ServingModel::Builtin(const std::string& name, std::vector<Value> args) const {
  runtime::Callable c;
  c.name = name;
  return interp_->Invoke(Value::MakeCallable(std::move(c)), std::move(args));
}

Value ServingModel::CreateCache(int64_t max_batch_size, int64_t max_total_seq_len) const {
  return interp_->Invoke(
      "create_paged_kv_cache",
      {Value::MakeShape({max_batch_size}), Value::MakeShape({max_total_seq_len}),
       Value::MakeShape({max_total_seq_len}), Value::MakeShape({16}), Value::MakeShape({0})});
}

void ServingModel::AddSequence(const Value& kv, int64_t id) const {
  Builtin(runtime::paged_kv::kAddSequence, {kv, Int(id)});
}

void ServingModel::BeginForward(const Value& kv, const Tokens& ids, const Tokens& lengths) const {
  Builtin(runtime::paged_kv::kBeginForward,
          {kv, Value::MakeShape(runtime::Shape(ids.begin(), ids.end())),
           Value::MakeShape(runtime::Shape(lengths.begin(), lengths.end()))});
}

void ServingModel::EndForward(const Value& kv) const {
  Builtin(runtime::paged_kv::kEndForward, {kv});
}

Tensor ServingModel::Embed(const Tokens& ids) const {
  Tensor t = runtime::MakeIntTensor(DataType::Int(32), {static_cast<int64_t>(ids.size())}, ids);
  return interp_->Invoke("embed", {t, params_}).ExpectTensor("embed");
}

Tensor ServingModel::Logits(const std::string& function, std::vector<Value> args) const {
  args.push_back(params_);
  Value out = interp_->Invoke(function, std::move(args));
  const Value::Tuple* fields = out.as_tuple();
  if (fields == nullptr || fields->size() != 2) {
    throw std::runtime_error(function + " did not return (logits, kv)");
  }
  return (*fields)[0].ExpectTensor(function.c_str());
}

Tensor ServingModel::Prefill(const Value& kv, const Tokens& ids) const {
  Tensor e = Embed(ids);
  const int64_t h = e.shape()[1];
  return Logits("prefill", {Reshape(e, {1, static_cast<int64_t>(ids.size()), h}), kv});
}

Tensor ServingModel::Decode(const Value& kv, int64_t id) const {
  Tensor e = Embed({id});
  return Logits("decode", {Reshape(e, {1, 1, e.shape()[1]}), kv});
}

Tensor ServingModel::BatchPrefill(const Value& kv, const std::vector<Tokens>& prompts) const {
  Tokens all, positions;
  for (const Tokens& p : prompts) {
    all.insert(all.end(), p.begin(), p.end());
    positions.push_back(static_cast<int64_t>(all.size()) - 1);
  }
  Tensor e = Embed(all);
  Tensor pos = runtime::MakeIntTensor(DataType::Int(32), {static_cast<int64_t>(positions.size())},
                                      positions);
  return Logits("batch_prefill",
                {Reshape(e, {1, static_cast<int64_t>(all.size()), e.shape()[1]}), pos, kv});
}

Tensor ServingModel::BatchDecode(const Value& kv, const Tokens& ids) const {
  Tensor e = Embed(ids);
  return Logits("batch_decode",
                {Reshape(e, {static_cast<int64_t>(ids.size()), 1, e.shape()[1]}), kv});
}

std::vector<std::vector<double>> LogitRows(const Tensor& logits) {
  const std::vector<double> all = runtime::ToDoubleVector(logits);
  const size_t v = static_cast<size_t>(logits.shape().back());
  std::vector<std::vector<double>> rows;
  for (size_t i = 0; i < all.size(); i += v)
    rows.emplace_back(all.begin() + i, all.begin() + i + v);
  return rows;
}

int64_t ArgMax(const std::vector<double>& row) {
  int64_t best = 0;
  for (size_t i = 1; i < row.size(); ++i) {
    if (row[i] > row[best]) best = static_cast<int64_t>(i);
  }
  return best;
}

GreedyResult Greedy(const ServingModel& model, const std::vector<Tokens>& prompts,
                    int max_new_tokens) {
  GreedyResult result;
  result.tokens.resize(prompts.size());
  result.logits.resize(prompts.size());
  if (max_new_tokens < 1) return result;
  Value kv = model.CreateCache(static_cast<int64_t>(prompts.size()));
  Tokens ids, lengths;
  for (size_t k = 0; k < prompts.size(); ++k) {
    model.AddSequence(kv, static_cast<int64_t>(k));
    ids.push_back(static_cast<int64_t>(k));
    lengths.push_back(static_cast<int64_t>(prompts[k].size()));
  }
  model.BeginForward(kv, ids, lengths);
  std::vector<std::vector<double>> rows = LogitRows(model.BatchPrefill(kv, prompts));
  model.EndForward(kv);
  for (int step = 0;; ++step) {
    Tokens next;
    for (size_t k = 0; k < prompts.size(); ++k) {
      next.push_back(ArgMax(rows[k]));
      result.tokens[k].push_back(next.back());
      result.logits[k].push_back(rows[k]);
    }
    if (step + 1 == max_new_tokens) break;
    model.BeginForward(kv, ids, Tokens(ids.size(), 1));
    rows = LogitRows(model.BatchDecode(kv, next));
    model.EndForward(kv);
  }
  return result;
}

std::string GreedyJson(const GreedyResult& result) {
  nlohmann::json out;
  out["tokens"] = result.tokens;
  out["logits"] = result.logits;
  return out.dump() + "\n";
}

std::vector<Tokens> ReadPrompts(const std::string& path) {
  return nlohmann::json::parse(ReadFile(path)).get<std::vector<Tokens>>();
}

}  // namespace pipesplit::serving_test
