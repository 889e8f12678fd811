// Real-size speed: MLC's TinyLlama-1.1B-shaped modules of the 2026 corpus
// (../shared/corpus/mlc-llm-2026/tinyllama-q4f16_1 and tinyllama-q0f16: 22 layers, hidden 2048,
// FFN 5632, 32/4 heads, vocab 32000) on random weights of the right shapes and dtypes (the
// shards are too large to ship: the folder's mlc/ is copied to a temporary folder once and
// filled by ../shared/tools/random_mlc_weights.py, which needs Debian's python3-numpy).
//
// BM_TinyLlama/<case>: greedy generation, prompts of 64 random tokens, 32 new tokens each:
//  - prefill_tok/s: prompt tokens over the time to the last request's first token;
//  - decode_ms/step, decode_tok/s: from the first decode step to the last token;
//  - weight_GB and GB/s: the bytes of the weights one decode step reads (every record of
//    tensor-cache.json but the token embedding, of which a step reads one row per request)
//    over the decode step's time;
//  on 1 and 2 kernel threads, at batch 1 (MLC's memory-planned phase 5 module) and 8 (phase 4:
//  phase 5's storage is planned for the folder's max_batch_size of 4), and on 2 groups
//  (pipesplit's split of phase 4, 2 batches in flight) against one group, 16 requests of
//  64 + 32 tokens, 8 a batch.
// Beside them, llama.cpp 5b4ebc5 on the same machine kind and shape (../shared/spec/targets.md):
// q4_0 one thread 98-104 tokens/s prefill and 35.7-36.2 ms/token decode, two threads 176-182
// and 39-43; f16 24-30 and 117-128, two threads 53-57 and 51.
// PIPESPLIT_BENCH_QUICK=1 runs the first case only, with 8 new tokens.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
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

bool Quick() {
  const char* v = std::getenv("PIPESPLIT_BENCH_QUICK");
  return v != nullptr && std::string(v) != "0";
}

struct Case {
  const char* model;
  const char* module;
  int groups;
  int threads;
  int requests;
  int max_batch;
  int in_flight;
};
constexpr Case kCases[] = {
    {"tinyllama-q4f16_1", "debug-phase5.py", 1, 1, 1, 1, 1},
    {"tinyllama-q4f16_1", "debug-phase5.py", 1, 2, 1, 1, 1},
    {"tinyllama-q4f16_1", "debug-phase4.py", 1, 1, 8, 8, 1},
    {"tinyllama-q4f16_1", "debug-phase4.py", 1, 2, 8, 8, 1},
    {"tinyllama-q0f16", "debug-phase5.py", 1, 1, 1, 1, 1},
    {"tinyllama-q0f16", "debug-phase5.py", 1, 2, 1, 1, 1},
    {"tinyllama-q4f16_1", "debug-phase4.py", 1, 1, 16, 8, 1},
    {"tinyllama-q4f16_1", "debug-phase4.py", 2, 1, 16, 16, 2},
};

ir::IRModule Parse(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return script::ParseModule(text.str(), path.string());
}

// The model's folder with random weights, made once.
fs::path Folder(const std::string& model) {
  fs::path folder = fs::temp_directory_path() / "pipesplit_bench_models" / model;
  if (fs::exists(folder / "params_shard_0.bin")) return folder;
  fs::create_directories(folder);
  for (const auto& entry : fs::directory_iterator(Corpus() / model / "mlc")) {
    fs::copy_file(entry.path(), folder / entry.path().filename(),
                  fs::copy_options::overwrite_existing);
  }
  const std::string command = "/usr/bin/python3 " +
                              (Corpus() / "../../tools/random_mlc_weights.py").string() + " " +
                              folder.string() + " > /dev/null";
  if (std::system(command.c_str()) != 0) fs::remove(folder / "params_shard_0.bin");
  return folder;
}

// Bytes a decode step reads: every weight but the token embedding.
double DecodeWeightBytes(const fs::path& folder) {
  std::ifstream in(folder / "tensor-cache.json");
  const nlohmann::json index = nlohmann::json::parse(in);
  double bytes = 0;
  for (const auto& shard : index["records"]) {
    for (const auto& record : shard["records"]) {
      if (record["name"].get<std::string>().find("embed_tokens") == std::string::npos) {
        bytes += record["nbytes"].get<double>();
      }
    }
  }
  return bytes;
}

struct Loaded {
  ir::IRModule mod;
  std::shared_ptr<const runtime::KernelLibrary> kernels;
  std::unique_ptr<runtime::MlcWeights> weights;
  double weight_bytes = 0;
};

const Loaded* Load(const Case& c) {
  static std::map<std::string, std::unique_ptr<Loaded>> cache;
  const std::string key = std::string(c.model) + "/" + c.module + "/" + std::to_string(c.groups);
  std::unique_ptr<Loaded>& slot = cache[key];
  if (slot) return slot.get();
  const fs::path folder = Folder(c.model);
  if (!fs::exists(folder / "params_shard_0.bin")) return nullptr;
  slot = std::make_unique<Loaded>();
  const fs::path dump = Corpus() / c.model / "cpu-pp1";
  slot->mod = Parse(dump / c.module);
  if (slot->mod.Find(runtime::kMlcMetadataFunction) == nullptr) {
    // Phase 4 (no memory plan: phase 5's storage is planned for the folder's batch of 4).
    slot->mod = bench::MlcPhase4ForGroups(slot->mod, Parse(dump / "debug-phase5.py"), c.groups);
  }
  codegen::BuildOptions build;
  build.cache_dir = (fs::temp_directory_path() / "pipesplit_mlc_bench_kernels").string();
  slot->kernels = runtime::KernelLibrary::Load(codegen::Build(slot->mod, build).library);
  slot->weights = std::make_unique<runtime::MlcWeights>(
      runtime::MlcTensorCache::Open(folder.string()), *runtime::MlcParamsOfModule(slot->mod));
  slot->weight_bytes = DecodeWeightBytes(folder);
  return slot.get();
}

void BM_TinyLlama(benchmark::State& state) {
  const Case& c = kCases[state.range(0)];
  if (Quick() && state.range(0) != 0) {
    state.SkipWithError("PIPESPLIT_BENCH_QUICK: first case only");
    return;
  }
  if (!fs::exists(Corpus() / c.model / "cpu-pp1" / c.module)) {
    state.SkipWithError("../shared/corpus/mlc-llm-2026 is absent");
    return;
  }
  const Loaded* loaded = Load(c);
  if (loaded == nullptr) {
    state.SkipWithError("no random weights (random_mlc_weights.py needs python3-numpy)");
    return;
  }
  state.SetLabel(std::string(c.model) + " " + c.module + ", " + std::to_string(c.groups) +
                 " group(s) x " + std::to_string(c.threads) + " thread(s), " +
                 std::to_string(c.requests) + " request(s), batch " +
                 std::to_string(c.max_batch / c.in_flight) +
                 (c.in_flight > 1 ? ", 2 batches in flight" : ""));
  std::mt19937 rng(42);
  std::vector<std::vector<int32_t>> prompts(static_cast<size_t>(c.requests));
  for (auto& p : prompts) {
    for (int i = 0; i < 64; ++i) p.push_back(1 + static_cast<int32_t>(rng() % 31999));
  }
  serve::GenerateOptions options;
  options.engine.session.num_groups = c.groups;
  options.engine.session.threads_per_group = c.threads;
  options.engine.session.blas_threads_per_group = 1;
  options.engine.session.kernels = loaded->kernels;
  options.engine.batches_in_flight = c.in_flight;
  options.engine.max_batch_size = c.max_batch;
  options.max_new_tokens = Quick() ? 8 : 32;
  // A batch's prompts prefill in one step, so that its decode steps are decode only.
  options.engine.prefill_chunk_size = int64_t{64} * std::max(1, c.max_batch / c.in_flight);
  options.engine.kv_cache.max_total_tokens = 128 * static_cast<int64_t>(c.requests);
  options.engine.context_window_size = std::max<int64_t>(512, options.engine.prefill_chunk_size);
  double prefill = 0, step_ms = 0, decode_tps = 0, total_tps = 0;
  for (auto _ : state) {
    const serve::GenerateResult r = serve::Generate(*runtime::MakeThreadLauncher(), loaded->mod,
                                                    *loaded->weights, prompts, options);
    double first = 0;
    for (const auto& req : r.requests) first = std::max(first, req.first_token_seconds);
    prefill = 64.0 * c.requests / first;
    step_ms = 1e3 * r.decode_seconds / static_cast<double>(std::max<int64_t>(1, r.decode_steps));
    decode_tps = static_cast<double>(r.decode_tokens) / r.decode_seconds;
    total_tps = static_cast<double>(c.requests) * options.max_new_tokens / r.seconds;
    state.SetIterationTime(r.seconds);
  }
  state.counters["prefill_tok/s"] = prefill;
  state.counters["decode_ms/step"] = step_ms;
  state.counters["decode_tok/s"] = decode_tps;
  state.counters["generated_tok/s"] = total_tps;
  state.counters["weight_GB"] = loaded->weight_bytes / 1e9;
  if (c.groups == 1) state.counters["GB/s"] = loaded->weight_bytes / (step_ms * 1e-3) / 1e9;
}
BENCHMARK(BM_TinyLlama)
    ->DenseRange(0, std::size(kCases) - 1)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);

}  // namespace
}  // namespace pipesplit
