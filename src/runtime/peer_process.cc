#include "src/runtime/peer_process.h"

#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#ifdef __linux__
#include <sys/prctl.h>
#endif

namespace pipesplit::runtime {
namespace {

struct StatFields {
  bool found = false;
  char state = '?';
  uint64_t start_ticks = 0;
};

// /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces and parentheses, so the
// fields are counted from the last ')'. The start time is field 22 (state is field 3).
StatFields ReadStat(int64_t pid) {
  StatFields fields;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = text.rfind(')');
  if (close == std::string::npos) return fields;  // no such process (or no /proc)
  std::istringstream rest(text.substr(close + 1));
  std::string field;
  for (int index = 3; rest >> field; ++index) {
    if (index == 3) fields.state = field.empty() ? '?' : field[0];
    if (index == 22) {
      fields.start_ticks = std::strtoull(field.c_str(), nullptr, 10);
      break;
    }
  }
  fields.found = true;
  return fields;
}

}  // namespace

ProcessIdentity SelfIdentity() {
  ProcessIdentity self;
  gethostname(self.host, sizeof(self.host) - 1);
  self.pid = getpid();
  self.start_ticks = ReadStat(self.pid).start_ticks;
  return self;
}

bool SameHost(const ProcessIdentity& other) {
  char host[sizeof(ProcessIdentity::host)] = {};
  gethostname(host, sizeof(host) - 1);
  return std::strncmp(host, other.host, sizeof(host)) == 0;
}

bool ProcessAlive(const ProcessIdentity& process) {
  if (process.pid <= 0 || !SameHost(process)) return true;
  StatFields fields = ReadStat(process.pid);
  if (!fields.found) return false;
  if (fields.state == 'Z' || fields.state == 'X' || fields.state == 'x') return false;
  if (process.start_ticks != 0 && fields.start_ticks != process.start_ticks) return false;
  return true;
}

void DieWithLauncher() {
#ifdef __linux__
  // Open MPI and MPICH's Hydra set these in every rank they start.
  if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr && std::getenv("PMI_RANK") == nullptr) {
    return;
  }
  const pid_t launcher = getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != launcher) std::raise(SIGKILL);  // the launcher died before the request
#endif
}

}  // namespace pipesplit::runtime
