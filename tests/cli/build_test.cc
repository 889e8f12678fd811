// pipesplit build: compiles a module's kernels into a shared library, reuses the kernel cache,
// and reports a missing compiler or an unwritable output as a user error (exit 1).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "pipesplit/support/kernel_abi.h"
#include "tests/cli/cli_test_util.h"

namespace pipesplit::testing_cli {
namespace {

constexpr const char* kKernels = R"(# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def add(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32"), C: T.Buffer((T.int64(4),), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i in range(T.int64(4)):
            with T.block("C"):
                v_i = T.axis.spatial(T.int64(4), i)
                T.reads(A[v_i], B[v_i])
                T.writes(C[v_i])
                C[v_i] = A[v_i] + B[v_i]
)";

TEST(BuildTest, WritesALibraryWithTheModulesKernelsAndReusesTheCache) {
  auto dir = ScratchDir("build");
  WriteText(dir / "m.py", kKernels);
  std::string common = (dir / "m.py").string() + " --kernel-cache " + (dir / "cache").string();
  Result first = Pipesplit("build " + common + " -o " + (dir / "m.so").string());
  ASSERT_EQ(first.exit_code, 0) << first.output;
  void* handle = dlopen((dir / "m.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  auto names = reinterpret_cast<PipesplitKernelNamesFn>(dlsym(handle, "pipesplit_kernel_names"));
  ASSERT_NE(names, nullptr);
  EXPECT_STREQ(names(), "add");
  EXPECT_NE(dlsym(handle, "pipesplit_kernel_add"), nullptr);
  dlclose(handle);
  // The second build finds the library in the cache: the cache holds one library still.
  Result second = Pipesplit("build " + common + " -o " + (dir / "m2.so").string());
  ASSERT_EQ(second.exit_code, 0) << second.output;
  int libraries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "cache")) {
    libraries += entry.path().extension() == ".so";
  }
  EXPECT_EQ(libraries, 1);
}

TEST(BuildTest, AMissingCompilerIsAUserError) {
  auto dir = ScratchDir("build_no_compiler");
  WriteText(dir / "m.py", kKernels);
  Result r =
      Shell("env CXX=/nonexistent/c++ " + Binary() + " build " + (dir / "m.py").string() +
            " --kernel-cache " + (dir / "cache").string() + " -o " + (dir / "m.so").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("error: no C++ compiler found: install g++"), std::string::npos)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "m.so"));
}

TEST(BuildTest, AnUnwritableOutputIsAUserError) {
  auto dir = ScratchDir("build_unwritable");
  WriteText(dir / "m.py", kKernels);
  Result r = Pipesplit("build " + (dir / "m.py").string() + " --kernel-cache " +
                       (dir / "cache").string() + " -o " + (dir / "missing" / "m.so").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("error: cannot write '"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace pipesplit::testing_cli
