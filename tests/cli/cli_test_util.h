// Runs the pipesplit binary (or mpirun) as a user would and captures what it prints.
#ifndef PIPESPLIT_TESTS_CLI_CLI_TEST_UTIL_H_
#define PIPESPLIT_TESTS_CLI_CLI_TEST_UTIL_H_

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace pipesplit::testing_cli {

struct Result {
  int exit_code = -1;
  std::string output;  // stdout and stderr, interleaved
};

// mpirun as root inside a container, with as many ranks as asked on 2 cores.
inline std::string Mpirun(int ranks) {
  return "env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
         "OMPI_MCA_rmaps_base_oversubscribe=1 mpirun --allow-run-as-root --oversubscribe -np " +
         std::to_string(ranks) + " ";
}

inline std::string Binary() { return std::string(PIPESPLIT_BINARY_DIR) + "/pipesplit"; }

// Runs a shell command line with a time limit; `timeout` kills it (exit 124) if it hangs.
inline Result Shell(const std::string& command, int seconds = 120) {
  // -k: a command that ignores SIGTERM is killed 5 s later (MPI ranks die with their launcher).
  std::string line = "timeout -k 5 " + std::to_string(seconds) + " " + command + " 2>&1";
  Result result;
  FILE* pipe = popen(line.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    result.output.append(buffer.data(), n);
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

// `pipesplit <args>`.
inline Result Pipesplit(const std::string& args, int seconds = 120) {
  return Shell(Binary() + " " + args, seconds);
}

// A fresh scratch directory for one test.
inline std::filesystem::path ScratchDir(const std::string& name) {
  std::filesystem::path dir = std::filesystem::path(PIPESPLIT_BINARY_DIR) / "test-scratch" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline void WriteText(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace pipesplit::testing_cli

#endif  // PIPESPLIT_TESTS_CLI_CLI_TEST_UTIL_H_
