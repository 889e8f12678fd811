// The MPI transport's wire format for one tensor, kept apart from MPI so that it can be tested
// and fuzzed without MPI.
//
// A header message is int64 words: magic, sequence number, dtype code, bits, lanes, ndim,
// nbytes, then the ndim dims. A body of at most kInlineBytes follows the header in the same
// message; a larger body travels separately (transport_mpi.cc). The sequence number counts the
// tensors sent from one worker to another (0, 1, 2, ...), so a receiver notices a duplicated,
// lost or reordered tensor instead of using the wrong one.
#ifndef PIPESPLIT_SRC_RUNTIME_DIST_TRANSPORT_WIRE_H_
#define PIPESPLIT_SRC_RUNTIME_DIST_TRANSPORT_WIRE_H_

#include <cstdint>
#include <span>
#include <vector>

#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::runtime::wire {

constexpr int64_t kMagic = 0x7073706c6974;  // "psplit"
constexpr int64_t kInlineBytes = int64_t{64} << 10;
constexpr int64_t kFixedWords = 7;  // int64 fields before the dims

struct Header {
  int64_t seq = 0;
  DataType dtype;
  Shape shape;
  int64_t nbytes = 0;
  bool inline_body = false;
  size_t body_offset = 0;  // where an inline body starts in the message
};

// The header message of `tensor` (with its body when it is at most kInlineBytes).
std::vector<char> EncodeHeader(const Tensor& tensor, int64_t seq);

// Checks a header message received from worker `from` without allocating for the tensor:
// length, magic, dtype, dims, and that nbytes is what dtype and shape need. Throws RuntimeError
// "malformed tensor header from worker N" or "tensor from worker N announces ...".
Header DecodeHeader(std::span<const char> message, int from);

// The tensor of a header whose body is inline.
Tensor DecodeInlineTensor(const Header& header, std::span<const char> message);

}  // namespace pipesplit::runtime::wire

#endif  // PIPESPLIT_SRC_RUNTIME_DIST_TRANSPORT_WIRE_H_
