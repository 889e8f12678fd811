// Helpers shared by the benchmarks: the lowered Llama module they read, and children run in
// a fresh process (wall time and the peak RSS they print).
#ifndef PIPESPLIT_BENCH_BENCH_UTIL_H_
#define PIPESPLIT_BENCH_BENCH_UTIL_H_

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "pipesplit/ir/expr.h"
#include "pipesplit/models/llama.h"
#include "pipesplit/runtime/io/mlc_params.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/transform/pass.h"

extern char** environ;

namespace pipesplit::bench {

// MLC's phase 4 dump `mod` (no _metadata) made runnable on `groups` groups: cut between layers
// by auto-pipeline-stages and split when groups > 1, and named by the _metadata function of
// `phase5`, the memory-planned dump of the same model.
inline ir::IRModule MlcPhase4ForGroups(ir::IRModule mod, const ir::IRModule& phase5, int groups) {
  if (groups > 1) {
    transform::PassContext ctx;
    mod = transform::ParsePipeline("auto-pipeline-stages{stages=" + std::to_string(groups) +
                                       "},pipeline-parallel-rewrite",
                                   "bench")
              ->Run(mod, ctx);
  }
  const ir::IRModule::Member* named = phase5.Find(runtime::kMlcMetadataFunction);
  mod.Add(ir::Make<ir::GlobalVarNode>(runtime::kMlcMetadataFunction, named->gvar->struct_info()),
          named->func);
  return mod;
}

// The Llama example with `layers` layers and 8 stages after legalize-ops, as TVMScript (what
// `pipesplit example llama-lowered --layers N --stages 8 --module-only` writes); cached.
inline const std::string& LegalizedLlamaText(int layers) {
  static std::map<int, std::string> cache;
  auto it = cache.find(layers);
  if (it != cache.end()) return it->second;
  models::LlamaConfig config;
  config.layers = layers;
  config.stages = 8;
  ir::IRModule mod = script::ParseModule(models::GenerateLlamaExample(config).module_text, "l");
  transform::PassContext ctx;
  mod = transform::ParsePipeline("legalize-ops")->Run(mod, ctx);
  return cache[layers] = script::PrintModule(mod);
}

// A line of /proc/self/status in MB (getrusage would also count the pages of the benchmark
// process that spawned the child, which the child shares until its exec).
inline double StatusMb(const char* key) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(key, 0) == 0)
      return std::strtod(line.c_str() + std::strlen(key), nullptr) / 1024.0;
  }
  return 0;
}
// Peak and current RSS of the calling process in MB.
inline double PeakRssMb() { return StatusMb("VmHWM:"); }
inline double CurrentRssMb() { return StatusMb("VmRSS:"); }

struct ChildRun {
  double seconds = 0;
  double peak_rss_mb = 0;       // the first number the child printed
  std::vector<double> numbers;  // every number it printed, in order
  bool ok = false;
};

// Runs argv with `env` added in a fresh process: wall time from spawn to exit, and the peak
// RSS the child printed first on stdout (and every number it printed).
inline ChildRun RunChild(std::vector<std::string> argv, std::vector<std::string> env) {
  std::vector<char*> args, envp;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  for (char** e = environ; *e != nullptr; ++e) envp.push_back(*e);
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  ChildRun run;
  int fds[2];
  if (pipe(fds) != 0) return run;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  auto start = std::chrono::steady_clock::now();
  pid_t pid;
  int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  std::string output;
  char buffer[256];
  ssize_t n;
  while (spawned == 0 && (n = read(fds[0], buffer, sizeof(buffer))) > 0) output.append(buffer, n);
  close(fds[0]);
  if (spawned != 0) return run;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return run;
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const char* p = output.c_str(); *p != '\0';) {
    char* end = nullptr;
    double v = std::strtod(p, &end);
    if (end == p) break;
    run.numbers.push_back(v);
    p = end;
  }
  run.peak_rss_mb = run.numbers.empty() ? 0 : run.numbers[0];
  run.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && run.peak_rss_mb > 0;
  return run;
}

}  // namespace pipesplit::bench

#endif  // PIPESPLIT_BENCH_BENCH_UTIL_H_
