// Building a module's kernel library: kernel bodies compiled one object each (in parallel) into
// a cache keyed by content hash, and linked into one shared library.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "pipesplit/codegen/codegen.h"
#include "pipesplit/support/kernel_abi.h"
#include "src/codegen/codegen_internal.h"
#include "src/codegen/compile_jobs.h"

namespace pipesplit::codegen {
namespace {

namespace fs = std::filesystem;

// -march=native: vector width and F16C conversions of this CPU (the cache key names the CPU, so
// a cache shared by other machines never hands them an object they cannot run). No flag here
// changes a result: IEEE operations are exact whatever instructions implement them.
const char* const kCompileFlags[] = {"-std=c++17",        "-O2",           "-march=native", "-fPIC",
                                     "-ffp-contract=off", "-fno-fast-math"};
// The library's own unit is compiled and linked with the objects in one run.
const char* const kLinkFlags[] = {"-std=c++17", "-O2", "-fPIC", "-shared"};
// Changes when the cache's entries change meaning (2: one object per kernel body).
constexpr int kCacheLayout = 2;

// One cache entry: a distinct kernel body and its compile cost estimate, the first kernel (by
// name) that has it, how many kernels have it, its symbol and its files' path without extension.
struct Entry {
  const std::string* body;
  int64_t cost;
  std::string first_name;
  int shared_by;
  std::string symbol;
  fs::path stem;
};

// Kernels compiled by one build from which their common header is precompiled first: the
// header (the standard headers and the prelude) is most of a small kernel's compile time.
constexpr size_t kPrecompileFrom = 4;
// The cost (EmitKernel's estimate) of a kernel's header, in lines, for the progress estimate.
constexpr size_t kHeaderCost = 200;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

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

// Precompiles `header` beside itself (header.gch, which GCC takes instead of the text when the
// flags match; other compilers read the text). A failure only costs the time: the kernels then
// compile from the text. Returns the compiler runs (1).
int PrecompileHeader(const std::vector<std::string>& command, const fs::path& header) {
  const std::string suffix = TempSuffix();
  const fs::path tmp = header.string() + ".gch" + suffix;
  const fs::path log = header.string() + ".log" + suffix;
  std::vector<std::string> argv = command;
  for (const char* f : kCompileFlags) argv.push_back(f);
  argv.insert(argv.end(), {"-x", "c++-header", "-o", tmp.string(), header.string()});
  std::error_code ec;
  if (RunProcess(argv, log.string()) == 0) {
    fs::rename(tmp, header.string() + ".gch", ec);
  }
  fs::remove(tmp, ec);
  fs::remove(log, ec);
  return 1;
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

BuildResult Build(const ir::IRModule& mod, const BuildOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<KernelUnit> units =
      GenerateKernelUnits(mod, options.check_bounds, options.optimize_loops);
  const std::vector<std::string> command = CompilerCommand(options);
  const std::string header = KernelSourceHeader();
  std::string key = "abi " + std::to_string(PIPESPLIT_KERNEL_ABI_VERSION) + " cache " +
                    std::to_string(kCacheLayout) + "\n";
  for (const std::string& w : command) key += w + " ";
  for (const char* f : kCompileFlags) key += std::string(f) + " ";
  key += "\n" + HostCpuKey() + HashHex(header) + "\n";

  fs::path dir = options.cache_dir.empty() ? DefaultCacheDir() : options.cache_dir;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw CodegenError("cannot create kernel cache " + dir.string() + ": " + ec.message());

  // 1. One entry per distinct body; the library's key is its own unit (names and entries).
  BuildResult result;
  result.kernels = static_cast<int>(units.size());
  std::map<std::string, size_t> entry_of_body;  // body -> index into `entries`
  std::vector<Entry> entries;
  std::vector<KernelExport> exports;
  for (const KernelUnit& unit : units) {
    auto [it, inserted] = entry_of_body.emplace(unit.body, entries.size());
    if (inserted) {
      const std::string hash = HashHex(key + unit.body);
      entries.push_back(
          {&unit.body, unit.cost, unit.name, 0, "ps_k_" + hash, dir / ("kernel-" + hash)});
    }
    ++entries[it->second].shared_by;
    exports.push_back({unit.name, entries[it->second].symbol});
  }
  result.distinct = static_cast<int>(entries.size());
  const std::string glue = LibraryGlueSource(exports);
  const std::string library_hash = HashHex(key + glue);
  const fs::path library = dir / ("kernels-" + library_hash + ".so");
  result.library = library.string();
  if (fs::exists(library)) {
    result.cached = true;
    return result;
  }

  // 2. The bodies not in the cache, largest first.
  std::vector<const Entry*> missing;
  for (const Entry& e : entries) {
    if (!fs::exists(e.stem.string() + ".o")) missing.push_back(&e);
  }
  std::stable_sort(missing.begin(), missing.end(),
                   [](const Entry* a, const Entry* b) { return a->cost > b->cost; });
  BuildProgress progress;
  progress.kernels = result.kernels;
  progress.distinct = result.distinct;
  progress.to_compile = static_cast<int>(missing.size());
  // The kernels' common header, precompiled when several kernels are compiled.
  const fs::path header_path = dir / ("prelude-" + HashHex(key) + ".h");
  if (!missing.empty() && !fs::exists(header_path)) WriteFileAtomically(header_path, header);
  if (missing.size() >= kPrecompileFrom && !fs::exists(header_path.string() + ".gch")) {
    result.compiler_runs += PrecompileHeader(command, header_path);
  }
  std::vector<CompileJob> jobs;
  std::vector<std::string> temps;
  size_t total_weight = 0;
  for (const Entry* e : missing) {
    const fs::path source = e->stem.string() + ".cc";
    WriteFileAtomically(source, KernelObjectSource(header_path.string(), *e->body, e->symbol,
                                                   options.check_bounds));
    const std::string suffix = TempSuffix();
    CompileJob job;
    job.argv = command;
    for (const char* f : kCompileFlags) job.argv.push_back(f);
    temps.push_back(e->stem.string() + ".o" + suffix);
    job.argv.insert(job.argv.end(), {"-c", "-o", temps.back(), source.string()});
    job.log = e->stem.string() + ".log" + suffix;
    job.weight = static_cast<size_t>(e->cost) + kHeaderCost;
    total_weight += job.weight;
    jobs.push_back(std::move(job));
  }
  const int parallel = options.jobs > 0 ? options.jobs : AvailableCores();
  auto report = [&](const CompileTick& tick) {
    if (!options.progress) return;
    progress.compiled = tick.done;
    progress.elapsed_s = Seconds(start);
    progress.remaining_s = tick.weight_done == 0
                               ? -1
                               : tick.elapsed_s *
                                     static_cast<double>(total_weight - tick.weight_done) /
                                     static_cast<double>(tick.weight_done);
    options.progress(progress);
  };
  std::vector<int> status = RunCompileJobs(jobs, parallel, report);
  for (size_t i = 0; i < jobs.size(); ++i) result.compiler_runs += status[i] != -2;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (status[i] == 0 || status[i] == -2) continue;
    const Entry& e = *missing[i];
    std::string output = ReadFile(jobs[i].log);
    for (size_t j = 0; j < jobs.size(); ++j) {
      fs::remove(jobs[j].log, ec);
      fs::remove(temps[j], ec);
    }
    int failed = 0;
    for (int s : status) failed += s != 0 && s != -2;
    std::string who = "kernel '" + e.first_name + "'";
    if (e.shared_by > 1) who += " (and " + std::to_string(e.shared_by - 1) + " with its body)";
    throw CodegenError(
        "compiling " + who + " failed (" + command[0] +
        (status[i] < 0 ? " could not be started" : " exited with " + std::to_string(status[i])) +
        (failed > 1 ? "; " + std::to_string(failed - 1) + " more kernels failed" : "") + "):\n" +
        FirstLines(output, 20) + "source kept at " + e.stem.string() + ".cc");
  }
  for (size_t i = 0; i < jobs.size(); ++i) {
    fs::remove(jobs[i].log, ec);
    fs::rename(temps[i], missing[i]->stem.string() + ".o");
  }

  // 3. The library: its unit and the kernels' objects.
  if (options.progress) {
    progress.linking = true;
    progress.remaining_s = -1;
    progress.elapsed_s = Seconds(start);
    options.progress(progress);
  }
  const fs::path glue_path = dir / ("kernels-" + library_hash + ".cc");
  WriteFileAtomically(glue_path, glue);
  const std::string suffix = TempSuffix();
  const fs::path tmp_library = library.string() + suffix;
  const fs::path log = dir / ("kernels-" + library_hash + ".log" + suffix);
  std::vector<std::string> argv = command;
  for (const char* f : kLinkFlags) argv.push_back(f);
  argv.insert(argv.end(), {"-o", tmp_library.string(), glue_path.string()});
  for (const Entry& e : entries) argv.push_back(e.stem.string() + ".o");
  const int link_status = RunProcess(argv, log.string());
  ++result.compiler_runs;
  if (link_status != 0) {
    std::string output = ReadFile(log);
    fs::remove(log, ec);
    fs::remove(tmp_library, ec);
    throw CodegenError("linking the kernel library failed (" + command[0] +
                       (link_status < 0 ? " could not be started"
                                        : " exited with " + std::to_string(link_status)) +
                       "):\n" + FirstLines(output, 20) + "source kept at " + glue_path.string());
  }
  fs::remove(log, ec);
  fs::rename(tmp_library, library);
  result.compiled = static_cast<int>(missing.size());
  if (options.progress) {
    progress.linking = false;
    progress.finished = true;
    progress.remaining_s = 0;
    progress.elapsed_s = Seconds(start);
    options.progress(progress);
  }
  return result;
}

std::string BuildKernelLibrary(const ir::IRModule& mod, const BuildOptions& options) {
  return Build(mod, options).library;
}

}  // namespace pipesplit::codegen
