// MPI transport (see transport.h). Messages between a pair of ranks: a header on kHeaderTag
// (int64: magic, dtype code, bits, lanes, ndim, nbytes, dims...), sent as bytes. A body of at
// most kInlineBytes follows the header in the same message (one message, one copy: cheaper
// than a second message for small tensors); a larger body follows on kBodyTag in chunks of at
// most 1 GiB, received straight into the tensor. Aborts travel on kAbortTag to every other
// rank. Every wait polls (spin, then yield, then short sleeps), so a dead or silent peer ends
// in a timeout, never a hang.
// The C API only (no deprecated C++ bindings).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "pipesplit/runtime/transport.h"

namespace pipesplit::runtime {
namespace {

constexpr int kHeaderTag = 101;
constexpr int kBodyTag = 102;
constexpr int kAbortTag = 103;
constexpr int64_t kMagic = 0x7073706c6974;  // "psplit"
constexpr int64_t kChunk = int64_t{1} << 30;
constexpr int64_t kInlineBytes = int64_t{64} << 10;
constexpr int64_t kFixedHeader = 6;  // int64 fields before the dims

void EnsureInit() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  }
}

class MpiTransport : public Transport {
 public:
  explicit MpiTransport(std::chrono::milliseconds send_timeout) : send_timeout_(send_timeout) {
    EnsureInit();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }

  ~MpiTransport() override {
    for (MPI_Request& r : abort_requests_) MPI_Request_free(&r);
  }

  int num_workers() const override { return size_; }

  void Send(int from, int to, const Tensor& tensor) override {
    CheckPeer(from == rank_ ? to : from);
    std::vector<int64_t> header = {kMagic,
                                   static_cast<int64_t>(tensor.dtype().code()),
                                   tensor.dtype().bits(),
                                   tensor.dtype().lanes(),
                                   tensor.ndim(),
                                   tensor.nbytes()};
    header.insert(header.end(), tensor.shape().begin(), tensor.shape().end());
    const size_t header_bytes = header.size() * sizeof(int64_t);
    const bool inline_body = tensor.nbytes() <= kInlineBytes;
    std::vector<char> message(header_bytes + (inline_body ? tensor.nbytes() : 0));
    std::memcpy(message.data(), header.data(), header_bytes);
    if (inline_body && tensor.nbytes() > 0) {
      std::memcpy(message.data() + header_bytes, tensor.raw_data(), tensor.nbytes());
    }
    std::vector<MPI_Request> requests(1);
    MPI_Isend(message.data(), static_cast<int>(message.size()), MPI_BYTE, to, kHeaderTag,
              MPI_COMM_WORLD, &requests[0]);
    const char* bytes = static_cast<const char*>(tensor.raw_data());
    for (int64_t offset = 0; !inline_body && offset < tensor.nbytes(); offset += kChunk) {
      int count = static_cast<int>(std::min(kChunk, tensor.nbytes() - offset));
      requests.emplace_back();
      MPI_Isend(bytes + offset, count, MPI_BYTE, to, kBodyTag, MPI_COMM_WORLD, &requests.back());
    }
    Wait(requests, send_timeout_, "sending a tensor to worker " + std::to_string(to));
  }

  Tensor Recv(int to, int from, std::chrono::milliseconds timeout) override {
    CheckPeer(from);
    auto start = std::chrono::steady_clock::now();
    auto deadline = start + timeout;
    MPI_Status status;
    for (;;) {
      CheckAbort();
      int flag = 0;
      MPI_Iprobe(from, kHeaderTag, MPI_COMM_WORLD, &flag, &status);
      if (flag) break;
      auto now = std::chrono::steady_clock::now();
      if (now > deadline) {
        throw RuntimeError("timed out after " + Seconds(timeout) +
                           " waiting for a tensor from worker " + std::to_string(from));
      }
      Backoff(now - start);
    }
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    std::vector<char> message(std::max(count, 0));
    MPI_Recv(message.data(), count, MPI_BYTE, from, kHeaderTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    auto malformed = [&] {
      return RuntimeError("malformed tensor header from worker " + std::to_string(from));
    };
    const size_t fixed_bytes = kFixedHeader * sizeof(int64_t);
    if (message.size() < fixed_bytes) throw malformed();
    int64_t fixed[kFixedHeader];
    std::memcpy(fixed, message.data(), fixed_bytes);
    const int64_t ndim = fixed[4], nbytes = fixed[5];
    if (fixed[0] != kMagic || ndim < 0 || ndim > (count - static_cast<int64_t>(fixed_bytes)) / 8) {
      throw malformed();
    }
    const size_t header_bytes = fixed_bytes + static_cast<size_t>(ndim) * sizeof(int64_t);
    const bool inline_body = nbytes >= 0 && nbytes <= kInlineBytes;
    if (message.size() != header_bytes + (inline_body ? static_cast<size_t>(nbytes) : 0)) {
      throw malformed();
    }
    DataType dtype(static_cast<DataType::Code>(fixed[1]), static_cast<uint16_t>(fixed[2]),
                   static_cast<uint16_t>(fixed[3]));
    Shape shape(static_cast<size_t>(ndim));
    if (ndim > 0) std::memcpy(shape.data(), message.data() + fixed_bytes, ndim * sizeof(int64_t));
    TensorBuilder builder(dtype, shape);
    if (builder.nbytes() != nbytes) {
      throw RuntimeError("tensor from worker " + std::to_string(from) + " announces " +
                         std::to_string(nbytes) + " bytes for " + dtype.ToString() +
                         ShapeToString(shape));
    }
    char* bytes = static_cast<char*>(builder.raw_data());
    if (inline_body) {
      if (nbytes > 0) std::memcpy(bytes, message.data() + header_bytes, nbytes);
      return std::move(builder).Publish();
    }
    std::vector<MPI_Request> requests;
    for (int64_t offset = 0; offset < nbytes; offset += kChunk) {
      int chunk = static_cast<int>(std::min(kChunk, nbytes - offset));
      requests.emplace_back();
      MPI_Irecv(bytes + offset, chunk, MPI_BYTE, from, kBodyTag, MPI_COMM_WORLD, &requests.back());
    }
    Wait(requests, timeout, "receiving a tensor from worker " + std::to_string(from));
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

  // Throws TransportAborted when another rank has announced a failure.
  void CheckAbort() {
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
    throw TransportAborted(message);
  }

  void Wait(std::vector<MPI_Request>& requests, std::chrono::milliseconds timeout,
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
      Backoff(now - start);
    }
  }

  std::chrono::milliseconds send_timeout_;
  int rank_ = 0;
  int size_ = 1;
  bool aborting_ = false;
  std::string abort_message_;
  std::vector<MPI_Request> abort_requests_;
};

}  // namespace

std::unique_ptr<Transport> MakeMpiTransport(std::chrono::milliseconds send_timeout) {
  return std::make_unique<MpiTransport>(send_timeout);
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

void FinalizeMpi() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Finalize();
}

}  // namespace pipesplit::runtime
