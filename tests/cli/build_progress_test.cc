// The progress line of a kernel build as a user sees it: on a terminal (a pseudo-terminal here)
// one line updated in place; nothing in a pipe unless --progress; nothing with --quiet.
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "tests/cli/cli_test_util.h"

namespace pipesplit::testing_cli {
namespace {

// Three kernels: with --jobs 3, three translation units, so that a slow compiler makes the build
// last more than a second.
std::string ThreeKernels() {
  std::string text =
      "# from tvm.script import ir as I\n# from tvm.script import tir as T\n\n@I.ir_module\n"
      "class Module:\n";
  for (const char* name : {"a", "b", "c"}) {
    text += std::string("    @T.prim_func\n    def scale_") + name +
            "(A: T.Buffer((T.int64(4),), \"float32\"), B: T.Buffer((T.int64(4),), "
            "\"float32\")):\n        for i in range(T.int64(4)):\n            B[i] = A[i] * "
            "T.float32(" +
            std::to_string(name[0] - 'a' + 2) + ")\n\n";
  }
  return text;
}

// A compiler that takes 0.6 s more per run, and 0.8 s more for each of the (up to 3) runs
// started before it: runs take numbers with mkdir (atomic), so that units compiled at once
// finish one at a time even on a loaded machine, and every count shows.
std::string SlowCompiler(const std::filesystem::path& dir) {
  const std::string runs = (dir / "compiler-runs").string();
  WriteText(dir / "slow-c++.sh", "#!/bin/sh\nmkdir -p '" + runs + "'\ni=0\nwhile ! mkdir '" + runs +
                                     "'/$i 2>/dev/null; do i=$((i + 1)); done\n"
                                     "t=$((6 + 8 * (i % 4)))\nsleep $((t / 10)).$((t % 10))\n"
                                     "exec c++ \"$@\"\n");
  return "/bin/sh " + (dir / "slow-c++.sh").string();
}

// Runs `command` with a pseudo-terminal as its standard input, output and error.
Result RunInTerminal(const std::string& command, int seconds = 120) {
  Result result;
  int master = -1;
  pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  if (pid < 0) return result;
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  char buffer[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd fd{master, POLLIN, 0};
    if (poll(&fd, 1, 100) <= 0) continue;
    ssize_t n = read(master, buffer, sizeof(buffer));
    if (n <= 0) break;  // EIO: the child and its terminal are gone
    result.output.append(buffer, static_cast<size_t>(n));
  }
  int status = 0;
  if (std::chrono::steady_clock::now() >= deadline) kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  close(master);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::string BuildCommand(const std::filesystem::path& dir, const std::string& cache,
                         const std::string& flags) {
  return "env CXX='" + SlowCompiler(dir) + "' " + Binary() + " build " + (dir / "m.py").string() +
         " --kernel-cache " + (dir / cache).string() + " -o " + (dir / "m.so").string() +
         " --jobs 3 " + flags;
}

TEST(BuildProgressTest, ATerminalSeesOneLineUpdatedInPlace) {
  auto dir = ScratchDir("progress_terminal");
  WriteText(dir / "m.py", ThreeKernels());
  Result r = RunInTerminal(BuildCommand(dir, "cache", ""));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Updates return to the line's start and clear its rest; the last one ends the line.
  EXPECT_NE(r.output.find("\rbuilding 3 kernels: 1/3 compiled, "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" s left\x1b[K"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\rbuilding 3 kernels: 3/3 compiled, "), std::string::npos) << r.output;
  const size_t built = r.output.find("\rbuilt 3 kernels (3 compiled, 0 cached) in ");
  ASSERT_NE(built, std::string::npos) << r.output;
  EXPECT_LT(built, r.output.find("kernels built into")) << r.output;
  // Nothing before the first second.
  EXPECT_EQ(r.output.find("0/3 compiled, 0.0 s"), std::string::npos) << r.output;
  // A build found in the cache shows nothing.
  Result warm = RunInTerminal(BuildCommand(dir, "cache", ""));
  ASSERT_EQ(warm.exit_code, 0) << warm.output;
  EXPECT_EQ(warm.output.find("building"), std::string::npos) << warm.output;
}

TEST(BuildProgressTest, QuietSilencesItOnATerminal) {
  auto dir = ScratchDir("progress_quiet");
  WriteText(dir / "m.py", ThreeKernels());
  Result r = RunInTerminal(BuildCommand(dir, "cache", "--quiet"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("building"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("built 3"), std::string::npos) << r.output;
}

TEST(BuildProgressTest, APipeSeesItOnlyWhenAsked) {
  auto dir = ScratchDir("progress_pipe");
  WriteText(dir / "m.py", ThreeKernels());
  Result plain = Shell(BuildCommand(dir, "cache1", ""));
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_EQ(plain.output.find("building"), std::string::npos) << plain.output;
  Result asked = Shell(BuildCommand(dir, "cache2", "--progress"));
  ASSERT_EQ(asked.exit_code, 0) << asked.output;
  // A line per compiled kernel, without carriage returns.
  EXPECT_NE(asked.output.find("building 3 kernels: 0/3 compiled, "), std::string::npos)
      << asked.output;
  EXPECT_NE(asked.output.find("building 3 kernels: 2/3 compiled, "), std::string::npos)
      << asked.output;
  EXPECT_NE(asked.output.find("built 3 kernels (3 compiled, 0 cached) in "), std::string::npos)
      << asked.output;
  EXPECT_EQ(asked.output.find('\r'), std::string::npos) << asked.output;
}

TEST(BuildProgressTest, QuietAndProgressTogetherAreAUserError) {
  auto dir = ScratchDir("progress_both");
  WriteText(dir / "m.py", ThreeKernels());
  Result r = Pipesplit("build " + (dir / "m.py").string() + " -o " + (dir / "m.so").string() +
                       " --quiet --progress");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--quiet excludes --progress"), std::string::npos) << r.output;
}

TEST(BuildProgressTest, AFailedBuildEndsTheLineBeforeItsError) {
  auto dir = ScratchDir("progress_failure");
  WriteText(dir / "m.py", ThreeKernels());
  // The third compiler run (the link, after two units) fails after the line is shown (runs are
  // numbered by mkdir, which only one of two runs at once can win).
  WriteText(dir / "failing-c++.sh",
            "#!/bin/sh\nn=1\nwhile ! mkdir " + (dir / "run").string() +
                "$n 2>/dev/null; do n=$((n+1)); done\nsleep 0.6\n"
                "if [ $n -eq 3 ]; then echo 'no room' >&2; exit 1; fi\nexec c++ \"$@\"\n");
  Result r =
      RunInTerminal("env CXX='/bin/sh " + (dir / "failing-c++.sh").string() + "' " + Binary() +
                    " build " + (dir / "m.py").string() + " --kernel-cache " +
                    (dir / "cache").string() + " -o " + (dir / "m.so").string() + " --jobs 2");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const size_t error = r.output.find("error: ");
  ASSERT_NE(error, std::string::npos) << r.output;
  // The error starts a line of its own.
  ASSERT_GT(error, 0u);
  EXPECT_EQ(r.output[error - 1], '\n') << r.output;
}

}  // namespace
}  // namespace pipesplit::testing_cli
