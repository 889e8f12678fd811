// Tensor parallelism inside a group (issue 34) on 2 cores, on the 8-layer, hidden-1024 example
// Llama (16 heads, FFN 2816, vocab 1024; README "Tensor parallelism inside a group"):
//   BM_TpForward     one forward pass (seq 64) on one worker of one core vs TP = 2 (one group
//                    of 2 workers, one kernel and one OpenBLAS thread each);
//   BM_TpDecode      a decode step of `generate` with a batch of 4 requests, same two set-ups;
//   BM_TpServing     the same serving load (16 requests of 32 prompt and 32 new tokens, greedy)
//                    on TP = 2 (1 group of 2 workers) and PP = 2 (2 groups of 1 worker, 2
//                    batches in flight): output tokens/s from the first step to the last token,
//                    decode tokens/s and the seconds before the first decode step (prefill);
//   BM_TpAllReduce   one allreduce of the sizes a forward (64 x 1024) and a decode step
//                    (4 x 1024) sum, between 2 workers on threads.
// Times exclude loading (a TP worker cuts its shards of the ~400 MB of weights at load time):
// the forward's is the mean of its compute slices in the run's trace, decode's the decode
// seconds over the decode steps. Each case runs once by default (a few seconds); the README
// gives the figures with the load average they were measured at.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <thread>

#include "pipesplit/models/llama.h"
#include "pipesplit/models/llama_serving.h"
#include "pipesplit/runtime/dist/collectives.h"
#include "pipesplit/runtime/kernels/create.h"
#include "pipesplit/runtime/launch/launch.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/serve/engine/generate.h"
#include "pipesplit/transform/pipeline_parallel_rewrite.h"

namespace pipesplit {
namespace {

models::LlamaConfig Config(int tensor_parallel) {
  models::LlamaConfig c;
  c.layers = 8;
  c.hidden = 1024;
  c.heads = 16;
  c.kv_heads = 8;  // serving only
  c.ffn = 2816;
  c.vocab = 1024;
  c.seq = 64;
  c.stages = 2;
  c.tensor_parallel = tensor_parallel;
  return c;
}

size_t CountOf(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// ---- forward ----

struct ForwardModel {
  ir::IRModule mod;
  std::vector<runtime::Tensor> weights;
  std::vector<runtime::Value> inputs;
  size_t allreduces = 0;
};

const ForwardModel& Forward(int tensor_parallel) {
  static std::map<int, ForwardModel> cache;
  auto it = cache.find(tensor_parallel);
  if (it != cache.end()) return it->second;
  models::LlamaExample ex = models::GenerateLlamaExample(Config(tensor_parallel));
  ForwardModel m;
  m.mod = script::ParseModule(ex.module_text, "llama.py");
  // The weights are written unsharded, the same bits for every tensor_parallel: one copy.
  if (tensor_parallel == 1) {
    for (auto& [name, t] : ex.weights) m.weights.push_back(t);
  } else {
    m.weights = Forward(1).weights;
  }
  for (auto& [name, t] : ex.inputs) m.inputs.emplace_back(t);
  m.allreduces = CountOf(ex.module_text, "R.ccl.allreduce(");
  return cache.emplace(tensor_parallel, std::move(m)).first->second;
}

// Mean seconds of the compute slices of group 0 (one per micro-batch).
double MeanComputeSeconds(const runtime::RunTrace& trace) {
  double sum = 0;
  int n = 0;
  for (const runtime::TraceSlice& s : trace.slices) {
    if (s.kind != runtime::TraceSlice::Kind::kCompute || s.group != 0) continue;
    sum += s.end_us - s.begin_us;
    ++n;
  }
  return n == 0 ? 0 : 1e-6 * sum / n;
}

void BM_TpForward(benchmark::State& state) {
  const int tp = static_cast<int>(state.range(0));
  constexpr int kForwards = 3;  // micro-batches of one run: forwards one after the other
  const ForwardModel& m = Forward(tp);
  runtime::InMemoryWeights weights(m.weights);
  runtime::SessionOptions options;
  options.num_groups = 1;
  options.group_size = tp;
  options.num_microbatches = kForwards;
  options.threads_per_group = tp;  // one kernel thread per worker
  options.blas_threads_per_group = tp;
  std::vector<std::vector<runtime::Value>> inputs(kForwards, m.inputs);
  double forward = 0;
  double setup = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    runtime::RunResult r = runtime::RunPipelineThreads(m.mod, "main", inputs, weights, options);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    forward = MeanComputeSeconds(r.trace);
    setup = seconds - kForwards * forward;
    state.SetIterationTime(forward);
  }
  state.counters["forward_ms"] = 1e3 * forward;
  state.counters["setup_s"] = setup;  // the run's time beside its forwards: loading, shards
  state.counters["allreduces"] = static_cast<double>(m.allreduces);
  state.SetLabel(tp == 1 ? "1 worker, 1 core" : "TP 2: 1 group of 2 workers, 1 core each");
}
BENCHMARK(BM_TpForward)
    ->ArgName("tp")
    ->Arg(1)
    ->Arg(2)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// ---- decode and serving ----

struct ServingModel {
  ir::IRModule unsplit;
  ir::IRModule split;
  std::vector<runtime::Tensor> weights;
  std::vector<std::vector<int32_t>> prompts;
};

// The serving example with 16 prompts of 32 tokens (the same for every tensor_parallel).
const ServingModel& Serving(int tensor_parallel) {
  static std::map<int, ServingModel> cache;
  auto it = cache.find(tensor_parallel);
  if (it != cache.end()) return it->second;
  models::LlamaServingExample ex =
      models::GenerateLlamaServing(Config(tensor_parallel), {/*requests=*/16, /*prompt_len=*/32});
  ServingModel m;
  m.unsplit = script::ParseModule(ex.module_text, "llama_serving.py");
  m.split = transform::RewritePipelineStages(m.unsplit);
  if (tensor_parallel == 1) {
    for (auto& [name, t] : ex.weights) m.weights.push_back(t);
  } else {
    m.weights = Serving(1).weights;
  }
  for (const std::vector<int64_t>& p : ex.prompts) m.prompts.emplace_back(p.begin(), p.end());
  return cache.emplace(tensor_parallel, std::move(m)).first->second;
}

// The first `requests` prompts, 32 new tokens each, on `groups` groups of `tp` workers (one
// core per worker).
serve::GenerateResult GenerateOnce(int tp, int groups, int batches_in_flight, int requests) {
  const ServingModel& m = Serving(tp);
  const std::vector<std::vector<int32_t>> prompts(m.prompts.begin(), m.prompts.begin() + requests);
  runtime::InMemoryWeights weights(m.weights);
  serve::GenerateOptions options;
  options.engine.session.num_groups = groups;
  options.engine.session.group_size = tp;
  options.engine.session.threads_per_group = tp;
  options.engine.session.blas_threads_per_group = tp;
  options.engine.batches_in_flight = batches_in_flight;
  options.max_new_tokens = 32;
  return serve::Generate(*runtime::MakeThreadLauncher(), groups == 1 ? m.unsplit : m.split, weights,
                         prompts, options);
}

void BM_TpDecode(benchmark::State& state) {
  const int tp = static_cast<int>(state.range(0));
  double step = 0;
  for (auto _ : state) {
    serve::GenerateResult r = GenerateOnce(tp, 1, 1, /*requests=*/4);
    step = r.decode_seconds / static_cast<double>(std::max<int64_t>(r.decode_steps, 1));
    state.SetIterationTime(step);
  }
  state.counters["step_ms"] = 1e3 * step;
  state.SetLabel(tp == 1 ? "batch 4, 1 worker" : "batch 4, TP 2 (1 core each)");
}
BENCHMARK(BM_TpDecode)
    ->ArgName("tp")
    ->Arg(1)
    ->Arg(2)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

void BM_TpServing(benchmark::State& state) {
  const bool tensor_parallel = state.range(0) == 1;
  double tokens_per_second = 0;
  double decode_tokens_per_second = 0;
  double before_decode = 0;
  for (auto _ : state) {
    serve::GenerateResult r = tensor_parallel ? GenerateOnce(2, 1, 1, /*requests=*/16)
                                              : GenerateOnce(1, 2, 2, /*requests=*/16);
    int64_t tokens = 0;
    for (const serve::RequestOutput& o : r.requests) tokens += std::ssize(o.tokens);
    tokens_per_second = static_cast<double>(tokens) / r.seconds;
    decode_tokens_per_second = static_cast<double>(r.decode_tokens) / r.decode_seconds;
    before_decode = r.seconds - r.decode_seconds;
    state.SetIterationTime(r.seconds);
  }
  state.counters["tok/s"] = tokens_per_second;
  state.counters["decode_tok/s"] = decode_tokens_per_second;
  state.counters["prefill_s"] = before_decode;  // to the first decode step: the prompts
  state.SetLabel(tensor_parallel ? "TP 2: 1 group of 2 workers"
                                 : "PP 2: 2 groups of 1 worker, 2 batches in flight");
}
BENCHMARK(BM_TpServing)
    ->ArgName("tp_not_pp")
    ->Arg(1)
    ->Arg(0)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);

// ---- the collective alone ----

void BM_TpAllReduce(benchmark::State& state) {
  const int64_t rows = state.range(0);
  constexpr int kRounds = 200;
  runtime::Tensor x =
      runtime::FullValue(std::vector<int64_t>{rows, 1024}, 1.0, DataType::Float(32));
  for (auto _ : state) {
    std::unique_ptr<runtime::Transport> transport = runtime::MakeThreadTransport(2, 2);
    auto start = std::chrono::steady_clock::now();
    std::thread peer([&] {
      runtime::Collectives c(transport.get(), 1, 1, 2, std::chrono::seconds(10));
      for (int i = 0; i < kRounds; ++i) {
        benchmark::DoNotOptimize(c.AllReduce(x, runtime::ReduceKind::kSum, true));
      }
    });
    runtime::Collectives c(transport.get(), 0, 1, 2, std::chrono::seconds(10));
    for (int i = 0; i < kRounds; ++i) {
      benchmark::DoNotOptimize(c.AllReduce(x, runtime::ReduceKind::kSum, true));
    }
    peer.join();
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / kRounds);
  }
  state.SetBytesProcessed(state.iterations() * rows * 1024 * 4);
  state.SetLabel(std::to_string(rows) + " x 1024 float32, 2 workers on threads");
}
BENCHMARK(BM_TpAllReduce)
    ->ArgName("rows")
    ->Arg(4)
    ->Arg(64)
    ->Iterations(3)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace pipesplit
