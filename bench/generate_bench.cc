// Token generation (serve/engine/generate.h) on the serving example Llama of the issue's
// benchmark: 8 layers, hidden 512, 16 requests of 32 prompt tokens and 64 new tokens, one core
// per group. Decode tokens/s of one group, of two groups with one batch in flight (MLC's
// schedule) and of two groups with two batches in flight; BM_GenerateSpeedup runs the three
// once each and reports the two speedups of the last one.
#include <benchmark/benchmark.h>

#include "pipesplit/models/llama_serving.h"
#include "pipesplit/runtime/launch/launch.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/serve/engine/generate.h"
#include "pipesplit/transform/pipeline_parallel_rewrite.h"

namespace pipesplit {
namespace {

struct ServingModel {
  ir::IRModule unsplit;
  ir::IRModule split;
  std::vector<runtime::Tensor> weights;
  std::vector<std::vector<int32_t>> prompts;
};

const ServingModel& Model() {
  static const ServingModel* model = [] {
    models::LlamaConfig c;
    c.layers = 8;
    c.hidden = 512;
    c.heads = 8;
    c.kv_heads = 4;
    c.ffn = 1376;
    c.vocab = 1024;
    c.stages = 2;
    models::LlamaServingExample ex = models::GenerateLlamaServing(c, {16, 32});
    auto* m = new ServingModel;
    m->unsplit = script::ParseModule(ex.module_text, "llama_serving.py");
    m->split = transform::RewritePipelineStages(m->unsplit);
    for (auto& [name, t] : ex.weights) m->weights.push_back(t);
    for (const std::vector<int64_t>& p : ex.prompts) m->prompts.emplace_back(p.begin(), p.end());
    return m;
  }();
  return *model;
}

serve::GenerateResult GenerateOnce(int groups, int batches_in_flight) {
  const ServingModel& m = Model();
  runtime::InMemoryWeights weights(m.weights);
  serve::GenerateOptions options;
  options.engine.session.num_groups = groups;
  options.engine.session.threads_per_group = 1;
  options.engine.session.blas_threads_per_group = 1;
  options.engine.batches_in_flight = batches_in_flight;
  options.max_new_tokens = 64;
  return serve::Generate(*runtime::MakeThreadLauncher(), groups == 1 ? m.unsplit : m.split, weights,
                         m.prompts, options);
}

double DecodeTokensPerSecond(const serve::GenerateResult& r) {
  return static_cast<double>(r.decode_tokens) / r.decode_seconds;
}

void BM_Generate(benchmark::State& state) {
  const int groups = static_cast<int>(state.range(0));
  const int batches = static_cast<int>(state.range(1));
  Model();  // built outside the timing
  double tokens_per_second = 0;
  for (auto _ : state) {
    serve::GenerateResult r = GenerateOnce(groups, batches);
    tokens_per_second = DecodeTokensPerSecond(r);
    state.SetIterationTime(r.seconds);
  }
  state.counters["decode_tok/s"] = tokens_per_second;
}
BENCHMARK(BM_Generate)
    ->ArgNames({"groups", "in_flight"})
    ->Args({1, 1})
    ->Args({2, 1})
    ->Args({2, 2})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);

void BM_GenerateSpeedup(benchmark::State& state) {
  Model();
  for (auto _ : state) {
    const double one = DecodeTokensPerSecond(GenerateOnce(1, 1));
    const double mlc = DecodeTokensPerSecond(GenerateOnce(2, 1));
    const double two = DecodeTokensPerSecond(GenerateOnce(2, 2));
    state.counters["2g_b2_vs_1g"] = two / one;
    state.counters["2g_b2_vs_2g_b1"] = two / mlc;
  }
}
BENCHMARK(BM_GenerateSpeedup)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace
}  // namespace pipesplit
