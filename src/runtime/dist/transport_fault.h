// Fault injection for the tests of multi-worker runs, off unless PIPESPLIT_FAULT is set.
//
// PIPESPLIT_FAULT=<kind>@<worker>[:<n>] makes worker <worker> misbehave at its <n>-th send
// (0-based, default 0):
//   throw      the worker throws a std::runtime_error (not a pipesplit error)
//   kill       the worker's process kills itself with SIGKILL (MPI only)
//   shape      the tensor sent gets an extra trailing dimension of 1
//   garble     the tensor's header is sent with a corrupted magic word (MPI only)
//   duplicate  the tensor's header message is sent twice (MPI only)
//   drop       the tensor is not sent, as if the message were lost (MPI only)
// Each injection is announced on stderr (AnnounceFault). The variable is read once, when a
// transport is made; when it is unset nothing is wrapped and the MPI transport only tests one flag
// per send.
#ifndef PIPESPLIT_SRC_RUNTIME_DIST_TRANSPORT_FAULT_H_
#define PIPESPLIT_SRC_RUNTIME_DIST_TRANSPORT_FAULT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "pipesplit/runtime/dist/transport.h"

namespace pipesplit::runtime {

struct Fault {
  enum class Kind { kThrow, kKill, kShape, kGarble, kDuplicate, kDrop };
  Kind kind = Kind::kThrow;
  int worker = 0;
  int64_t send_index = 0;
  // Garble, duplicate and drop act on the wire: the MPI transport applies them itself.
  bool on_wire() const {
    return kind == Kind::kGarble || kind == Kind::kDuplicate || kind == Kind::kDrop;
  }
};

// Prints "fault injected: <kind> on worker <w> at <ms since the epoch>" to stderr (the tests
// measure the time from it to the exit of every process).
void AnnounceFault(const Fault& fault);

// Parses `spec` (the syntax above); RuntimeError "PIPESPLIT_FAULT: ..." when malformed.
Fault ParseFault(const std::string& spec);

// The fault PIPESPLIT_FAULT asks for, if any.
std::optional<Fault> FaultFromEnvironment();

// `transport` with `fault` injected at the sends of fault.worker (throw, kill and shape; the
// wire faults pass through). `wire_capable`: whether `transport` applies wire faults itself
// (else asking for one is a RuntimeError).
std::unique_ptr<Transport> InjectFault(std::unique_ptr<Transport> transport, const Fault& fault,
                                       bool wire_capable);

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_SRC_RUNTIME_DIST_TRANSPORT_FAULT_H_
