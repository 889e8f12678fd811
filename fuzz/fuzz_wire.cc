// libFuzzer target: the decoder of the MPI transport's tensor header message
// (src/runtime/dist/transport_wire.h), fed what a garbling peer could send. A message is either
// rejected with a RuntimeError naming the worker or decodes to a tensor whose encoding is the
// message itself.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "src/runtime/dist/transport_wire.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pipesplit::runtime;
  std::span<const char> message(reinterpret_cast<const char*>(data), size);
  wire::Header header;
  try {
    header = wire::DecodeHeader(message, 0);
  } catch (const RuntimeError&) {
    return 0;
  }
  if (!header.inline_body) return 0;  // the body would follow in other messages
  Tensor tensor = wire::DecodeInlineTensor(header, message);
  std::vector<char> again = wire::EncodeHeader(tensor, header.seq);
  if (again.size() != size || std::memcmp(again.data(), data, size) != 0) {
    std::fprintf(stderr, "FINDING: a decoded message encodes differently\n");
    std::abort();
  }
  return 0;
}
