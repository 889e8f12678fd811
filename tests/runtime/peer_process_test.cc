// ProcessAlive: a running child is alive; killed (a zombie, then reaped) it is gone; another
// host's (or pid namespace's) process cannot be checked and counts as alive; a reused pid is told
// apart by start time.
#include "src/runtime/dist/peer_process.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>

namespace pipesplit::runtime {
namespace {

ProcessIdentity StartSleeper() {
  pid_t pid = fork();
  if (pid == 0) {
    pause();
    _exit(0);
  }
  ProcessIdentity child = SelfIdentity();
  child.pid = pid;
  child.start_ticks = 0;  // unknown: only the pid is checked
  return child;
}

TEST(PeerProcessTest, AProcessWhoseNamespaceIsUnknownCountsAsAlive) {
  ProcessIdentity unknown = SelfIdentity();
  unknown.pid_namespace[0] = '\0';  // /proc was not readable where it ran
  unknown.pid = 999999999;
  EXPECT_FALSE(SameHost(unknown));
  EXPECT_TRUE(ProcessAlive(unknown));
}

TEST(PeerProcessTest, SelfIsAliveAndOnThisHost) {
  ProcessIdentity self = SelfIdentity();
  EXPECT_EQ(self.pid, getpid());
  EXPECT_GT(self.start_ticks, 0u);
  EXPECT_TRUE(SameHost(self));
  EXPECT_TRUE(ProcessAlive(self));
}

TEST(PeerProcessTest, AKilledChildIsGoneBeforeAndAfterItIsReaped) {
  ProcessIdentity child = StartSleeper();
  ASSERT_GT(child.pid, 0);
  EXPECT_TRUE(ProcessAlive(child));
  ASSERT_EQ(kill(static_cast<pid_t>(child.pid), SIGKILL), 0);
  // Not reaped yet: a zombie, which counts as gone.
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, static_cast<id_t>(child.pid), &info, WEXITED | WNOWAIT), 0);
  EXPECT_FALSE(ProcessAlive(child));
  ASSERT_EQ(waitpid(static_cast<pid_t>(child.pid), nullptr, 0), child.pid);
  EXPECT_FALSE(ProcessAlive(child));
}

TEST(PeerProcessTest, AnotherStartTimeMeansAnotherProcess) {
  ProcessIdentity self = SelfIdentity();
  self.start_ticks += 1;  // as if the pid had been reused by a process started later
  EXPECT_FALSE(ProcessAlive(self));
}

TEST(PeerProcessTest, AProcessOnAnotherHostCountsAsAlive) {
  ProcessIdentity remote = SelfIdentity();
  std::strncpy(remote.pid_namespace, "another-boot-id/pid:[1]", sizeof(remote.pid_namespace) - 1);
  remote.pid = 999999999;  // no such pid here; it is not looked at
  EXPECT_FALSE(SameHost(remote));
  EXPECT_TRUE(ProcessAlive(remote));
}

}  // namespace
}  // namespace pipesplit::runtime
