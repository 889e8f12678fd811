// Codegen build tests: the kernel cache, compiler errors, unsupported constructs, and the whole
// MLC deploy module compiling (with the cold and cached build times printed).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "tests/codegen/kernel_test_util.h"

namespace pipesplit::codegen {
namespace {

namespace fs = std::filesystem;

const std::string kCopy = std::string(testing::kHeader) + R"(    @T.prim_func
    def copy(A: T.Buffer((T.int64(4),), "bfloat16"), B: T.Buffer((T.int64(4),), "bfloat16")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i in range(T.int64(4)):
            B[i] = A[i] * T.bfloat16(2)
)";

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

TEST(CodegenBuild, SourceIsDeterministicAndCarriesTheAbi) {
  ir::IRModule mod = script::ParseModule(kCopy, "copy.py");
  std::string source = GenerateSource(mod, false);
  EXPECT_EQ(source, GenerateSource(script::ParseModule(kCopy, "copy.py"), false));
  EXPECT_NE(source.find("#define PIPESPLIT_KERNEL_ABI_VERSION"), std::string::npos);
  EXPECT_NE(source.find("extern \"C\" int32_t pipesplit_kernel_copy("), std::string::npos);
  // Without bounds checks, ps_chk is only defined, never called.
  const std::string definition = "inline int64_t ps_chk(";
  size_t defined_at = source.find(definition);
  ASSERT_NE(defined_at, std::string::npos);
  EXPECT_EQ(source.find("ps_chk(", defined_at + definition.size()), std::string::npos);
  EXPECT_NE(GenerateSource(mod, true), source);
}

TEST(CodegenBuild, SecondBuildIsACacheHit) {
  BuildOptions options;
  options.cache_dir = testing::FreshDir("cache_hit");
  auto start = std::chrono::steady_clock::now();
  std::string path = testing::Build(kCopy, options);
  double cold = Seconds(start);
  ASSERT_TRUE(fs::exists(path));
  EXPECT_EQ(fs::path(path).parent_path(), fs::path(options.cache_dir));
  auto mtime = fs::last_write_time(path);
  start = std::chrono::steady_clock::now();
  // A compiler that does not exist would fail if it were invoked: the hit never runs it...
  EXPECT_EQ(testing::Build(kCopy, options), path);
  double cached = Seconds(start);
  EXPECT_EQ(fs::last_write_time(path), mtime);
  EXPECT_LT(cached, 0.5);
  std::cout << "small module: cold build " << cold << " s, cached " << cached << " s\n";
  // ... and the library works.
  testing::KernelLibrary library(path);
  std::vector<uint16_t> a = {0x3f80, 0x4049, 0xbf81, 0x0000}, b(4);  // 1, 3.14, -1.0078, 0
  std::vector<int64_t> shape = {4};  // outlives the args that point at it
  PipesplitKernelArg x = testing::BufferArg(a, shape), y = testing::BufferArg(b, shape);
  x.dtype_code = y.dtype_code = 4;
  ASSERT_EQ(library.Call("copy", {x, y}), "");
  EXPECT_EQ(b, (std::vector<uint16_t>{0x4000, 0x40c9, 0xc001, 0x0000}));
  fs::remove_all(options.cache_dir);
}

TEST(CodegenBuild, AMissingCompilerSaysWhatToInstall) {
  BuildOptions options;
  options.cache_dir = testing::FreshDir("no_compiler");
  options.compiler = "/nonexistent/c++";
  try {
    testing::Build(kCopy, options);
    FAIL() << "expected a CodegenError";
  } catch (const CodegenError& e) {
    EXPECT_EQ(std::string(e.what()),
              "no C++ compiler found: install g++ (apt-get install g++) or set CXX (tried "
              "'/nonexistent/c++')");
  }
  fs::remove_all(options.cache_dir);
}

TEST(CodegenBuild, ACompileFailureShowsTheCompilerOutputAndKeepsTheSource) {
  BuildOptions options;
  options.cache_dir = testing::FreshDir("compile_failure");
  options.compiler = "false";  // a "compiler" that always fails
  try {
    testing::Build(kCopy, options);
    FAIL() << "expected a CodegenError";
  } catch (const CodegenError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("compiling kernel 'copy' failed ("), std::string::npos) << message;
    size_t at = message.find("source kept at ");
    ASSERT_NE(at, std::string::npos) << message;
    EXPECT_TRUE(fs::exists(message.substr(at + 15))) << message;
  }
  fs::remove_all(options.cache_dir);
}

// A kernel codegen cannot translate does not fail the build (MLC modules carry GPU kernels a
// CPU run never calls): the build lists it, and a call of it fails naming the construct.
TEST(CodegenBuild, AnUnsupportedConstructNamesItAndTheKernel) {
  std::string text = std::string(testing::kHeader) + R"(    @T.prim_func
    def tiles(A: T.Buffer((T.int64(16),), "float32"), B: T.Buffer((T.int64(16),), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i in range(T.int64(4)):
            with T.block("tile"):
                v_i = T.axis.spatial(T.int64(4), i)
                T.reads(A[v_i * T.int64(4):v_i * T.int64(4) + T.int64(4)])
                T.writes(B[v_i * T.int64(4)])
                S = T.match_buffer(A[v_i * T.int64(4):v_i * T.int64(4) + T.int64(4)], (T.int64(4),))
                B[v_i * T.int64(4)] = S[T.int64(0)] + S[T.int64(3)]
)";
  const std::string why =
      "kernel tiles: codegen does not support T.match_buffer inside block 'tile'";
  BuildOptions options;
  options.cache_dir = testing::SharedCacheDir();
  const BuildResult result = codegen::Build(script::ParseModule(text, "tiles.py"), options);
  EXPECT_EQ(result.uncompiled, std::vector<std::string>{why});
  testing::KernelLibrary library(result.library);
  std::vector<float> a(16, 1.0f), b(16, 0.0f);
  EXPECT_EQ(library.Call("tiles", {testing::BufferArg(a, {16}), testing::BufferArg(b, {16})}),
            "cannot run: " + why);
}

TEST(CodegenBuild, EveryKernelOfTheMlcDeployModuleCompiles) {
  fs::path file = fs::path(PIPESPLIT_SOURCE_DIR) /
                  "../shared/corpus/mlc-llm-2023/6b.split_transform_deploy.deploy.py";
  if (!fs::exists(file)) GTEST_SKIP() << "corpus not found: " << file;
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  ir::IRModule mod = script::ParseModule(text.str(), file.string());
  for (bool check_bounds : {false, true}) {
    BuildOptions options;
    options.cache_dir = testing::FreshDir(check_bounds ? "mlc_checked" : "mlc");
    options.check_bounds = check_bounds;
    auto start = std::chrono::steady_clock::now();
    std::string source = GenerateSource(mod, check_bounds);
    double generate = Seconds(start);
    start = std::chrono::steady_clock::now();
    std::string path = BuildKernelLibrary(mod, options);
    double cold = Seconds(start);
    start = std::chrono::steady_clock::now();
    EXPECT_EQ(BuildKernelLibrary(mod, options), path);
    double cached = Seconds(start);
    testing::KernelLibrary library(path);
    auto names = reinterpret_cast<PipesplitKernelNamesFn>(library.Symbol("pipesplit_kernel_names"));
    ASSERT_NE(names, nullptr);
    int kernels = 0;
    for (const ir::IRModule::Member& m : mod.members()) {
      if (ir::As<ir::PrimFuncNode>(m.func) == nullptr) continue;
      ++kernels;
      EXPECT_NE(library.Symbol(PIPESPLIT_KERNEL_SYMBOL_PREFIX + m.gvar->name_hint()), nullptr)
          << m.gvar->name_hint();
    }
    std::cout << "6b deploy module" << (check_bounds ? " (bounds checked)" : "") << ": " << kernels
              << " kernels, " << source.size() << " bytes of source; generate " << generate
              << " s, cold build " << cold << " s, cached " << cached << " s\n";
    fs::remove_all(options.cache_dir);
  }
}

}  // namespace
}  // namespace pipesplit::codegen
