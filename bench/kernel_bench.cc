// Kernel benchmarks: codegen + compile time of a module's kernel library, cold (empty cache)
// and cached, for a small module and the 6b MLC deploy dump (skipped without the shared
// corpus), and the 6b cold build kernel by kernel beside the whole module in one compile; the
// 512x512x512 float32 matmul kernel as LegalizeOps writes it, in GFLOPS, with the loop
// optimizations off (the written order) and on, on 1 and 2 threads, next to OpenBLAS cblas_sgemm on
// one thread; the example Llama forward high-level and lowered.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "pipesplit/codegen/codegen.h"
#include "pipesplit/models/llama.h"
#include "pipesplit/runtime/exec/session.h"
#include "pipesplit/runtime/kernels/create.h"
#include "pipesplit/runtime/kernels/kernel_library.h"
#include "pipesplit/runtime/kernels/threading.h"
#include "pipesplit/runtime/launch/launch.h"
#include "pipesplit/runtime/tensor/half.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/transform/pass.h"
#include "src/runtime/kernels/blas.h"

namespace pipesplit {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kN = 512;

const char* const kHeader =
    "# from tvm.script import ir as I\n"
    "# from tvm.script import tir as T\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n";

// The matmul of LegalizeOps (R.matmul on 2-D operands of `dtype`).
std::string MatmulModule(const std::string& dtype = "float32") {
  const std::string n = "T.int64(" + std::to_string(kN) + ")";
  const std::string shape = "T.Buffer((" + n + ", " + n + "), \"" + dtype + "\")";
  return std::string(kHeader) + "    @T.prim_func\n" + "    def matmul(A: " + shape +
         ", B: " + shape + ", matmul: " + shape + "):\n" +
         "        T.func_attr({\"tir.noalias\": T.bool(True)})\n" +
         "        for i0, i1, k in T.grid(" + n + ", " + n + ", " + n + "):\n" +
         "            with T.block(\"matmul\"):\n" +
         "                v_i0, v_i1, v_k = T.axis.remap(\"SSR\", [i0, i1, k])\n" +
         "                T.reads(A[v_i0, v_k], B[v_k, v_i1])\n" +
         "                T.writes(matmul[v_i0, v_i1])\n" + "                with T.init():\n" +
         "                    matmul[v_i0, v_i1] = T." + dtype + "(0)\n" +
         "                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + A[v_i0, v_k] * B[v_k, " +
         "v_i1]\n";
}

// A small module: an elementwise add, a row sum and a float16 cast.
std::string SmallModule() {
  return std::string(kHeader) + R"(    @T.prim_func
    def add(A: T.Buffer((T.int64(64), T.int64(64)), "float32"), B: T.Buffer((T.int64(64), T.int64(64)), "float32"), C: T.Buffer((T.int64(64), T.int64(64)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, j in T.grid(T.int64(64), T.int64(64)):
            with T.block("C"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                C[v_i, v_j] = A[v_i, v_j] + B[v_i, v_j]

    @T.prim_func
    def rowsum(A: T.Buffer((T.int64(64), T.int64(64)), "float32"), S: T.Buffer((T.int64(64),), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, k in T.grid(T.int64(64), T.int64(64)):
            with T.block("S"):
                v_i, v_k = T.axis.remap("SR", [i, k])
                with T.init():
                    S[v_i] = T.float32(0)
                S[v_i] = S[v_i] + A[v_i, v_k]

    @T.prim_func
    def to_half(A: T.Buffer((T.int64(64),), "float32"), H: T.Buffer((T.int64(64),), "float16")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i in range(T.int64(64)):
            with T.block("H"):
                v_i = T.axis.spatial(T.int64(64), i)
                H[v_i] = T.Cast("float16", A[v_i])
)";
}

const ir::IRModule* CorpusModule() {
  static const ir::IRModule* mod = []() -> const ir::IRModule* {
    fs::path file = fs::path(PIPESPLIT_SOURCE_DIR) /
                    "../shared/corpus/mlc-llm-2023/6b.split_transform_deploy.deploy.py";
    if (!fs::exists(file)) return nullptr;
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return new ir::IRModule(script::ParseModule(text.str(), file.string()));
  }();
  return mod;
}

std::string BenchDir(const std::string& name) {
  return (fs::temp_directory_path() /
          ("pipesplit_kernel_bench_" + name + "_" + std::to_string(::getpid())))
      .string();
}

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Codegen + compile of a module; arg 0: cold (a fresh cache each iteration), 1: cached.
void BuildModule(benchmark::State& state, const ir::IRModule& mod, const std::string& name) {
  const bool cached = state.range(0) == 1;
  codegen::BuildOptions options;
  options.cache_dir = BenchDir(name);
  fs::remove_all(options.cache_dir);
  if (cached) codegen::BuildKernelLibrary(mod, options);
  double generate = 0;
  for (auto _ : state) {
    if (!cached) {
      state.PauseTiming();
      fs::remove_all(options.cache_dir);
      state.ResumeTiming();
    }
    auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(codegen::GenerateSource(mod, false));
    generate += Seconds(start);
    benchmark::DoNotOptimize(codegen::BuildKernelLibrary(mod, options));
  }
  fs::remove_all(options.cache_dir);
  state.counters["codegen_s"] = generate / static_cast<double>(state.iterations());
  state.SetLabel(cached ? "cached" : "cold");
}

void BM_BuildSmallModule(benchmark::State& state) {
  static const ir::IRModule mod = script::ParseModule(SmallModule(), "small.py");
  BuildModule(state, mod, "small");
}
BENCHMARK(BM_BuildSmallModule)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_Build6bDeployModule(benchmark::State& state) {
  const ir::IRModule* mod = CorpusModule();
  if (mod == nullptr) {
    state.SkipWithError("shared corpus not found");
    return;
  }
  BuildModule(state, *mod, "6b");
}
BENCHMARK(BM_Build6bDeployModule)
    ->Arg(0)
    ->Arg(1)
    ->Iterations(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The 6b deploy module's cold build side by side, each into an empty cache:
// - today_s: the whole module as one translation unit compiled by one process, with the float16
//   conversions inlined whole (the build and the prelude before kernel-by-kernel builds);
// - whole_s: the same with the prelude as it is (the NaN path of the conversions out of line);
// - per_kernel_s: the build, in units on `jobs` processes (the arg; 0: the cores).
void BM_Build6bColdSideBySide(benchmark::State& state) {
  const ir::IRModule* mod = CorpusModule();
  if (mod == nullptr) {
    state.SkipWithError("shared corpus not found");
    return;
  }
  const std::string dir = BenchDir("6b_side_by_side");
  const char* cxx = std::getenv("CXX");
  auto whole_command = [&](const std::string& defines) {
    return std::string(cxx != nullptr && *cxx != '\0' ? cxx : "c++") + defines +
           " -std=c++17 -O2 -march=native -fPIC -shared -ffp-contract=off -fno-fast-math -o " +
           dir + "/whole.so " + dir + "/whole.cc";
  };
  double today_s = 0, whole_s = 0, per_kernel_s = 0;
  codegen::BuildResult result;
  for (auto _ : state) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (bool today : {true, false}) {
      auto start = std::chrono::steady_clock::now();
      std::ofstream(dir + "/whole.cc") << codegen::GenerateSource(*mod, false);
      if (std::system(whole_command(today ? " -DPS_F16_PORTABLE=inline" : "").c_str()) != 0) {
        state.SkipWithError("compiling the whole module failed");
        return;
      }
      (today ? today_s : whole_s) += Seconds(start);
    }
    codegen::BuildOptions options;
    options.cache_dir = dir + "/cache";
    options.jobs = static_cast<int>(state.range(0));
    auto start = std::chrono::steady_clock::now();
    result = codegen::Build(*mod, options);
    per_kernel_s += Seconds(start);
  }
  fs::remove_all(dir);
  const double n = static_cast<double>(state.iterations());
  state.counters["today_s"] = today_s / n;
  state.counters["whole_s"] = whole_s / n;
  state.counters["per_kernel_s"] = per_kernel_s / n;
  state.counters["vs_today"] = per_kernel_s / today_s;
  state.counters["vs_whole"] = per_kernel_s / whole_s;
  state.counters["kernels"] = result.kernels;
  state.counters["distinct"] = result.distinct;
  state.counters["compiler_runs"] = result.compiler_runs;
}
BENCHMARK(BM_Build6bColdSideBySide)->Arg(0)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

std::vector<float> RandomMatrix(uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> m(kN * kN);
  for (float& x : m) x = dist(gen);
  return m;
}

void SetGflops(benchmark::State& state) {
  state.counters["GFLOPS"] = benchmark::Counter(2.0 * kN * kN * kN * 1e-9 * state.iterations(),
                                                benchmark::Counter::kIsRate);
}

// Runs the matmul kernel of `library` on square matrices `a` and `b` of float32 or float16 (bits)
// elements on `threads` threads, and reports GFLOPS.
template <class T>
void RunMatmul(benchmark::State& state, const runtime::KernelLibrary& library, std::vector<T> a,
               std::vector<T> b, int threads) {
  const int threads_before = runtime::GetNumThreads();
  runtime::SetNumThreads(threads);
  std::vector<T> c(kN * kN);
  const std::vector<int64_t> shape = {kN, kN};
  auto arg = [&](std::vector<T>& data) {
    PipesplitKernelArg x{};
    x.data = data.data();
    x.shape = shape.data();
    x.ndim = 2;
    x.dtype_code = 2;
    x.dtype_bits = static_cast<uint8_t>(sizeof(T) * 8);
    x.lanes = 1;
    return x;
  };
  std::vector<PipesplitKernelArg> args = {arg(a), arg(b), arg(c)};
  for (auto _ : state) {
    library.Call("matmul", std::span<const PipesplitKernelArg>(args));
    benchmark::DoNotOptimize(c.data());
  }
  runtime::SetNumThreads(threads_before);
  SetGflops(state);
}

// The LegalizeOps matmul kernel; arg 0: loop optimizations (0 off, 1 on), arg 1: threads.
void BM_MatmulKernel512(benchmark::State& state) {
  static const ir::IRModule mod = script::ParseModule(MatmulModule(), "matmul.py");
  codegen::BuildOptions options;
  options.cache_dir = BenchDir("matmul");
  options.optimize_loops = state.range(0) == 1;
  auto library = runtime::KernelLibrary::Load(codegen::BuildKernelLibrary(mod, options));
  fs::remove_all(options.cache_dir);  // the library stays mapped
  RunMatmul(state, *library, RandomMatrix(1), RandomMatrix(2), static_cast<int>(state.range(1)));
  state.SetLabel(std::string(options.optimize_loops ? "optimized" : "written order") + ", " +
                 std::to_string(state.range(1)) + " thread(s)");
}
BENCHMARK(BM_MatmulKernel512)
    ->Args({0, 1})
    ->Args({1, 1})
    ->Args({1, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The same matmul on float16 operands (every product and sum rounded to float16), optimized.
void BM_MatmulKernel512Half(benchmark::State& state) {
  static const ir::IRModule mod = script::ParseModule(MatmulModule("float16"), "matmul_f16.py");
  codegen::BuildOptions options;
  options.cache_dir = BenchDir("matmul_f16");
  auto library = runtime::KernelLibrary::Load(codegen::BuildKernelLibrary(mod, options));
  fs::remove_all(options.cache_dir);
  auto half = [](const std::vector<float>& m) {
    std::vector<uint16_t> h(m.size());
    for (size_t i = 0; i < m.size(); ++i) h[i] = runtime::FloatToHalfBits(m[i]);
    return h;
  };
  RunMatmul(state, *library, half(RandomMatrix(1)), half(RandomMatrix(2)), 1);
  state.SetLabel("float16, optimized, 1 thread");
}
BENCHMARK(BM_MatmulKernel512Half)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_CblasSgemm512(benchmark::State& state) {
  const runtime::blas::Api& blas = runtime::blas::Get();  // the library the runtime opens
  if (blas.set_num_threads != nullptr) blas.set_num_threads(1);
  std::vector<float> a = RandomMatrix(1), b = RandomMatrix(2), c(kN * kN);
  for (auto _ : state) {
    blas.sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kN, kN, kN, 1.0f, a.data(), kN, b.data(),
               kN, 0.0f, c.data(), kN);
    benchmark::DoNotOptimize(c.data());
  }
  SetGflops(state);
  state.SetLabel("OpenBLAS, 1 thread");
}
BENCHMARK(BM_CblasSgemm512)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace pipesplit

namespace pipesplit {
namespace {

// The example Llama's forward, high-level (reference kernels, OpenBLAS matmul) and lowered by
// legalize-ops (every op a compiled TIR kernel), on one group: arg 0 the small size, 1 the
// target size of shared/spec/targets.md (8 layers, hidden 512, seq 128). The issue's goal is
// lowered <= 3x high-level; the two appear side by side in the output.
struct LlamaForward {
  ir::IRModule mod;
  std::vector<runtime::Tensor> weights;
  std::vector<runtime::Value> inputs;
  std::shared_ptr<const runtime::KernelLibrary> kernels;
};

LlamaForward MakeLlamaForward(bool lowered, bool target) {
  models::LlamaConfig c;
  c.layers = target ? 8 : 2;
  c.hidden = target ? 512 : 128;
  c.heads = target ? 8 : 4;
  c.ffn = c.hidden * 4;
  c.vocab = 1024;
  c.seq = target ? 128 : 32;
  c.stages = 1;
  models::LlamaExample ex = models::GenerateLlamaExample(c);
  LlamaForward f;
  f.mod = script::ParseModule(ex.module_text, "llama.py");
  if (lowered) {
    transform::PassContext ctx;
    f.mod = transform::ParsePipeline("legalize-ops")->Run(f.mod, ctx);
    codegen::BuildOptions options;
    options.cache_dir = BenchDir("forward");
    f.kernels = runtime::KernelLibrary::Load(codegen::BuildKernelLibrary(f.mod, options));
  }
  for (auto& [name, t] : ex.weights) f.weights.push_back(t);
  for (auto& [name, t] : ex.inputs) f.inputs.emplace_back(t);
  return f;
}

void LlamaForwardBench(benchmark::State& state, bool lowered) {
  static std::map<std::pair<bool, bool>, LlamaForward> cache;
  const bool target = state.range(0) == 1;
  auto key = std::make_pair(lowered, target);
  if (!cache.count(key)) cache.emplace(key, MakeLlamaForward(lowered, target));
  const LlamaForward& f = cache.at(key);
  runtime::InMemoryWeights weights(f.weights);
  runtime::SessionOptions options;
  options.kernels = f.kernels;
  for (auto _ : state) {
    benchmark::DoNotOptimize(runtime::RunThreads(f.mod, "main", f.inputs, weights, options));
  }
  state.SetLabel(std::string(lowered ? "lowered" : "high-level") +
                 (target ? ", 8x512" : ", 2x128"));
}

void BM_LlamaForwardHighLevel(benchmark::State& state) { LlamaForwardBench(state, false); }
void BM_LlamaForwardLowered(benchmark::State& state) { LlamaForwardBench(state, true); }
BENCHMARK(BM_LlamaForwardHighLevel)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_LlamaForwardLowered)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace pipesplit
