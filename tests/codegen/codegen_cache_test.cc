// The kernel cache kernel by kernel: one entry per distinct kernel body, a changed kernel
// recompiled alone (compiler runs counted by a wrapper around the compiler), kernels that
// differ only in name sharing an entry, parallel compiles naming a failing kernel, and the
// progress reports of a build.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/codegen/kernel_test_util.h"

namespace pipesplit::codegen {
namespace {

namespace fs = std::filesystem;

// A kernel B = A * factor over 4 float32 elements, its input buffer named `input`.
std::string ScaleKernel(const std::string& name, const std::string& factor,
                        const std::string& input = "A") {
  return "    @T.prim_func\n    def " + name + "(" + input +
         ": T.Buffer((T.int64(4),), \"float32\"), B: T.Buffer((T.int64(4),), \"float32\")):\n"
         "        T.func_attr({\"tir.noalias\": T.bool(True)})\n"
         "        for i in range(T.int64(4)):\n"
         "            B[i] = " +
         input + "[i] * T.float32(" + factor + ")\n\n";
}

// A compiler that logs each run (one line: its arguments) and fails, with "boom" on standard
// error, to compile a source that names the buffer "Poison".
std::string CountingCompiler(const std::string& dir) {
  const std::string script = dir + "/counting-c++.sh";
  std::ofstream out(script);
  out << "#!/bin/sh\n"
      << "echo \"$*\" >> " << dir << "/runs.log\n"
      << "for last; do :; done\n"
      << "case \"$last\" in *.cc) if grep -q Poison \"$last\"; then echo \"boom: $last\" >&2; "
         "line=$(grep -n Poison \"$last\" | head -n 1 | cut -d: -f1); "
         "echo \"$last:$line:5: error: poisoned\" >&2; exit 3; fi;; esac\n"
      << "exec c++ \"$@\"\n";
  return "/bin/sh " + script;
}

// The compiler runs logged so far: compiles (with -c) and links.
struct Runs {
  int compiles = 0;
  int links = 0;
};
Runs CountRuns(const std::string& dir) {
  Runs runs;
  std::ifstream in(dir + "/runs.log");
  std::string line;
  while (std::getline(in, line)) {
    (line.find(" -c ") != std::string::npos ? runs.compiles : runs.links)++;
  }
  return runs;
}

int FilesWithExtension(const std::string& dir, const std::string& extension) {
  int n = 0;
  for (const auto& entry : fs::directory_iterator(dir)) n += entry.path().extension() == extension;
  return n;
}

std::vector<float> Scale(testing::KernelLibrary& library, const std::string& kernel) {
  std::vector<float> a = {1, 2, 3, 4}, b(4);
  std::vector<int64_t> shape = {4};
  PipesplitKernelArg x = testing::BufferArg(a, shape), y = testing::BufferArg(b, shape);
  EXPECT_EQ(library.Call(kernel, {x, y}), "") << kernel;
  return b;
}

TEST(CodegenCache, AChangedKernelIsTheOnlyOneCompiledAgain) {
  const std::string dir = testing::FreshDir("per_kernel");
  BuildOptions options;
  options.cache_dir = dir + "/cache";
  options.compiler = CountingCompiler(dir);
  options.jobs = 1;  // one process: one translation unit
  const std::string header = testing::kHeader;
  ir::IRModule first =
      script::ParseModule(header + ScaleKernel("scale_a", "2") + ScaleKernel("scale_b", "3") +
                              ScaleKernel("scale_c", "4"),
                          "first.py");
  BuildResult cold = Build(first, options);
  EXPECT_EQ(cold.kernels, 3);
  EXPECT_EQ(cold.distinct, 3);
  EXPECT_EQ(cold.compiled, 3);
  EXPECT_EQ(cold.compiler_runs, 2);
  EXPECT_FALSE(cold.cached);
  Runs runs = CountRuns(dir);
  EXPECT_EQ(runs.compiles, 1);
  EXPECT_EQ(runs.links, 1);
  EXPECT_EQ(FilesWithExtension(options.cache_dir, ".o"), 1);
  EXPECT_EQ(FilesWithExtension(options.cache_dir, ".unit"), 3);  // an index file per kernel

  // scale_b changed: one compile and one link.
  ir::IRModule second =
      script::ParseModule(header + ScaleKernel("scale_a", "2") + ScaleKernel("scale_b", "5") +
                              ScaleKernel("scale_c", "4"),
                          "second.py");
  BuildResult rebuilt = Build(second, options);
  EXPECT_EQ(rebuilt.compiled, 1);
  EXPECT_EQ(rebuilt.compiler_runs, 2);
  runs = CountRuns(dir);
  EXPECT_EQ(runs.compiles, 2);
  EXPECT_EQ(runs.links, 2);
  EXPECT_NE(rebuilt.library, cold.library);
  testing::KernelLibrary library(rebuilt.library);
  EXPECT_EQ(Scale(library, "scale_a"), (std::vector<float>{2, 4, 6, 8}));
  EXPECT_EQ(Scale(library, "scale_b"), (std::vector<float>{5, 10, 15, 20}));
  EXPECT_EQ(Scale(library, "scale_c"), (std::vector<float>{4, 8, 12, 16}));

  // The same module again: the library is in the cache, no compiler runs.
  BuildResult warm = Build(second, options);
  EXPECT_TRUE(warm.cached);
  EXPECT_EQ(warm.compiler_runs, 0);
  EXPECT_EQ(warm.library, rebuilt.library);
  EXPECT_EQ(CountRuns(dir).compiles + CountRuns(dir).links, 4);
  // The first module's library is still there.
  EXPECT_EQ(Build(first, options).library, cold.library);
  EXPECT_EQ(CountRuns(dir).links, 2);
  fs::remove_all(dir);
}

// Two builds at once may each compile a body into a unit of its own; a library that links both
// units takes one of the two copies (they were a duplicate symbol).
TEST(CodegenCache, ABodyInTwoUnitsIsLinkedOnce) {
  const std::string dir = testing::FreshDir("two_units");
  BuildOptions options;
  options.cache_dir = dir + "/cache";
  options.jobs = 1;
  const std::string header = testing::kHeader;
  BuildResult first =
      Build(script::ParseModule(header + ScaleKernel("k1", "2") + ScaleKernel("k2", "3"), "a.py"),
            options);
  EXPECT_EQ(first.compiled, 2);
  // k2's index is lost, as when another build's unit holds it: the next build compiles k2 again,
  // in a unit with k3. k2's index is the one that a build of k2 and k3 elsewhere also writes.
  ir::IRModule k2_k3 =
      script::ParseModule(header + ScaleKernel("k2", "3") + ScaleKernel("k3", "4"), "b.py");
  BuildOptions probe = options;
  probe.cache_dir = dir + "/probe";
  Build(k2_k3, probe);
  int removed = 0;
  for (const auto& entry : fs::directory_iterator(options.cache_dir)) {
    if (entry.path().extension() == ".unit" &&
        fs::exists(fs::path(probe.cache_dir) / entry.path().filename())) {
      fs::remove(entry.path());
      ++removed;
    }
  }
  ASSERT_EQ(removed, 1);
  BuildResult second = Build(k2_k3, options);
  EXPECT_EQ(second.compiled, 2);
  // All three kernels: k1 from the first unit, k2 and k3 from the second; the first unit holds
  // k2 too.
  BuildResult all = Build(script::ParseModule(header + ScaleKernel("k1", "2") +
                                                  ScaleKernel("k2", "3") + ScaleKernel("k3", "4"),
                                              "c.py"),
                          options);
  EXPECT_EQ(all.compiled, 0);
  testing::KernelLibrary library(all.library);
  EXPECT_EQ(Scale(library, "k1"), (std::vector<float>{2, 4, 6, 8}));
  EXPECT_EQ(Scale(library, "k2"), (std::vector<float>{3, 6, 9, 12}));
  EXPECT_EQ(Scale(library, "k3"), (std::vector<float>{4, 8, 12, 16}));
  fs::remove_all(dir);
}

TEST(CodegenCache, KernelsThatDifferOnlyInNameShareOneEntry) {
  const std::string dir = testing::FreshDir("shared_body");
  BuildOptions options;
  options.cache_dir = dir + "/cache";
  ir::IRModule mod = script::ParseModule(std::string(testing::kHeader) + ScaleKernel("twice", "2") +
                                             ScaleKernel("double_it", "2") +
                                             ScaleKernel("renamed_input", "2", "X"),
                                         "shared.py");
  BuildResult result = Build(mod, options);
  EXPECT_EQ(result.kernels, 3);
  // The renamed buffer is named in the kernel's messages: its body differs.
  EXPECT_EQ(result.distinct, 2);
  EXPECT_EQ(result.compiled, 2);
  EXPECT_EQ(FilesWithExtension(options.cache_dir, ".unit"), 2);
  testing::KernelLibrary library(result.library);
  for (const char* kernel : {"twice", "double_it", "renamed_input"}) {
    EXPECT_EQ(Scale(library, kernel), (std::vector<float>{2, 4, 6, 8})) << kernel;
  }
  // A failure inside a shared body names the kernel that was called.
  std::vector<float> a(3), b(4);
  std::vector<int64_t> short_shape = {3}, shape = {4};
  PipesplitKernelArg x = testing::BufferArg(a, short_shape), y = testing::BufferArg(b, shape);
  EXPECT_EQ(library.Call("double_it", {x, y}).rfind("double_it", 0), 0u)
      << library.Call("double_it", {x, y});
  EXPECT_EQ(library.Call("twice", {x, y}).rfind("twice", 0), 0u) << library.Call("twice", {x, y});
  fs::remove_all(dir);
}

TEST(CodegenCache, AFailingKernelIsNamedWithTheCompilersMessage) {
  const std::string dir = testing::FreshDir("failing_kernel");
  BuildOptions options;
  options.cache_dir = dir + "/cache";
  options.compiler = CountingCompiler(dir);
  options.jobs = 2;
  ir::IRModule mod =
      script::ParseModule(std::string(testing::kHeader) + ScaleKernel("good_a", "2") +
                              ScaleKernel("poisoned", "3", "Poison") + ScaleKernel("good_b", "4"),
                          "failing.py");
  try {
    Build(mod, options);
    FAIL() << "expected a CodegenError";
  } catch (const CodegenError& e) {
    const std::string message = e.what();
    EXPECT_EQ(
        message.rfind("compiling kernel 'poisoned' failed (/bin/sh exited with 3):\nboom: ", 0), 0u)
        << message;
    const size_t at = message.find("source kept at ");
    ASSERT_NE(at, std::string::npos) << message;
    EXPECT_TRUE(fs::exists(message.substr(at + 15))) << message;
  }
  // No library was linked, and no temp file is left behind.
  EXPECT_EQ(CountRuns(dir).links, 0);
  EXPECT_EQ(FilesWithExtension(options.cache_dir, ".so"), 0);
  for (const auto& entry : fs::directory_iterator(options.cache_dir)) {
    EXPECT_EQ(entry.path().string().find(".tmp-"), std::string::npos) << entry.path();
  }
  fs::remove_all(dir);
}

TEST(CodegenCache, AFailingKernelInAUnitOfSeveralIsNamedByTheLineOfTheError) {
  const std::string dir = testing::FreshDir("failing_unit");
  BuildOptions options;
  options.cache_dir = dir + "/cache";
  options.compiler = CountingCompiler(dir);
  options.jobs = 1;  // the three kernels in one unit
  ir::IRModule mod =
      script::ParseModule(std::string(testing::kHeader) + ScaleKernel("good_a", "2") +
                              ScaleKernel("poisoned", "3", "Poison") + ScaleKernel("good_b", "4"),
                          "failing.py");
  try {
    Build(mod, options);
    FAIL() << "expected a CodegenError";
  } catch (const CodegenError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("compiling kernel 'poisoned' failed (/bin/sh exited with 3):\n", 0), 0u)
        << message;
    EXPECT_NE(message.find(": error: poisoned"), std::string::npos) << message;
  }
  EXPECT_EQ(CountRuns(dir).compiles, 1);
  fs::remove_all(dir);
}

TEST(CodegenCache, ProgressCountsEveryCompiledKernelAndEndsFinished) {
  const std::string dir = testing::FreshDir("progress");
  BuildOptions options;
  options.cache_dir = dir + "/cache";
  options.jobs = 2;
  std::vector<BuildProgress> reports;
  options.progress = [&reports](const BuildProgress& p) { reports.push_back(p); };
  std::string text = testing::kHeader;
  for (int k = 0; k < 4; ++k) text += ScaleKernel("k" + std::to_string(k), std::to_string(k + 2));
  ir::IRModule mod = script::ParseModule(text, "progress.py");
  Build(mod, options);
  ASSERT_FALSE(reports.empty());
  int compiled = 0;
  bool linked = false;
  for (const BuildProgress& p : reports) {
    EXPECT_EQ(p.kernels, 4);
    EXPECT_EQ(p.to_compile, 4);
    EXPECT_GE(p.compiled, compiled);
    compiled = p.compiled;
    linked |= p.linking;
  }
  EXPECT_TRUE(linked);
  EXPECT_TRUE(reports.back().finished);
  EXPECT_EQ(reports.back().compiled, 4);
  EXPECT_EQ(reports.back().remaining_s, 0);
  // Two processes: two units.
  EXPECT_EQ(FilesWithExtension(options.cache_dir, ".o"), 2);
  // A build found in the cache reports nothing.
  reports.clear();
  EXPECT_TRUE(Build(mod, options).cached);
  EXPECT_TRUE(reports.empty());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pipesplit::codegen
