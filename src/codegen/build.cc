// Compiling generated kernel sources into shared libraries, cached by content hash.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "pipesplit/codegen/codegen.h"
#include "pipesplit/support/kernel_abi.h"

extern char** environ;

namespace pipesplit::codegen {
namespace {

namespace fs = std::filesystem;

// -march=native: vector width and F16C conversions of this CPU (the cache key names the CPU, so
// a cache shared by other machines never hands them a library they cannot run). No flag here
// changes a result: IEEE operations are exact whatever instructions implement them.
const char* const kFlags[] = {"-std=c++17",    "-O2",     "-march=native",
                              "-fPIC",         "-shared", "-ffp-contract=off",
                              "-fno-fast-math"};

// What -march=native depends on: the CPU's model and feature lines of /proc/cpuinfo (empty
// where there is none).
std::string HostCpuKey() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  std::string key;
  std::set<std::string> seen;
  while (std::getline(in, line)) {
    for (const char* field : {"model name", "flags", "Features", "CPU part", "isa"}) {
      if (line.rfind(field, 0) == 0 && seen.insert(field).second) key += line + "\n";
    }
  }
  return key;
}

std::string Getenv(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

std::vector<std::string> SplitWords(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  std::string w;
  while (in >> w) words.push_back(w);
  return words;
}

bool IsExecutable(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// The compiler command: options.compiler, else $CXX, else "c++"; its program resolved on PATH.
std::vector<std::string> CompilerCommand(const BuildOptions& options) {
  std::string spec = options.compiler;
  if (spec.empty()) spec = Getenv("CXX");
  if (spec.empty()) spec = "c++";
  std::vector<std::string> words = SplitWords(spec);
  const std::string missing =
      "no C++ compiler found: install g++ (apt-get install g++) or set CXX (tried '" + spec + "')";
  if (words.empty()) throw CodegenError(missing);
  std::string& program = words[0];
  if (program.find('/') != std::string::npos) {
    if (!IsExecutable(program)) throw CodegenError(missing);
    return words;
  }
  std::istringstream path(Getenv("PATH"));
  std::string dir;
  while (std::getline(path, dir, ':')) {
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
    if (IsExecutable(candidate)) {
      program = candidate;
      return words;
    }
  }
  throw CodegenError(missing);
}

// 128-bit FNV-1a (two 64-bit lanes with different offsets) as 32 hex digits.
std::string HashHex(const std::string& text) {
  uint64_t h1 = 0xcbf29ce484222325ull;
  uint64_t h2 = 0x84222325cbf29ce4ull;
  for (unsigned char c : text) {
    h1 = (h1 ^ c) * 0x100000001b3ull;
    h2 = (h2 ^ static_cast<unsigned char>(c + 0x5b)) * 0x100000001b3ull;
    h2 ^= h2 >> 29;
  }
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%016llx%016llx", static_cast<unsigned long long>(h1),
                static_cast<unsigned long long>(h2));
  return buf;
}

// A name unique to this process and call, for temp files beside their final path.
std::string TempSuffix() {
  static std::atomic<uint64_t> counter{0};
  return ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

void WriteFileAtomically(const fs::path& path, const std::string& text) {
  fs::path tmp = path.string() + TempSuffix();
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out) throw CodegenError("cannot write " + tmp.string());
  }
  fs::rename(tmp, path);
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string FirstLines(const std::string& text, int n) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  for (int i = 0; i < n && std::getline(in, line); ++i) out += line + "\n";
  if (std::getline(in, line)) out += "...\n";
  return out;
}

// Runs argv with stdout and stderr into `log`; returns the exit status (-1: not started).
int Run(const std::vector<std::string>& argv, const fs::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

std::string DefaultCacheDir() {
  std::string dir = Getenv("PIPESPLIT_KERNEL_CACHE");
  if (!dir.empty()) return dir;
  std::string xdg = Getenv("XDG_CACHE_HOME");
  if (!xdg.empty()) return xdg + "/pipesplit/kernels";
  std::string home = Getenv("HOME");
  if (home.empty()) home = ".";
  return home + "/.cache/pipesplit/kernels";
}

std::string BuildKernelLibrary(const ir::IRModule& mod, const BuildOptions& options) {
  std::string source = GenerateSource(mod, options.check_bounds, options.optimize_loops);
  std::vector<std::string> command = CompilerCommand(options);
  std::string key = "abi " + std::to_string(PIPESPLIT_KERNEL_ABI_VERSION) + "\n";
  for (const std::string& w : command) key += w + " ";
  for (const char* f : kFlags) key += std::string(f) + " ";
  key += "\n" + HostCpuKey() + source;
  std::string hash = HashHex(key);

  fs::path dir = options.cache_dir.empty() ? DefaultCacheDir() : options.cache_dir;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw CodegenError("cannot create kernel cache " + dir.string() + ": " + ec.message());
  fs::path library = dir / ("kernels-" + hash + ".so");
  if (fs::exists(library)) return library.string();

  fs::path source_path = dir / ("kernels-" + hash + ".cc");
  WriteFileAtomically(source_path, source);
  std::string suffix = TempSuffix();
  fs::path tmp_library = library.string() + suffix;
  fs::path log = dir / ("kernels-" + hash + ".log" + suffix);
  std::vector<std::string> argv = command;
  for (const char* f : kFlags) argv.push_back(f);
  argv.insert(argv.end(), {"-o", tmp_library.string(), source_path.string()});
  int status = Run(argv, log);
  if (status != 0) {
    std::string output = ReadFile(log);
    fs::remove(log, ec);
    fs::remove(tmp_library, ec);
    throw CodegenError(
        "compiling kernels failed (" + command[0] +
        (status < 0 ? " could not be started" : " exited with " + std::to_string(status)) + "):\n" +
        FirstLines(output, 20) + "source kept at " + source_path.string());
  }
  fs::remove(log, ec);
  fs::rename(tmp_library, library);
  return library.string();
}

}  // namespace pipesplit::codegen
