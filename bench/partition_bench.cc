// Automatic partitioning benchmarks: auto-pipeline-stages on unmarked lowered Llama-like
// modules (prefill and decode partitioned jointly, 8 stages) at 80 and 640 layers (target:
// under 1 s at 640), with and without a memory limit, and the exact solver alone.
#include <benchmark/benchmark.h>

#include <map>

#include "pipesplit/analysis/auto_partition.h"
#include "pipesplit/models/synthetic_llama.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/transform/pass.h"

namespace pipesplit {
namespace {

const ir::IRModule& Unmarked(int layers) {
  static std::map<int, ir::IRModule> cache;
  auto it = cache.find(layers);
  if (it != cache.end()) return it->second;
  models::SyntheticLlamaConfig config;
  config.layers = layers;
  config.stages = 1;  // no markers
  return cache[layers] = script::ParseModule(models::GenerateSyntheticLlama(config), "unmarked.py");
}

void RunPass(benchmark::State& state, const std::string& options) {
  const ir::IRModule& mod = Unmarked(static_cast<int>(state.range(0)));
  auto pipeline =
      transform::ParsePipeline("auto-pipeline-stages{stages=8,assume=n:2048" + options + "}");
  for (auto _ : state) {
    transform::PassContext ctx;
    benchmark::DoNotOptimize(pipeline->Run(mod, ctx));
  }
}

void BM_AutoPipelineStages(benchmark::State& state) { RunPass(state, ""); }
BENCHMARK(BM_AutoPipelineStages)->Arg(80)->Arg(640)->Unit(benchmark::kMillisecond);

// A limit some 12% above a balanced share of the memory (weights + activations, about 371 MB
// per layer at n = 2048): the memory reach of every start is computed too.
void BM_AutoPipelineStagesMemoryLimit(benchmark::State& state) {
  RunPass(state, ",memory=" + std::to_string(state.range(0) * 52) + "MB");
}
BENCHMARK(BM_AutoPipelineStagesMemoryLimit)->Arg(80)->Arg(640)->Unit(benchmark::kMillisecond);

// The solver alone on a synthetic problem of K candidate cuts.
void BM_SolvePartition(benchmark::State& state) {
  const int k = static_cast<int>(state.range(0));
  analysis::PartitionProblem p;
  p.time.assign(k + 1, 0);
  p.xfer.assign(k + 1, 0);
  p.act.assign(1, std::vector<int64_t>(k + 1, 0));
  p.recv.assign(1, std::vector<int64_t>(k + 1, 0));
  p.weight_bytes.assign(k, 1 << 20);
  for (int c = 1; c <= k; ++c) {
    p.time[c] = p.time[c - 1] + 1000 + (c * 7919) % 5000;
    p.act[0][c] = p.act[0][c - 1] + 4096;
    if (c < k) p.xfer[c] = (c * 104729) % 3000;
    p.weight_reads.emplace_back(c - 1, c - 1);
  }
  p.Prepare();
  for (auto _ : state) benchmark::DoNotOptimize(analysis::SolvePartition(p, 8, 0));
}
BENCHMARK(BM_SolvePartition)->Arg(2000)->Arg(20000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace pipesplit
