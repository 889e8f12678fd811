// Identity and liveness of another process on this machine (Linux /proc). The MPI transport
// records each rank's identity when it starts, so a rank waiting for a peer that was killed
// (SIGKILL, the OOM killer) notices by itself instead of relying on mpirun to end the job.
// The start time (in clock ticks since boot) guards against a reused pid.
#ifndef PIPESPLIT_SRC_RUNTIME_DIST_PEER_PROCESS_H_
#define PIPESPLIT_SRC_RUNTIME_DIST_PEER_PROCESS_H_

#include <cstdint>
#include <string>

namespace pipesplit::runtime {

struct ProcessIdentity {
  // The pid namespace the pid belongs to: the kernel's boot id and the namespace's inode
  // ("<boot_id>/pid:[4026531836]"), NUL-terminated; empty when /proc cannot tell.
  char pid_namespace[96] = {};
  int64_t pid = 0;
  uint64_t start_ticks = 0;  // field 22 of /proc/<pid>/stat
};

// The calling process.
ProcessIdentity SelfIdentity();

// True when `other`'s pid can be looked up here: same kernel, same pid namespace, and /proc
// readable on both sides.
bool SameHost(const ProcessIdentity& other);

// False when the process on this host has exited, was killed (a zombie not yet reaped counts as
// gone) or its pid now names another process. True when it runs or cannot be checked.
bool ProcessAlive(const ProcessIdentity& process);

// When this process was started by an MPI launcher (mpirun, mpiexec), asks the kernel to kill it
// if that launcher dies, so a killed launcher leaves no rank behind. Linux only; no-op elsewhere.
void DieWithLauncher();

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_SRC_RUNTIME_DIST_PEER_PROCESS_H_
