// Compiler processes: posix_spawn with the output in a log file; a batch runs on worker threads,
// one process per thread, while the calling thread reports progress.
#include "src/codegen/compile_jobs.h"

#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

extern char** environ;

namespace pipesplit::codegen {

int RunProcess(const std::vector<std::string>& argv, const std::string& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
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

std::vector<int> RunCompileJobs(const std::vector<CompileJob>& jobs, int parallel,
                                const std::function<void(const CompileTick&)>& tick,
                                double tick_seconds) {
  std::vector<int> status(jobs.size(), -2);
  const auto start = std::chrono::steady_clock::now();
  std::mutex mu;
  std::condition_variable changed;
  size_t next = 0;
  bool failed = false;
  CompileTick state;
  auto worker = [&] {
    std::unique_lock<std::mutex> lock(mu);
    while (next < jobs.size() && !failed) {
      const size_t i = next++;
      lock.unlock();
      const int rc = RunProcess(jobs[i].argv, jobs[i].log);
      lock.lock();
      status[i] = rc;
      failed |= rc != 0;
      ++state.done;
      state.items_done += jobs[i].items;
      state.weight_done += jobs[i].weight;
      changed.notify_all();
    }
  };
  const int threads =
      std::clamp<int>(parallel, 1, static_cast<int>(std::max<size_t>(jobs.size(), 1)));
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
  {
    std::unique_lock<std::mutex> lock(mu);
    while (true) {
      const bool finished = state.done == static_cast<int>(jobs.size()) ||
                            (failed && static_cast<size_t>(state.done) == next);
      if (tick) {
        state.elapsed_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const CompileTick copy = state;
        lock.unlock();
        tick(copy);
        lock.lock();
      }
      if (finished) break;
      changed.wait_for(lock, std::chrono::duration<double>(tick_seconds));
    }
  }
  for (std::thread& t : pool) t.join();
  return status;
}

int AvailableCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace pipesplit::codegen
