#include "src/runtime/dist/peer_process.h"

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

// The boot id and pid-namespace inode of this process; empty when either cannot be read.
std::string ReadPidNamespace() {
  std::ifstream boot("/proc/sys/kernel/random/boot_id");
  std::string boot_id;
  std::getline(boot, boot_id);
  char link[64] = {};
  ssize_t n = readlink("/proc/self/ns/pid", link, sizeof(link) - 1);
  if (boot_id.empty() || n <= 0) return {};
  return boot_id + "/" + std::string(link, static_cast<size_t>(n));
}

const std::string& PidNamespace() {
  static const std::string ns = ReadPidNamespace();
  return ns;
}

}  // namespace

ProcessIdentity SelfIdentity() {
  ProcessIdentity self;
  self.pid = getpid();
  StatFields stat = ReadStat(self.pid);
  const std::string& ns = PidNamespace();
  if (stat.found && ns.size() < sizeof(self.pid_namespace)) {
    std::memcpy(self.pid_namespace, ns.data(), ns.size());
    self.start_ticks = stat.start_ticks;
  }
  return self;
}

bool SameHost(const ProcessIdentity& other) {
  if (other.pid_namespace[0] == '\0') return false;
  const std::string& ns = PidNamespace();
  return !ns.empty() &&
         ns == std::string(other.pid_namespace,
                           strnlen(other.pid_namespace, sizeof(other.pid_namespace)));
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
