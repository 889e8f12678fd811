// Running compiler processes: one at a time, or several at once with progress reports.
#ifndef PIPESPLIT_SRC_CODEGEN_COMPILE_JOBS_H_
#define PIPESPLIT_SRC_CODEGEN_COMPILE_JOBS_H_

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace pipesplit::codegen {

// Runs argv (argv[0] a path) with stdout and stderr into the file `log`; returns the exit status
// (128 + the signal for a killed process, -1 when it could not be started).
int RunProcess(const std::vector<std::string>& argv, const std::string& log);

struct CompileJob {
  std::vector<std::string> argv;
  std::string log;
  size_t weight = 1;  // its share of the work, for the progress estimate
  int items = 1;      // what it compiles (kernels), for the progress count
};

// Where a batch of jobs stands: `done` jobs (of `weight_done`) finished after `elapsed_s`.
struct CompileTick {
  int done = 0;
  int items_done = 0;
  size_t weight_done = 0;
  double elapsed_s = 0;
};

// Runs `jobs` in their order on at most `parallel` processes at once. After the first failure
// no further job starts; the running ones are waited for. Calls `tick` (when set) from the
// calling thread after each job ends and about every `tick_seconds` in between. Returns each
// job's exit status (RunProcess), -2 for a job never started.
std::vector<int> RunCompileJobs(const std::vector<CompileJob>& jobs, int parallel,
                                const std::function<void(const CompileTick&)>& tick,
                                double tick_seconds = 0.1);

// The number of cores this process may run on (at least 1).
int AvailableCores();

}  // namespace pipesplit::codegen

#endif  // PIPESPLIT_SRC_CODEGEN_COMPILE_JOBS_H_
