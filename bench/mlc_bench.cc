// MLC-LLM's own CPU modules of the 2026 corpus (../shared/corpus/mlc-llm-2026, skipped when
// absent) on their MLC folders' weights, beside TVM's figures in the spec's targets (one core:
// llama-q0f32 prefills a 64-token prompt at about 380 tokens/s and decodes at 2.9 ms/token,
// llama-q4f16_1 at 74 tokens/s and 9.0 ms/token). One request of 64 prompt tokens and 32 new
// tokens, greedy, one kernel thread per group: prefill tokens/s (64 over the time to the first
// token), decode ms/token, on 1 group and on 2 (MLC's own 2-stage build where MLC has one).
// (BM_MlcGenerate/2 and /4: pipesplit cuts the one-stage module, which MLC cannot do for
// q4f16_1.) BM_MlcColdBuild compiles each module's kernels into an empty cache (2 compiler
// processes).
#include <benchmark/benchmark.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "bench/bench_util.h"
#include "pipesplit/codegen/codegen.h"
#include "pipesplit/runtime/io/mlc_folder.h"
#include "pipesplit/runtime/io/mlc_params.h"
#include "pipesplit/runtime/launch/launch.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/serve/engine/generate.h"
#include "pipesplit/transform/pass.h"

namespace pipesplit {
namespace {

namespace fs = std::filesystem;

fs::path Corpus() { return fs::path(PIPESPLIT_SOURCE_DIR) / "../shared/corpus/mlc-llm-2026"; }

// A module of the corpus run on `groups` groups; a phase 4 module is cut into that many stages
// by auto-pipeline-stages and split (pipesplit's own split), its weights named by phase 5.
struct Case {
  const char* model;
  const char* module;
  int groups;
};
constexpr Case kCases[] = {
    {"llama-q0f32", "cpu-pp1/debug-phase5.py", 1},
    {"llama-q0f32", "cpu-pp2/debug-phase5.py", 2},
    {"llama-q0f32", "cpu-pp1/debug-phase4.py", 2},
    {"llama-q4f16_1", "cpu-pp1/debug-phase5.py", 1},
    {"llama-q4f16_1", "cpu-pp1/debug-phase4.py", 2},
};

struct Loaded {
  ir::IRModule mod;
  std::shared_ptr<const runtime::KernelLibrary> kernels;
  std::unique_ptr<runtime::MlcWeights> weights;
};

ir::IRModule Parse(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return script::ParseModule(text.str(), path.string());
}

// The module, its kernels (built once into the bench's cache) and its folder's weights.
const Loaded& Load(const Case& c) {
  static std::map<std::string, std::unique_ptr<Loaded>> cache;
  const std::string key = std::string(c.model) + "/" + c.module;
  std::unique_ptr<Loaded>& slot = cache[key];
  if (!slot) {
    slot = std::make_unique<Loaded>();
    slot->mod = Parse(Corpus() / c.model / c.module);
    const ir::IRModule::Member* metadata = slot->mod.Find(runtime::kMlcMetadataFunction);
    if (metadata == nullptr) {  // phase 4: cut, split, and named by phase 5's _metadata
      slot->mod = bench::MlcPhase4ForGroups(
          slot->mod, Parse(Corpus() / c.model / "cpu-pp1/debug-phase5.py"), c.groups);
    }
    codegen::BuildOptions build;
    build.cache_dir = (fs::temp_directory_path() / "pipesplit_mlc_bench_kernels").string();
    slot->kernels = runtime::KernelLibrary::Load(codegen::Build(slot->mod, build).library);
    slot->weights = std::make_unique<runtime::MlcWeights>(
        runtime::MlcTensorCache::Open((Corpus() / c.model / "mlc").string()),
        *runtime::MlcParamsOfModule(slot->mod));
  }
  return *slot;
}

void BM_MlcGenerate(benchmark::State& state) {
  const Case& c = kCases[state.range(0)];
  if (!fs::exists(Corpus() / c.model / c.module)) {
    state.SkipWithError("../shared/corpus/mlc-llm-2026 is absent");
    return;
  }
  state.SetLabel(std::string(c.model) + " " + c.module + " on " + std::to_string(c.groups) +
                 (c.groups == 1 ? " group" : " groups"));
  const Loaded& loaded = Load(c);
  std::vector<std::vector<int32_t>> prompts(1);
  for (int i = 0; i < 64; ++i) prompts[0].push_back(1 + (i * 37) % 500);
  serve::GenerateOptions options;
  options.engine.session.num_groups = c.groups;
  options.engine.session.threads_per_group = 1;
  options.engine.session.blas_threads_per_group = 1;
  options.engine.session.kernels = loaded.kernels;
  options.max_new_tokens = 32;
  options.engine.kv_cache.max_total_tokens = 256;
  options.engine.prefill_chunk_size = 64;
  double prefill = 0;
  double decode_ms = 0;
  for (auto _ : state) {
    serve::GenerateResult r = serve::Generate(*runtime::MakeThreadLauncher(), loaded.mod,
                                              *loaded.weights, prompts, options);
    prefill = 64.0 / r.requests[0].first_token_seconds;
    decode_ms = 1e3 * r.decode_seconds / static_cast<double>(r.decode_tokens);
    state.SetIterationTime(r.seconds);
  }
  state.counters["prefill_tok/s"] = prefill;
  state.counters["decode_ms/tok"] = decode_ms;
}
BENCHMARK(BM_MlcGenerate)
    ->DenseRange(0, std::size(kCases) - 1)
    ->Iterations(3)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

void BM_MlcColdBuild(benchmark::State& state) {
  const Case& c = kCases[state.range(0)];
  if (!fs::exists(Corpus() / c.model / c.module)) {
    state.SkipWithError("../shared/corpus/mlc-llm-2026 is absent");
    return;
  }
  state.SetLabel(std::string(c.model) + " " + c.module);
  const ir::IRModule mod = Parse(Corpus() / c.model / c.module);
  int compiled = 0;
  for (auto _ : state) {
    const fs::path dir = fs::temp_directory_path() / "pipesplit_mlc_bench_cold";
    fs::remove_all(dir);
    codegen::BuildOptions build;
    build.cache_dir = dir.string();
    build.jobs = 2;
    compiled = codegen::Build(mod, build).compiled;
    fs::remove_all(dir);
  }
  state.counters["kernels_compiled"] = compiled;
}
BENCHMARK(BM_MlcColdBuild)->Arg(0)->Arg(3)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace
}  // namespace pipesplit
