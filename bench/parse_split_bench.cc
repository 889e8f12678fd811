// Lexing and parsing in two pieces on two threads (ParseOptions::split_parse_min_bytes) against
// the serial parse, on the lowered Llama module (`pipesplit example llama-lowered --layers N
// --stages 8`): ParseModule in a warm process (BM_ParseSplitWarm/N/split), and parse + rewrite
// + print in a fresh process (BM_ParseSplitFreshProcess/N/split), where the memory of the
// parse is touched for the first time and creating the helper thread makes every later
// reference count update atomic.
#include <benchmark/benchmark.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "pipesplit/script/parser.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/text.h"
#include "pipesplit/transform/pass.h"
#include "pipesplit/transform/pipeline_parallel_rewrite.h"
#include "src/cli/models/llama_example.h"

extern char** environ;

namespace pipesplit {
namespace {

const std::string& LegalizedText(int layers) {
  static std::map<int, std::string> cache;
  auto it = cache.find(layers);
  if (it != cache.end()) return it->second;
  models::LlamaConfig config;
  config.layers = layers;
  config.stages = 8;
  ir::IRModule mod = script::ParseModule(models::GenerateLlamaExample(config).module_text, "l");
  transform::PassContext ctx;
  mod = transform::ParsePipeline("legalize-ops")->Run(mod, ctx);
  return cache[layers] = script::PrintModule(mod);
}

script::ParseOptions Options(bool split) {
  script::ParseOptions options;
  options.split_parse_min_bytes = split ? 0 : -1;
  return options;
}

void BM_ParseSplitWarm(benchmark::State& state) {
  const std::string& text = LegalizedText(static_cast<int>(state.range(0)));
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
  std::_Exit(out.empty() ? 1 : 0);
}();

void BM_ParseSplitFreshProcess(benchmark::State& state) {
  std::filesystem::path file = std::filesystem::temp_directory_path() /
                               ("pipesplit_split_bench_" + std::to_string(getpid()) + ".py");
  {
    std::ofstream out(file, std::ios::binary);
    out << LegalizedText(static_cast<int>(state.range(0)));
    if (!out) return state.SkipWithError("cannot write the module to a temporary file");
  }
  std::string arg =
      "PIPESPLIT_SPLIT_BENCH_CHILD=" + std::to_string(state.range(1) != 0) + file.string();
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e) envp.push_back(*e);
  envp.push_back(arg.data());
  envp.push_back(nullptr);
  std::string self = "/proc/self/exe";
  char* argv[] = {self.data(), nullptr};
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    pid_t pid;
    int status = 0;
    if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv, envp.data()) != 0 ||
        waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      state.SkipWithError("the child process failed");
      break;
    }
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
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
