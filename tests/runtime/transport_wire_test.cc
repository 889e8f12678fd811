// The MPI transport's wire format without MPI: round trips, and the named error for each way a
// header can be garbled (src/runtime/dist/transport_wire.h); the PIPESPLIT_FAULT syntax.
#include "src/runtime/dist/transport_wire.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "src/runtime/dist/transport_fault.h"

namespace pipesplit::runtime {
namespace {

using testing::HasSubstr;

std::vector<char> Words(const std::vector<int64_t>& words) {
  std::vector<char> out(words.size() * sizeof(int64_t));
  std::memcpy(out.data(), words.data(), out.size());
  return out;
}

std::string DecodeError(const std::vector<char>& message) {
  try {
    wire::DecodeHeader(message, 3);
  } catch (const RuntimeError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(TransportWireTest, InlineTensorRoundTrips) {
  Tensor t = MakeTensor(DataType::Float(32), {2, 3}, {1, 2, 3, 4, 5, 6});
  std::vector<char> message = wire::EncodeHeader(t, 5);
  // 7 fixed words, 2 dims, 24 body bytes.
  EXPECT_EQ(message.size(), 9 * sizeof(int64_t) + 24);
  wire::Header h = wire::DecodeHeader(message, 0);
  EXPECT_EQ(h.seq, 5);
  EXPECT_TRUE(h.inline_body);
  EXPECT_EQ(h.shape, (Shape{2, 3}));
  EXPECT_TRUE(BitwiseEqual(wire::DecodeInlineTensor(h, message), t));
}

TEST(TransportWireTest, LargeBodyIsNotInline) {
  Tensor t = MakeTensor(DataType::Float(32), {20000}, std::vector<double>(20000, 1.0));
  std::vector<char> message = wire::EncodeHeader(t, 0);
  EXPECT_EQ(message.size(), 8 * sizeof(int64_t));
  wire::Header h = wire::DecodeHeader(message, 0);
  EXPECT_FALSE(h.inline_body);
  EXPECT_EQ(h.nbytes, 80000);
}

TEST(TransportWireTest, GarbledHeadersAreNamed) {
  const int64_t m = wire::kMagic;
  const std::string malformed = "malformed tensor header from worker 3";
  EXPECT_EQ(DecodeError(Words({m, 0, 2, 32})), malformed);                     // short
  EXPECT_EQ(DecodeError(Words({m + 1, 0, 2, 32, 1, 1, 8, 2, 0})), malformed);  // magic
  EXPECT_EQ(DecodeError(Words({m, -1, 2, 32, 1, 1, 8, 2, 0})), malformed);     // seq
  EXPECT_EQ(DecodeError(Words({m, 0, 2, 32, 1, 5, 8, 2, 0})), malformed);      // ndim
  EXPECT_EQ(DecodeError(Words({m, 0, 2, 32, 1, -1, 8, 2, 0})), malformed);     // ndim < 0
  EXPECT_EQ(DecodeError(Words({m, 0, 300, 32, 1, 1, 8, 2, 0})), malformed);    // code
  EXPECT_EQ(DecodeError(Words({m, 0, 2, 0, 1, 1, 8, 2, 0})), malformed);       // bits
  EXPECT_EQ(DecodeError(Words({m, 0, 2, 65568, 1, 1, 8, 2, 0})), malformed);   // bits
  EXPECT_EQ(DecodeError(Words({m, 0, 2, 32, 0, 1, 8, 2, 0})), malformed);      // lanes
  EXPECT_EQ(DecodeError(Words({m, 0, 2, 32, 1, 1, 8, -2, 0})), malformed);     // dim < 0
  EXPECT_EQ(DecodeError(Words({m, 0, 2, 32, 1, 1, 16, 2, 0})), malformed);     // body short
  EXPECT_EQ(DecodeError(Words({m, 0, 2, 32, 1, 1, -8, 2, 0})), malformed);     // nbytes < 0
  EXPECT_EQ(DecodeError(Words({m, 0, 2, 32, 1, 1, 8, 4, 0})),
            "tensor from worker 3 announces 8 bytes for float32[4]");
  // A shape whose byte count overflows is rejected before anything is allocated.
  EXPECT_THAT(DecodeError(Words({m, 0, 2, 32, 1, 2, 1 << 20, int64_t{1} << 40, int64_t{1} << 40})),
              HasSubstr("tensor from worker 3 announces 1048576 bytes"));
}

TEST(TransportFaultTest, ParsesTheSpec) {
  Fault f = ParseFault("duplicate@2:5");
  EXPECT_EQ(f.kind, Fault::Kind::kDuplicate);
  EXPECT_EQ(f.worker, 2);
  EXPECT_EQ(f.send_index, 5);
  EXPECT_TRUE(f.on_wire());
  Fault k = ParseFault("kill@1");
  EXPECT_EQ(k.kind, Fault::Kind::kKill);
  EXPECT_EQ(k.send_index, 0);
  EXPECT_FALSE(k.on_wire());
}

TEST(TransportFaultTest, MalformedSpecsAreNamed) {
  for (const char* spec :
       {"", "throw", "explode@1", "throw@", "throw@x", "throw@1:", "throw@1:-2"}) {
    try {
      ParseFault(spec);
      ADD_FAILURE() << spec << " accepted";
    } catch (const RuntimeError& e) {
      EXPECT_THAT(e.what(), HasSubstr("PIPESPLIT_FAULT: expected <kind>@<worker>[:<n>]")) << spec;
    }
  }
}

TEST(TransportFaultTest, WireFaultsNeedMpi) {
  EXPECT_THROW(InjectFault(MakeThreadTransport(2), ParseFault("garble@0"), false), RuntimeError);
  EXPECT_THROW(InjectFault(MakeThreadTransport(2), ParseFault("kill@0"), false), RuntimeError);
}

TEST(TransportFaultTest, ThrowAndShapeFaultsOnThreads) {
  auto throwing = InjectFault(MakeThreadTransport(2), ParseFault("throw@0:1"), false);
  Tensor t = MakeTensor(DataType::Float(32), {2}, {1, 2});
  throwing->Send(0, 1, t);  // send 0 passes
  EXPECT_THROW(throwing->Send(0, 1, t), std::runtime_error);
  auto reshaping = InjectFault(MakeThreadTransport(2), ParseFault("shape@0"), false);
  reshaping->Send(0, 1, t);
  EXPECT_EQ(reshaping->Recv(1, 0, std::chrono::seconds(1)).shape(), (Shape{2, 1}));
}

}  // namespace
}  // namespace pipesplit::runtime
