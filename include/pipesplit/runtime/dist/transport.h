// Point-to-point tensor transport between the workers of a session.
//
// Sends and receives between a pair of workers pair up in program order. A receive waits at
// most its timeout. Any worker may abort the run: every pending and later operation on every
// worker then fails promptly with the reason (a TransportAborted error), so nothing hangs.
#ifndef PIPESPLIT_RUNTIME_DIST_TRANSPORT_H_
#define PIPESPLIT_RUNTIME_DIST_TRANSPORT_H_

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::runtime {

// The run was aborted by another worker; what() says which and why.
class TransportAborted : public RuntimeError {
 public:
  explicit TransportAborted(const std::string& what) : RuntimeError(what) {}
};

// "aborted because <reason>" when the reason already names the worker ("worker 1 (group 1)
// failed ..."), else "aborted because worker <from> failed: <reason>".
std::string AbortMessage(int from, const std::string& reason);

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int num_workers() const = 0;
  // Hands `tensor` from worker `from` to worker `to` (may block while the channel is full).
  virtual void Send(int from, int to, const Tensor& tensor) = 0;
  // The next tensor sent from `from` to `to`; RuntimeError after `timeout`.
  virtual Tensor Recv(int to, int from, std::chrono::milliseconds timeout) = 0;
  // Fails the run on every worker with `reason`, reported as coming from worker `from`.
  virtual void Abort(int from, const std::string& reason) = 0;
};

// In-process transport: bounded channels between threads, the tensor's immutable buffer is
// handed over (never copied).
std::unique_ptr<Transport> MakeThreadTransport(int num_workers, size_t channel_capacity = 8);

// MPI transport: one worker per rank of MPI_COMM_WORLD. Tensors travel as a header (dtype,
// shape, byte count) and a body; a receive polls for its header so it can time out and notice
// aborts; a send that the peer does not take within `send_timeout` fails. Initializes MPI on
// first use; FinalizeMpi() shuts it down.
std::unique_ptr<Transport> MakeMpiTransport(std::chrono::milliseconds send_timeout);
// This process's rank and the world size (initializing MPI if needed).
int MpiRank();
int MpiWorldSize();
// Waits for every rank, then shuts MPI down. When a rank on this host died first, MPI is left
// as it is (finalizing would wait for the dead rank) and the result says so: a message to
// report, or an empty one when this rank has already reported the loss.
std::optional<std::string> FinalizeMpi();

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_DIST_TRANSPORT_H_
