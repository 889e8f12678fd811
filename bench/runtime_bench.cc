// Runtime benchmarks: forward passes of the example Llama (single group at two sizes, and
// split into 2 groups on threads), pipelined throughput with micro-batches, and in-process
// transport throughput.
#include <benchmark/benchmark.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

#include "pipesplit/models/llama.h"
#include "pipesplit/runtime/exec/session.h"
#include "pipesplit/runtime/kernels/create.h"
#include "pipesplit/runtime/launch/launch.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/transform/pipeline_parallel_rewrite.h"

namespace pipesplit {
namespace {

struct Model {
  ir::IRModule unsplit;
  ir::IRModule split;
  std::vector<runtime::Tensor> weights;
  std::vector<runtime::Value> inputs;
};

Model MakeModel(int layers, int hidden, int heads, int seq, int stages) {
  models::LlamaConfig c;
  c.layers = layers;
  c.hidden = hidden;
  c.heads = heads;
  c.ffn = hidden * 4;
  c.vocab = 1024;
  c.seq = seq;
  c.stages = stages;
  models::LlamaExample ex = models::GenerateLlamaExample(c);
  Model m;
  m.unsplit = script::ParseModule(ex.module_text, "llama.py");
  m.split = transform::RewritePipelineStages(m.unsplit);
  for (auto& [name, t] : ex.weights) m.weights.push_back(t);
  for (auto& [name, t] : ex.inputs) m.inputs.emplace_back(t);
  return m;
}

// CPU seconds of the whole process (every thread): unlike wall time, it hardly moves when other
// processes compete for the cores, so it is the number to compare on a shared machine.
double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

void RunForward(benchmark::State& state, const Model& m, bool split, int groups) {
  runtime::InMemoryWeights weights(m.weights);
  runtime::SessionOptions options;
  options.num_groups = groups;
  const double cpu_start = ProcessCpuSeconds();
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        runtime::RunThreads(split ? m.split : m.unsplit, "main", m.inputs, weights, options));
  }
  state.counters["process_cpu_ms"] = benchmark::Counter(1e3 * (ProcessCpuSeconds() - cpu_start) /
                                                        static_cast<double>(state.iterations()));
}

// The target workload of shared/spec/targets.md: 8 layers, hidden 512, 8 heads, seq 128.
void BM_ForwardSingleGroup(benchmark::State& state) {
  static const Model small = MakeModel(2, 128, 4, 32, 2);
  static const Model target = MakeModel(8, 512, 8, 128, 2);
  RunForward(state, state.range(0) == 0 ? small : target, false, 1);
  state.SetLabel(state.range(0) == 0 ? "2 layers, hidden 128, seq 32"
                                     : "8 layers, hidden 512, 8 heads, seq 128");
}
BENCHMARK(BM_ForwardSingleGroup)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ForwardTwoGroups(benchmark::State& state) {
  static const Model target = MakeModel(8, 512, 8, 128, 2);
  RunForward(state, target, true, 2);
  state.SetLabel("8 layers, hidden 512, 2 stages on 2 threads");
}
BENCHMARK(BM_ForwardTwoGroups)->Unit(benchmark::kMillisecond)->UseRealTime();

// Pipelined throughput on the target workload: G groups (the model split into G stages, each
// group one kernel thread and one OpenBLAS thread, so one group uses one core) x M
// micro-batches. Counters: micro-batches per second, the speedup over one group with the same
// M, and the ideal G*M/(M+G-1) of a pipeline whose stages take equal time.
void BM_PipelineThroughput(benchmark::State& state) {
  const int groups = static_cast<int>(state.range(0));
  const int m = static_cast<int>(state.range(1));
  static std::map<int, Model> models;
  if (!models.count(groups)) models.emplace(groups, MakeModel(8, 512, 8, 128, std::max(groups, 2)));
  static std::map<int, double> single_group_rate;  // by M, from the groups = 1 runs
  const Model& model = models.at(groups);
  runtime::InMemoryWeights weights(model.weights);
  runtime::SessionOptions options;
  options.num_groups = groups;
  options.num_microbatches = m;
  options.threads_per_group = 1;
  options.blas_threads_per_group = 1;
  std::vector<std::vector<runtime::Value>> inputs(m, model.inputs);
  auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    benchmark::DoNotOptimize(runtime::RunPipelineThreads(groups == 1 ? model.unsplit : model.split,
                                                         "main", inputs, weights, options));
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double rate = static_cast<double>(m) * static_cast<double>(state.iterations()) / seconds;
  if (groups == 1) single_group_rate[m] = rate;
  state.counters["mb_per_s"] = rate;
  if (single_group_rate.count(m)) state.counters["speedup"] = rate / single_group_rate[m];
  state.counters["ideal"] = static_cast<double>(groups) * m / (m + groups - 1);
  state.SetLabel(std::to_string(groups) + " groups x " + std::to_string(m) +
                 " micro-batches, 8 layers, hidden 512");
}
BENCHMARK(BM_PipelineThroughput)
    ->ArgsProduct({{1, 2, 4}, {1, 2, 4, 8, 16}})
    ->ArgNames({"groups", "M"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(2);

void BM_ThreadTransport(benchmark::State& state) {
  const int64_t bytes = state.range(0);
  runtime::Tensor t = runtime::FullValue(std::vector<int64_t>{bytes / 4}, 1.0, DataType::Float(32));
  auto transport = runtime::MakeThreadTransport(2);
  constexpr int kMessages = 64;
  for (auto _ : state) {
    std::thread receiver([&] {
      for (int i = 0; i < kMessages; ++i) {
        benchmark::DoNotOptimize(transport->Recv(1, 0, std::chrono::seconds(10)));
      }
    });
    for (int i = 0; i < kMessages; ++i) transport->Send(0, 1, t);
    receiver.join();
  }
  state.SetBytesProcessed(bytes * kMessages * state.iterations());
}
BENCHMARK(BM_ThreadTransport)->RangeMultiplier(8)->Range(1 << 10, 64 << 20)->UseRealTime();

}  // namespace
}  // namespace pipesplit
