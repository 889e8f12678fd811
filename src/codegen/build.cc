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
// Changes when the cache's entries change meaning (2: kernels in unit objects, found through
// one index file per kernel body).
constexpr int kCacheLayout = 2;
// Lines (EmitKernel's cost estimate) a translation unit costs besides its kernels: the standard
// headers, the prelude and the process.
constexpr int64_t kUnitCost = 4000;

// A distinct kernel body: its compile cost estimate, the kernels that have it (sorted by name),
// its symbol, and its index file (which names the unit object holding it).
struct Entry {
  const std::string* body;
  int64_t cost;
  std::vector<std::string> names;
  std::string hash;
  std::string symbol;
  fs::path index;
};

// A translation unit to compile: its kernels (indices into the entries), their cost, its name.
struct Unit {
  std::vector<size_t> entries;
  int64_t cost = kUnitCost;
  std::string stem;  // path without extension of its .cc, .o and .log
};

// The missing entries cut into translation units for `jobs` processes. Each unit pays the
// standard headers, the prelude and a process once for all its kernels, so there are as many
// units as processes (fewer kernels: one each), filled costliest kernel first into the cheapest
// unit so far.
std::vector<Unit> PlanUnits(const std::vector<Entry>& entries, std::vector<size_t> missing,
                            int jobs) {
  std::stable_sort(missing.begin(), missing.end(),
                   [&](size_t a, size_t b) { return entries[a].cost > entries[b].cost; });
  const size_t count = std::min<size_t>(missing.size(), std::max(jobs, 1));
  std::vector<Unit> units(count);
  for (size_t e : missing) {
    // An empty unit costs kUnitCost, less than any unit holding a kernel (a kernel costs at
    // least its lines), so every unit gets a kernel before any gets a second.
    auto cheapest = std::min_element(units.begin(), units.end(),
                                     [](const Unit& a, const Unit& b) { return a.cost < b.cost; });
    cheapest->entries.push_back(e);
    cheapest->cost += entries[e].cost;
  }
  std::stable_sort(units.begin(), units.end(),
                   [](const Unit& a, const Unit& b) { return a.cost > b.cost; });
  return units;
}

// The kernel whose body holds line `line` of a unit whose bodies start at `first_lines`.
size_t KernelAtLine(const std::vector<int>& first_lines, int line) {
  size_t k = 0;
  while (k + 1 < first_lines.size() && first_lines[k + 1] <= line) ++k;
  return k;
}

// The first line number the compiler's output gives for `source` ("source:LINE:"), or 0.
int FirstErrorLine(const std::string& output, const std::string& source) {
  const std::string prefix = source + ":";
  for (size_t at = output.find(prefix); at != std::string::npos; at = output.find(prefix, at + 1)) {
    size_t p = at + prefix.size();
    int line = 0;
    while (p < output.size() && output[p] >= '0' && output[p] <= '9') {
      line = line * 10 + (output[p++] - '0');
    }
    if (line > 0 && p < output.size() && output[p] == ':') return line;
  }
  return 0;
}

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

// The error of a unit that failed to compile: it names the kernel the compiler's first located
// message is in (without one, the unit's kernels), and keeps the output and the source.
[[noreturn]] void ThrowCompileFailure(const Unit& unit, const std::vector<int>& first_lines,
                                      const std::vector<Entry>& entries,
                                      const std::string& compiler, int status, int failed,
                                      const std::string& output, const std::string& source) {
  const int line = FirstErrorLine(output, source);
  std::vector<std::string> names;
  if (line > 0 && line >= first_lines[0]) {
    names = entries[unit.entries[KernelAtLine(first_lines, line)]].names;
  } else {
    for (size_t e : unit.entries) {
      names.insert(names.end(), entries[e].names.begin(), entries[e].names.end());
    }
  }
  std::string message = names.size() == 1 ? "compiling kernel '" : "compiling kernels '";
  message += names[0] + "'";
  for (size_t n = 1; n < names.size(); ++n) {
    message += (n + 1 == names.size() ? " and '" : ", '") + names[n] + "'";
  }
  message += " failed (" + compiler;
  message += status < 0 ? " could not be started" : " exited with " + std::to_string(status);
  if (failed > 1) message += "; " + std::to_string(failed - 1) + " more units failed";
  message += "):\n" + FirstLines(output, 20) + "source kept at " + source;
  throw CodegenError(message);
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
  std::vector<KernelUnit> kernels =
      GenerateKernelUnits(mod, options.check_bounds, options.optimize_loops, options.fast_path,
                          options.float64_reference);
  const std::vector<std::string> command = CompilerCommand(options);
  std::string key = "abi " + std::to_string(PIPESPLIT_KERNEL_ABI_VERSION) + " cache " +
                    std::to_string(kCacheLayout) + "\n";
  for (const std::string& w : command) key += w + " ";
  for (const char* f : kCompileFlags) key += std::string(f) + " ";
  key += "\n" + HostCpuKey() + HashHex(KernelSourceHeader()) + "\n";

  fs::path dir = options.cache_dir.empty() ? DefaultCacheDir() : options.cache_dir;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw CodegenError("cannot create kernel cache " + dir.string() + ": " + ec.message());

  // 1. One entry per distinct body, found through its index file.
  BuildResult result;
  result.kernels = static_cast<int>(kernels.size());
  std::map<std::string, size_t> entry_of_body;
  std::vector<Entry> entries;
  std::vector<KernelExport> exports;
  for (const KernelUnit& k : kernels) {
    if (!k.error.empty()) result.uncompiled.push_back(k.error);
    if (!k.fast_path.empty()) result.fast_paths.push_back({k.name, k.fast_path});
    auto [it, inserted] = entry_of_body.emplace(k.body, entries.size());
    if (inserted) {
      const std::string hash = HashHex(key + (options.check_bounds ? "checked\n" : "\n") + k.body);
      entries.push_back(
          {&k.body, k.cost, {}, hash, "ps_k_" + hash, dir / ("kernel-" + hash + ".unit")});
    }
    entries[it->second].names.push_back(k.name);
    exports.push_back({k.name, entries[it->second].symbol});
  }
  result.distinct = static_cast<int>(entries.size());
  std::vector<std::string> unit_of(entries.size());  // the unit object's stem, when cached
  std::vector<size_t> missing;
  for (size_t i = 0; i < entries.size(); ++i) {
    std::string stem = fs::exists(entries[i].index) ? ReadFile(entries[i].index) : "";
    if (!stem.empty() && fs::exists(dir / (stem + ".o"))) {
      unit_of[i] = stem;
    } else {
      missing.push_back(i);
    }
  }

  // 2. The missing bodies, compiled in units on `jobs` processes, costliest unit first.
  const int parallel = options.jobs > 0 ? options.jobs : AvailableCores();
  std::vector<Unit> units = PlanUnits(entries, missing, parallel);
  std::vector<std::vector<int>> first_lines(units.size());
  std::vector<CompileJob> jobs;
  std::vector<std::string> temps;
  int64_t total_cost = 0;
  for (size_t u = 0; u < units.size(); ++u) {
    Unit& unit = units[u];
    std::string unit_key;
    for (size_t e : unit.entries) unit_key += entries[e].hash;
    unit.stem = "unit_" + HashHex(unit_key);  // also a C identifier
    std::vector<UnitKernel> members;
    for (size_t e : unit.entries) members.push_back({entries[e].body, entries[e].symbol});
    const fs::path source = dir / (unit.stem + ".cc");
    WriteFileAtomically(source, KernelUnitSource(members, unit.stem + "_set_runtime",
                                                 options.check_bounds, &first_lines[u]));
    const std::string suffix = TempSuffix();
    CompileJob job;
    job.argv = command;
    for (const char* f : kCompileFlags) job.argv.push_back(f);
    temps.push_back((dir / (unit.stem + ".o" + suffix)).string());
    job.argv.insert(job.argv.end(), {"-c", "-o", temps.back(), source.string()});
    job.log = (dir / (unit.stem + ".log" + suffix)).string();
    job.weight = static_cast<size_t>(unit.cost);
    job.items = static_cast<int>(unit.entries.size());
    total_cost += unit.cost;
    jobs.push_back(std::move(job));
  }
  BuildProgress progress;
  progress.kernels = result.kernels;
  progress.distinct = result.distinct;
  progress.to_compile = static_cast<int>(missing.size());
  auto report = [&](const CompileTick& tick) {
    if (!options.progress) return;
    progress.compiled = tick.items_done;
    progress.elapsed_s = Seconds(start);
    progress.remaining_s =
        tick.weight_done == 0
            ? -1
            : tick.elapsed_s *
                  static_cast<double>(total_cost - static_cast<int64_t>(tick.weight_done)) /
                  static_cast<double>(tick.weight_done);
    options.progress(progress);
  };
  const std::vector<int> status =
      jobs.empty() ? std::vector<int>() : RunCompileJobs(jobs, parallel, report);
  for (size_t i = 0; i < jobs.size(); ++i) result.compiler_runs += status[i] != -2;
  for (size_t u = 0; u < jobs.size(); ++u) {
    if (status[u] == 0 || status[u] == -2) continue;
    const std::string source = (dir / (units[u].stem + ".cc")).string();
    const std::string output = ReadFile(jobs[u].log);
    for (size_t j = 0; j < jobs.size(); ++j) {
      fs::remove(jobs[j].log, ec);
      fs::remove(temps[j], ec);
    }
    int failed = 0;
    for (int st : status) failed += st != 0 && st != -2;
    ThrowCompileFailure(units[u], first_lines[u], entries, command[0], status[u], failed, output,
                        source);
  }
  for (size_t u = 0; u < jobs.size(); ++u) {
    fs::remove(jobs[u].log, ec);
    fs::rename(temps[u], dir / (units[u].stem + ".o"));
    for (size_t e : units[u].entries) {
      WriteFileAtomically(entries[e].index, units[u].stem);
      unit_of[e] = units[u].stem;
    }
  }
  result.compiled = static_cast<int>(missing.size());

  // 3. The library: its own unit and the unit objects, keyed by that unit's text.
  std::vector<std::string> objects;
  for (const std::string& stem : unit_of) {
    if (std::find(objects.begin(), objects.end(), stem) == objects.end()) objects.push_back(stem);
  }
  std::sort(objects.begin(), objects.end());
  std::vector<std::string> set_runtime;
  set_runtime.reserve(objects.size());
  for (const std::string& stem : objects) set_runtime.push_back(stem + "_set_runtime");
  const std::string glue = LibraryGlueSource(exports, set_runtime, FastPathLines(kernels));
  const std::string library_hash = HashHex(key + glue);
  const fs::path library = dir / ("kernels-" + library_hash + ".so");
  result.library = library.string();
  if (missing.empty() && fs::exists(library)) {
    result.cached = true;
    return result;
  }
  if (options.progress) {
    progress.compiled = progress.to_compile;
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
  for (const std::string& stem : objects) argv.push_back((dir / (stem + ".o")).string());
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
