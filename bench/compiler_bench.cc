// Compiler benchmarks: TVMScript parse / print / well-formedness throughput on the shared
// corpus and on generated lowered Llama-like modules, and the pipeline-parallel rewrite at
// 8, 80 and 640 layers (8 stages). Throughput is reported as bytes/s of TVMScript text.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <map>

#include "pipesplit/analysis/well_formed.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/text.h"
#include "pipesplit/transform/pipeline_parallel_rewrite.h"
#include "src/cli/models/lowered_llama.h"

namespace pipesplit {
namespace {

const std::string& LoweredText(int layers) {
  static std::map<int, std::string> cache;
  auto it = cache.find(layers);
  if (it != cache.end()) return it->second;
  models::LoweredLlamaConfig config;
  config.layers = layers;
  config.stages = 8;
  config.with_decode = false;
  return cache[layers] = models::GenerateLoweredLlama(config);
}

const std::string& CorpusText() {
  static const std::string text = [] {
    std::string all;
    std::filesystem::path dir =
        std::filesystem::path(PIPESPLIT_SOURCE_DIR) / "../shared/corpus/mlc-llm-2023";
    if (!std::filesystem::exists(dir)) return all;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      std::string text, error;
      if (ReadFile(entry.path().string(), &text, &error)) all += text + '\x1e';
    }
    return all;
  }();
  return text;
}

std::vector<std::string> CorpusFiles() {
  std::vector<std::string> files;
  std::string_view all = CorpusText();
  while (!all.empty()) {
    size_t end = all.find('\x1e');
    files.emplace_back(all.substr(0, end));
    all.remove_prefix(end + 1);
  }
  return files;
}

void BM_ParseCorpus(benchmark::State& state) {
  std::vector<std::string> files = CorpusFiles();
  if (files.empty()) return state.SkipWithError("corpus not found");
  int64_t bytes = 0;
  for (auto _ : state) {
    for (const std::string& f : files) {
      benchmark::DoNotOptimize(script::ParseModule(f, "corpus.py"));
      bytes += static_cast<int64_t>(f.size());
    }
  }
  state.SetBytesProcessed(bytes);
}
BENCHMARK(BM_ParseCorpus)->Unit(benchmark::kMillisecond);

void BM_PrintCorpus(benchmark::State& state) {
  std::vector<ir::IRModule> mods;
  for (const std::string& f : CorpusFiles()) mods.push_back(script::ParseModule(f, "corpus.py"));
  if (mods.empty()) return state.SkipWithError("corpus not found");
  int64_t bytes = 0;
  for (auto _ : state) {
    for (const ir::IRModule& m : mods) bytes += static_cast<int64_t>(script::PrintModule(m).size());
  }
  state.SetBytesProcessed(bytes);
}
BENCHMARK(BM_PrintCorpus)->Unit(benchmark::kMillisecond);

void BM_CheckCorpus(benchmark::State& state) {
  std::vector<std::string> files = CorpusFiles();
  std::vector<ir::IRModule> mods;
  int64_t size = 0;
  for (const std::string& f : files) {
    mods.push_back(script::ParseModule(f, "corpus.py"));
    size += static_cast<int64_t>(f.size());
  }
  if (mods.empty()) return state.SkipWithError("corpus not found");
  for (auto _ : state) {
    for (const ir::IRModule& m : mods) benchmark::DoNotOptimize(analysis::CheckWellFormed(m));
  }
  state.SetBytesProcessed(size * state.iterations());
}
BENCHMARK(BM_CheckCorpus)->Unit(benchmark::kMillisecond);

void BM_ParseLowered(benchmark::State& state) {
  const std::string& text = LoweredText(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(script::ParseModule(text, "lowered.py"));
  state.SetBytesProcessed(static_cast<int64_t>(text.size()) * state.iterations());
}
BENCHMARK(BM_ParseLowered)->Arg(8)->Arg(80)->Arg(640)->Unit(benchmark::kMillisecond);

void BM_PrintLowered(benchmark::State& state) {
  const std::string& text = LoweredText(static_cast<int>(state.range(0)));
  ir::IRModule mod = script::ParseModule(text, "lowered.py");
  for (auto _ : state) benchmark::DoNotOptimize(script::PrintModule(mod));
  state.SetBytesProcessed(static_cast<int64_t>(text.size()) * state.iterations());
}
BENCHMARK(BM_PrintLowered)->Arg(8)->Arg(80)->Arg(640)->Unit(benchmark::kMillisecond);

void BM_WellFormedLowered(benchmark::State& state) {
  ir::IRModule mod = script::ParseModule(LoweredText(static_cast<int>(state.range(0))), "l.py");
  for (auto _ : state) benchmark::DoNotOptimize(analysis::CheckWellFormed(mod));
}
BENCHMARK(BM_WellFormedLowered)->Arg(8)->Arg(80)->Arg(640)->Unit(benchmark::kMillisecond);

void BM_RewriteLowered(benchmark::State& state) {
  ir::IRModule mod = script::ParseModule(LoweredText(static_cast<int>(state.range(0))), "l.py");
  for (auto _ : state) benchmark::DoNotOptimize(transform::RewritePipelineStages(mod));
}
BENCHMARK(BM_RewriteLowered)->Arg(8)->Arg(80)->Arg(640)->Unit(benchmark::kMillisecond);

// The whole compiler job: text in, split text out.
void BM_ParseRewritePrint(benchmark::State& state) {
  const std::string& text = LoweredText(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    ir::IRModule mod = script::ParseModule(text, "lowered.py");
    benchmark::DoNotOptimize(script::PrintModule(transform::RewritePipelineStages(mod)));
  }
  state.SetBytesProcessed(static_cast<int64_t>(text.size()) * state.iterations());
  state.counters["layers"] = static_cast<double>(state.range(0));
}
BENCHMARK(BM_ParseRewritePrint)->Arg(8)->Arg(80)->Arg(640)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace pipesplit
