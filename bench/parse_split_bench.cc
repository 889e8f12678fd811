// Lexing and parsing in two pieces on two threads (ParseOptions::split_parse_min_bytes) against
// the serial parse, on the lowered Llama module (`pipesplit example llama-lowered --layers N
// --stages 8`): ParseModule in a warm process (BM_ParseSplitWarm/N/split), and parse + rewrite
// + print in a fresh process (BM_ParseSplitFreshProcess/N/split), where the memory of the
// parse is touched for the first time and creating the helper thread makes every later
// reference count update atomic.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/text.h"
#include "pipesplit/transform/pass.h"
#include "pipesplit/transform/pipeline_parallel_rewrite.h"

namespace pipesplit {
namespace {

script::ParseOptions Options(bool split) {
  script::ParseOptions options;
  options.split_parse_min_bytes = split ? 0 : -1;
  return options;
}

void BM_ParseSplitWarm(benchmark::State& state) {
  const std::string& text = bench::LegalizedLlamaText(static_cast<int>(state.range(0)));
  script::ParseOptions options = Options(state.range(1) != 0);
  for (auto _ : state) benchmark::DoNotOptimize(script::ParseModule(text, "model.py", options));
}
BENCHMARK(BM_ParseSplitWarm)->Args({640, 0})->Args({640, 1})->Unit(benchmark::kMillisecond);

// Child mode: PIPESPLIT_SPLIT_BENCH_CHILD=<0|1><path> parses (split or not), rewrites and
// prints the file, then exits before any benchmark runs.
[[maybe_unused]] const bool kChildRan = [] {
  const char* arg = std::getenv("PIPESPLIT_SPLIT_BENCH_CHILD");
  if (arg == nullptr || arg[0] == '\0') return false;
  std::string text, error;
  if (!ReadFile(arg + 1, &text, &error)) std::_Exit(1);
  ir::IRModule parsed = script::ParseModule(text, arg + 1, Options(arg[0] == '1'));
  std::string out = script::PrintModule(transform::RewritePipelineStages(parsed));
  std::printf("%f\n", bench::PeakRssMb());
  std::fflush(stdout);
  std::_Exit(out.empty() ? 1 : 0);
}();

void BM_ParseSplitFreshProcess(benchmark::State& state) {
  std::filesystem::path file = std::filesystem::temp_directory_path() /
                               ("pipesplit_split_bench_" + std::to_string(getpid()) + ".py");
  {
    std::ofstream out(file, std::ios::binary);
    out << bench::LegalizedLlamaText(static_cast<int>(state.range(0)));
    if (!out) return state.SkipWithError("cannot write the module to a temporary file");
  }
  std::vector<std::string> env{
      "PIPESPLIT_SPLIT_BENCH_CHILD=" + std::to_string(state.range(1) != 0) + file.string()};
  for (auto _ : state) {
    bench::ChildRun run = bench::RunChild({"/proc/self/exe"}, env);
    if (!run.ok) {
      state.SkipWithError("the child process failed");
      break;
    }
    state.SetIterationTime(run.seconds);
  }
  std::filesystem::remove(file);
}
BENCHMARK(BM_ParseSplitFreshProcess)
    ->Args({640, 0})
    ->Args({640, 1})
    ->UseManualTime()
    ->Iterations(15)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace pipesplit
