// The MPI transport's wire format (see transport_wire.h).
#include "src/runtime/dist/transport_wire.h"

#include <cstring>
#include <limits>
#include <string>

namespace pipesplit::runtime::wire {

std::vector<char> EncodeHeader(const Tensor& tensor, int64_t seq) {
  std::vector<int64_t> words = {kMagic,
                                seq,
                                static_cast<int64_t>(tensor.dtype().code()),
                                tensor.dtype().bits(),
                                tensor.dtype().lanes(),
                                tensor.ndim(),
                                tensor.nbytes()};
  words.insert(words.end(), tensor.shape().begin(), tensor.shape().end());
  const size_t header_bytes = words.size() * sizeof(int64_t);
  const bool inline_body = tensor.nbytes() <= kInlineBytes;
  std::vector<char> message(header_bytes + (inline_body ? tensor.nbytes() : 0));
  std::memcpy(message.data(), words.data(), header_bytes);
  if (inline_body && tensor.nbytes() > 0) {
    std::memcpy(message.data() + header_bytes, tensor.raw_data(), tensor.nbytes());
  }
  return message;
}

Header DecodeHeader(std::span<const char> message, int from) {
  auto malformed = [&] {
    return RuntimeError("malformed tensor header from worker " + std::to_string(from));
  };
  const size_t fixed_bytes = kFixedWords * sizeof(int64_t);
  if (message.size() < fixed_bytes) throw malformed();
  int64_t fixed[kFixedWords];
  std::memcpy(fixed, message.data(), fixed_bytes);
  const int64_t code = fixed[2], bits = fixed[3], lanes = fixed[4], ndim = fixed[5];
  Header header;
  header.seq = fixed[1];
  header.nbytes = fixed[6];
  const int64_t max_ndim = static_cast<int64_t>((message.size() - fixed_bytes) / sizeof(int64_t));
  if (fixed[0] != kMagic || header.seq < 0 || ndim < 0 || ndim > max_ndim || code < 0 ||
      code > std::numeric_limits<uint8_t>::max() || bits < 1 ||
      bits > std::numeric_limits<uint16_t>::max() || lanes < 1 ||
      lanes > std::numeric_limits<uint16_t>::max() || header.nbytes < 0) {
    throw malformed();
  }
  header.body_offset = fixed_bytes + static_cast<size_t>(ndim) * sizeof(int64_t);
  header.inline_body = header.nbytes <= kInlineBytes;
  if (message.size() !=
      header.body_offset + (header.inline_body ? static_cast<size_t>(header.nbytes) : 0)) {
    throw malformed();
  }
  header.dtype = DataType(static_cast<DataType::Code>(code), static_cast<uint16_t>(bits),
                          static_cast<uint16_t>(lanes));
  if (!IsStorableDType(header.dtype)) throw malformed();
  header.shape.resize(static_cast<size_t>(ndim));
  if (ndim > 0) {
    std::memcpy(header.shape.data(), message.data() + fixed_bytes, ndim * sizeof(int64_t));
  }
  for (int64_t d : header.shape) {
    if (d < 0) throw malformed();
  }
  // The byte count dtype and shape need, without overflow: a garbled shape must not make the
  // receiver allocate.
  int64_t expected = header.dtype.bytes();
  bool overflow = false;
  for (int64_t d : header.shape) {
    if (d != 0 && expected > std::numeric_limits<int64_t>::max() / d) overflow = true;
    expected = overflow ? expected : expected * d;
  }
  if (overflow || expected != header.nbytes) {
    throw RuntimeError("tensor from worker " + std::to_string(from) + " announces " +
                       std::to_string(header.nbytes) + " bytes for " + header.dtype.ToString() +
                       ShapeToString(header.shape));
  }
  return header;
}

Tensor DecodeInlineTensor(const Header& header, std::span<const char> message) {
  TensorBuilder builder(header.dtype, header.shape);
  if (header.nbytes > 0) {
    std::memcpy(builder.raw_data(), message.data() + header.body_offset, header.nbytes);
  }
  return std::move(builder).Publish();
}

}  // namespace pipesplit::runtime::wire
