// Compiler benchmarks: TVMScript parse / print / well-formedness throughput on the shared
// corpus and on generated lowered Llama-like modules, and the pipeline-parallel rewrite at
// 8, 80 and 640 layers (8 stages). Throughput is reported as bytes/s of TVMScript text.
// BM_FrontEnd*: the legalized example Llama (`pipesplit example llama-lowered --layers N
// --stages 8`) phase by phase (parse, rewrite, print, check), and BM_FreshProcessVsPython the
// whole `pipesplit opt` job (parse + rewrite + print) in a fresh process next to CPython's
// `ast.parse` of the same text, with the time and peak-RSS ratios as counters.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include "bench/bench_util.h"
#include "pipesplit/analysis/well_formed.h"
#include "pipesplit/models/llama.h"
#include "pipesplit/models/synthetic_llama.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/text.h"
#include "pipesplit/support/thread_pool.h"
#include "pipesplit/transform/pass.h"
#include "pipesplit/transform/pipeline_parallel_rewrite.h"

namespace pipesplit {
namespace {

using bench::ChildRun;
using bench::LegalizedLlamaText;
using bench::PeakRssMb;
using bench::RunChild;

const std::string& LoweredText(int layers) {
  static std::map<int, std::string> cache;
  auto it = cache.find(layers);
  if (it != cache.end()) return it->second;
  models::SyntheticLlamaConfig config;
  config.layers = layers;
  config.stages = 8;
  config.with_decode = false;
  return cache[layers] = models::GenerateSyntheticLlama(config);
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

// The text `pipesplit example llama-lowered --layers N --stages 8 --module-only` writes.
void BM_FrontEndParse(benchmark::State& state) {
  const std::string& text = LegalizedLlamaText(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(script::ParseModule(text, "model.py"));
  state.SetBytesProcessed(static_cast<int64_t>(text.size()) * state.iterations());
}
BENCHMARK(BM_FrontEndParse)->Arg(256)->Arg(640)->Unit(benchmark::kMillisecond);

// The pass itself: freeing its result (nodes shared with the input stay) is timed apart, as
// `free_ms` (a compiler run frees nothing before it exits).
void BM_FrontEndRewrite(benchmark::State& state) {
  ir::IRModule mod =
      script::ParseModule(LegalizedLlamaText(static_cast<int>(state.range(0))), "model.py");
  double free_seconds = 0;
  for (auto _ : state) {
    std::optional<ir::IRModule> out = transform::RewritePipelineStages(mod);
    benchmark::DoNotOptimize(*out);
    state.PauseTiming();
    auto start = std::chrono::steady_clock::now();
    out.reset();
    free_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.ResumeTiming();
  }
  state.counters["free_ms"] = free_seconds * 1e3 / static_cast<double>(state.iterations());
  // The stage functions are built side by side (PIPESPLIT_COMPILE_THREADS).
  state.counters["threads"] = support::CompileThreads();
}
BENCHMARK(BM_FrontEndRewrite)->Arg(256)->Arg(640)->Unit(benchmark::kMillisecond);

void BM_FrontEndPrint(benchmark::State& state) {
  ir::IRModule mod = transform::RewritePipelineStages(
      script::ParseModule(LegalizedLlamaText(static_cast<int>(state.range(0))), "model.py"));
  int64_t bytes = 0;
  for (auto _ : state) bytes += static_cast<int64_t>(script::PrintModule(mod).size());
  state.SetBytesProcessed(bytes);
}
BENCHMARK(BM_FrontEndPrint)->Arg(256)->Arg(640)->Unit(benchmark::kMillisecond);

void BM_FrontEndCheck(benchmark::State& state) {
  ir::IRModule mod =
      script::ParseModule(LegalizedLlamaText(static_cast<int>(state.range(0))), "model.py");
  for (auto _ : state) benchmark::DoNotOptimize(analysis::CheckWellFormed(mod));
}
BENCHMARK(BM_FrontEndCheck)->Arg(256)->Arg(640)->Unit(benchmark::kMillisecond);

// Child mode of this binary (see RunChild): parse, rewrite and print the file named by
// PIPESPLIT_BENCH_CHILD, print the peak RSS in MB, then the milliseconds and the RSS in MB
// after each phase (parse, rewrite, print), and exit before the benchmark starts.
[[maybe_unused]] const bool kChildRan = [] {
  const char* path = std::getenv("PIPESPLIT_BENCH_CHILD");
  if (path == nullptr) return false;
  std::string text, error;
  if (!ReadFile(path, &text, &error)) std::_Exit(1);
  using Clock = std::chrono::steady_clock;
  double phase_ms[3], phase_rss[3];
  auto last = Clock::now();
  auto mark = [&](int phase) {
    auto now = Clock::now();
    phase_ms[phase] = std::chrono::duration<double, std::milli>(now - last).count();
    phase_rss[phase] = bench::CurrentRssMb();
    last = now;
  };
  // The parsed module stays alive, as in `pipesplit opt`, which holds it until exit.
  ir::IRModule parsed = script::ParseModule(text, path);
  mark(0);
  ir::IRModule mod = transform::RewritePipelineStages(parsed);
  mark(1);
  std::string out = script::PrintModule(mod);
  mark(2);
  std::printf("%f", PeakRssMb());
  for (int i = 0; i < 3; ++i) std::printf(" %f %f", phase_ms[i], phase_rss[i]);
  std::printf("\n");
  std::fflush(stdout);
  std::_Exit(out.empty() ? 1 : 0);
}();

// The same line for python3, run after ast.parse.
constexpr const char* kPythonPeakRss =
    "print(next(float(l.split()[1]) / 1024 for l in open('/proc/self/status') "
    "if l.startswith('VmHWM:')))";

void BM_FreshProcessVsPython(benchmark::State& state) {
  const char* python = "/usr/bin/python3";
  if (access(python, X_OK) != 0) return state.SkipWithError("python3 not found");
  int layers = static_cast<int>(state.range(0));
  std::filesystem::path file =
      std::filesystem::temp_directory_path() /
      ("pipesplit_bench_" + std::to_string(getpid()) + "_" + std::to_string(layers) + ".py");
  {
    std::ofstream out(file, std::ios::binary);
    out << LegalizedLlamaText(layers);
    if (!out) return state.SkipWithError("cannot write the module to a temporary file");
  }
  std::vector<std::string> child_env{"PIPESPLIT_BENCH_CHILD=" + file.string()};
  double ours = 0, theirs = 0, ours_rss = 0, theirs_rss = 0;
  double phase_ms[3] = {0, 0, 0}, phase_rss[3] = {0, 0, 0};
  for (auto _ : state) {
    ChildRun a = RunChild({"/proc/self/exe"}, child_env);
    ChildRun b = RunChild(
        {python, "-c",
         std::string("import ast, sys; ast.parse(open(sys.argv[1]).read()); ") + kPythonPeakRss,
         file.string()},
        {});
    if (!a.ok || !b.ok) {
      state.SkipWithError("a child process failed");
      break;
    }
    state.SetIterationTime(a.seconds);
    ours += a.seconds;
    theirs += b.seconds;
    ours_rss = std::max(ours_rss, a.peak_rss_mb);
    for (size_t i = 0; i < 3 && 2 + 2 * i < a.numbers.size(); ++i) {
      phase_ms[i] += a.numbers[1 + 2 * i];
      phase_rss[i] = std::max(phase_rss[i], a.numbers[2 + 2 * i]);
    }
    theirs_rss = std::max(theirs_rss, b.peak_rss_mb);
  }
  std::filesystem::remove(file);
  const double n = static_cast<double>(state.iterations());
  const char* phases[3] = {"parse", "rewrite", "print"};
  for (int i = 0; i < 3; ++i) {
    state.counters[std::string(phases[i]) + "_ms"] = phase_ms[i] / n;
    state.counters[std::string(phases[i]) + "_rss_mb"] = phase_rss[i];
  }
  state.counters["python_ms"] = theirs * 1e3 / n;
  state.counters["time_ratio"] = theirs > 0 ? ours / theirs : 0;
  state.counters["rss_mb"] = ours_rss;
  state.counters["python_rss_mb"] = theirs_rss;
  state.counters["rss_ratio"] = theirs_rss > 0 ? ours_rss / theirs_rss : 0;
}
BENCHMARK(BM_FreshProcessVsPython)
    ->Arg(256)
    ->Arg(640)
    ->UseManualTime()
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace pipesplit
