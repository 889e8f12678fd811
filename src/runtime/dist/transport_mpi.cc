// MPI transport (see transport.h). Messages between a pair of ranks: a header on kHeaderTag
// (the wire format of transport_wire.h: magic, sequence number, dtype, shape, byte count), sent
// as bytes. A body of at most wire::kInlineBytes follows the header in the same message (one
// message, one copy: cheaper than a second message for small tensors); a larger body follows on
// kBodyTag in chunks of at most 1 GiB, received straight into the tensor. The receiver checks
// the sequence number of each pair, so a duplicated or lost tensor is an error. Aborts travel
// on kAbortTag to every other rank. Every wait polls (spin, then yield, then short sleeps), so a
// dead or silent peer ends in a timeout, never a hang; a peer on the same host that was killed
// (its identity is exchanged at start, peer_process.h) is noticed within kPeerCheckInterval,
// whether or not mpirun ends the job first. PIPESPLIT_FAULT (transport_fault.h) can
// garble, duplicate or drop one send for the tests.
// The C API only (no deprecated C++ bindings).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include "pipesplit/runtime/dist/transport.h"
#include "src/runtime/dist/peer_process.h"
#include "src/runtime/dist/transport_fault.h"
#include "src/runtime/dist/transport_wire.h"

namespace pipesplit::runtime {
namespace {

constexpr int kHeaderTag = 101;
constexpr int kBodyTag = 102;
constexpr int kAbortTag = 103;
constexpr int64_t kChunk = int64_t{1} << 30;
constexpr auto kPeerCheckInterval = std::chrono::milliseconds(100);
constexpr auto kAbortGrace = std::chrono::milliseconds(200);

// Set when a peer was found dead: MPI_Finalize is a collective fence that would wait for it.
std::atomic<bool> peer_lost{false};
// Every rank's process, by rank (set when the transport starts; read by FinalizeMpi).
std::vector<ProcessIdentity> peer_processes;

std::string GoneMessage(int peer, int64_t pid) {
  return "worker " + std::to_string(peer) + " (MPI rank " + std::to_string(peer) + ", pid " +
         std::to_string(pid) + ") is gone: it exited or was killed";
}

void EnsureInit() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    DieWithLauncher();
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  }
}

class MpiTransport : public Transport {
 public:
  MpiTransport(std::chrono::milliseconds send_timeout, std::optional<Fault> fault)
      : send_timeout_(send_timeout), fault_(fault) {
    EnsureInit();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    sent_.assign(size_, 0);
    received_.assign(size_, 0);
    ProcessIdentity self = SelfIdentity();
    peers_.resize(size_);
    MPI_Allgather(&self, sizeof(self), MPI_BYTE, peers_.data(), sizeof(self), MPI_BYTE,
                  MPI_COMM_WORLD);
    peer_processes = peers_;
    if (fault_ && (!fault_->on_wire() || fault_->worker != rank_)) fault_.reset();
  }

  ~MpiTransport() override {
    for (MPI_Request& r : abort_requests_) MPI_Request_free(&r);
  }

  int num_workers() const override { return size_; }

  void Send(int from, int to, const Tensor& tensor) override {
    CheckPeer(from == rank_ ? to : from);
    CheckPeer(to);
    const int64_t seq = sent_[to]++;
    std::vector<char> message = wire::EncodeHeader(tensor, seq);
    const bool inline_body = tensor.nbytes() <= wire::kInlineBytes;
    int header_copies = 1;
    if (fault_ && seq == fault_->send_index) {
      AnnounceFault(*fault_);
      if (fault_->kind == Fault::Kind::kDrop) return;
      if (fault_->kind == Fault::Kind::kDuplicate) header_copies = 2;
      if (fault_->kind == Fault::Kind::kGarble) message[0] ^= 0x5a;
    }
    std::vector<MPI_Request> requests(header_copies);
    for (MPI_Request& r : requests) {
      MPI_Isend(message.data(), static_cast<int>(message.size()), MPI_BYTE, to, kHeaderTag,
                MPI_COMM_WORLD, &r);
    }
    const char* bytes = static_cast<const char*>(tensor.raw_data());
    for (int64_t offset = 0; !inline_body && offset < tensor.nbytes(); offset += kChunk) {
      int count = static_cast<int>(std::min(kChunk, tensor.nbytes() - offset));
      requests.emplace_back();
      MPI_Isend(bytes + offset, count, MPI_BYTE, to, kBodyTag, MPI_COMM_WORLD, &requests.back());
    }
    Wait(requests, send_timeout_, to, "sending a tensor to worker " + std::to_string(to));
  }

  Tensor Recv(int to, int from, std::chrono::milliseconds timeout) override {
    CheckPeer(from);
    auto start = std::chrono::steady_clock::now();
    auto deadline = start + timeout;
    MPI_Status status;
    for (;;) {
      // A tensor already sent is taken even when its sender has failed since: the abort fails
      // the next operation that has to wait.
      int flag = 0;
      MPI_Iprobe(from, kHeaderTag, MPI_COMM_WORLD, &flag, &status);
      if (flag) break;
      CheckAbort();
      auto now = std::chrono::steady_clock::now();
      if (now > deadline) {
        throw RuntimeError("timed out after " + Seconds(timeout) +
                           " waiting for a tensor from worker " + std::to_string(from));
      }
      CheckAlive(from, now, "waiting for a tensor from it");
      Backoff(now - start);
    }
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    std::vector<char> message(std::max(count, 0));
    MPI_Recv(message.data(), count, MPI_BYTE, from, kHeaderTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    wire::Header header = wire::DecodeHeader(message, from);
    const int64_t expected = received_[from];
    if (header.seq != expected) {
      throw RuntimeError(header.seq < expected
                             ? "tensor #" + std::to_string(header.seq) + " from worker " +
                                   std::to_string(from) + " arrived twice (a duplicated message)"
                             : "tensor #" + std::to_string(expected) + " from worker " +
                                   std::to_string(from) +
                                   " never arrived (a lost message): tensor #" +
                                   std::to_string(header.seq) + " came instead");
    }
    ++received_[from];
    if (header.inline_body) return wire::DecodeInlineTensor(header, message);
    const int64_t nbytes = header.nbytes;
    TensorBuilder builder(header.dtype, header.shape);
    char* bytes = static_cast<char*>(builder.raw_data());
    std::vector<MPI_Request> requests;
    for (int64_t offset = 0; offset < nbytes; offset += kChunk) {
      int chunk = static_cast<int>(std::min(kChunk, nbytes - offset));
      requests.emplace_back();
      MPI_Irecv(bytes + offset, chunk, MPI_BYTE, from, kBodyTag, MPI_COMM_WORLD, &requests.back());
    }
    Wait(requests, timeout, from, "receiving a tensor from worker " + std::to_string(from));
    (void)to;
    return std::move(builder).Publish();
  }

  void Abort(int from, const std::string& reason) override {
    if (aborting_) return;
    aborting_ = true;
    abort_message_ = AbortMessage(from, reason);
    for (int r = 0; r < size_; ++r) {
      if (r == rank_) continue;
      abort_requests_.emplace_back();
      MPI_Isend(abort_message_.data(), static_cast<int>(abort_message_.size()), MPI_CHAR, r,
                kAbortTag, MPI_COMM_WORLD, &abort_requests_.back());
    }
  }

 private:
  static std::string Seconds(std::chrono::milliseconds ms) {
    if (ms.count() % 1000 == 0) return std::to_string(ms.count() / 1000) + " s";
    return std::to_string(ms.count()) + " ms";
  }

  // Busy-polls while a message is likely imminent, then yields the core (ranks may outnumber
  // cores), then sleeps briefly so a long wait costs no CPU.
  static void Backoff(std::chrono::steady_clock::duration waited) {
    if (waited < std::chrono::microseconds(200)) return;
    if (waited < std::chrono::milliseconds(20)) {
      std::this_thread::yield();
      return;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }

  void CheckPeer(int peer) const {
    if (peer < 0 || peer >= size_) {
      throw RuntimeError("no worker " + std::to_string(peer) + " among " + std::to_string(size_) +
                         " MPI ranks");
    }
  }

  // Throws TransportAborted when another rank has announced a failure (then on every later
  // call too).
  void CheckAbort() {
    if (received_abort_) throw TransportAborted(*received_abort_);
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kAbortTag, MPI_COMM_WORLD, &flag, &status);
    if (!flag) return;
    int count = 0;
    MPI_Get_count(&status, MPI_CHAR, &count);
    std::string message(std::max(count, 0), '\0');
    MPI_Recv(message.data(), count, MPI_CHAR, status.MPI_SOURCE, kAbortTag, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    aborting_ = true;  // do not re-broadcast
    received_abort_ = message;
    throw TransportAborted(message);
  }

  // Throws when `peer` runs on this host and is gone; checks at most once per
  // kPeerCheckInterval.
  void CheckAlive(int peer, std::chrono::steady_clock::time_point now, const std::string& doing) {
    if (now - last_peer_check_ < kPeerCheckInterval) return;
    last_peer_check_ = now;
    if (ProcessAlive(peers_[peer])) return;
    peer_lost = true;
    throw RuntimeError(GoneMessage(peer, peers_[peer].pid) + " while worker " +
                       std::to_string(rank_) + " was " + doing);
  }

  void Wait(std::vector<MPI_Request>& requests, std::chrono::milliseconds timeout, int peer,
            const std::string& what) {
    auto start = std::chrono::steady_clock::now();
    auto deadline = start + timeout;
    for (;;) {
      int done = 0;
      MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
      if (done) return;
      try {
        CheckAbort();
      } catch (...) {
        // A peer may fail right after taking this message, before this rank saw the request
        // complete: a message delivered is not failed (the abort fails the next operation).
        if (CompletesWithin(requests, kAbortGrace)) return;
        for (MPI_Request& r : requests) {
          if (r != MPI_REQUEST_NULL) {
            MPI_Cancel(&r);
            MPI_Request_free(&r);
          }
        }
        throw;
      }
      auto now = std::chrono::steady_clock::now();
      if (now > deadline) throw RuntimeError("timed out after " + Seconds(timeout) + " " + what);
      CheckAlive(peer, now, what);
      Backoff(now - start);
    }
  }

  // Whether `requests` complete within `grace`.
  static bool CompletesWithin(std::vector<MPI_Request>& requests, std::chrono::milliseconds grace) {
    const auto deadline = std::chrono::steady_clock::now() + grace;
    do {
      int done = 0;
      MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
      if (done) return true;
      std::this_thread::yield();
    } while (std::chrono::steady_clock::now() < deadline);
    return false;
  }

  std::chrono::milliseconds send_timeout_;
  std::optional<Fault> fault_;     // a wire fault this rank injects (tests only)
  std::vector<int64_t> sent_;      // tensors sent to each rank: the next sequence number
  std::vector<int64_t> received_;  // tensors received from each rank
  int rank_ = 0;
  int size_ = 1;
  bool aborting_ = false;
  std::string abort_message_;
  std::optional<std::string> received_abort_;  // the failure another rank announced
  std::vector<MPI_Request> abort_requests_;
  std::vector<ProcessIdentity> peers_;  // every rank's process, by rank
  std::chrono::steady_clock::time_point last_peer_check_{};
};

}  // namespace

std::unique_ptr<Transport> MakeMpiTransport(std::chrono::milliseconds send_timeout) {
  std::optional<Fault> fault = FaultFromEnvironment();
  std::unique_ptr<Transport> transport = std::make_unique<MpiTransport>(send_timeout, fault);
  if (!fault || fault->on_wire()) return transport;
  return InjectFault(std::move(transport), *fault, /*wire_capable=*/true);
}

int MpiRank() {
  EnsureInit();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int MpiWorldSize() {
  EnsureInit();
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

std::optional<std::string> FinalizeMpi() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) return std::nullopt;
  // MPI_Finalize waits for every rank, a dead one included. So first wait for all ranks in a
  // barrier polled beside the liveness of the ranks on this host: a rank that died (SIGKILL, the
  // OOM killer) ends the wait here, whether or not mpirun has noticed it yet.
  if (peer_lost) return std::string();
  MPI_Request barrier;
  MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
  auto last_check = std::chrono::steady_clock::now();
  for (;;) {
    int done = 0;
    MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
    if (done) break;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    auto now = std::chrono::steady_clock::now();
    if (now - last_check < kPeerCheckInterval) continue;
    last_check = now;
    for (size_t r = 0; r < peer_processes.size(); ++r) {
      if (ProcessAlive(peer_processes[r])) continue;
      peer_lost = true;
      return GoneMessage(static_cast<int>(r), peer_processes[r].pid) + " before the end of the run";
    }
  }
  MPI_Finalize();
  return std::nullopt;
}

}  // namespace pipesplit::runtime
