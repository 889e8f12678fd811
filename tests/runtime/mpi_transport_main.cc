// MPI transport round trip, run by ctest under `mpirun -np 2`: rank 0 sends tensors of several
// dtypes and sizes (empty, inline bodies up to the 64 KiB boundary, chunked bodies past it) and
// rank 1 checks each arrives bit for bit with its dtype and shape, then sends one back. Then
// rank 0 sends raw messages a peer could garble, and rank 1 checks each is a named error.
// Exit status 0 when every check passed on both ranks.
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "pipesplit/runtime/dist/transport.h"
#include "pipesplit/runtime/tensor/tensor.h"

namespace {

using namespace pipesplit;

runtime::Tensor Pattern(DataType dtype, runtime::Shape shape, int seed) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<double> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) values[i] = static_cast<double>((i * 7 + seed) % 13) * 0.5;
  return runtime::MakeTensor(dtype, std::move(shape), values);
}

struct Case {
  DataType dtype;
  runtime::Shape shape;
};

}  // namespace

int main() {
  auto transport = runtime::MakeMpiTransport(std::chrono::seconds(30));
  const int rank = runtime::MpiRank();
  if (runtime::MpiWorldSize() != 2) {
    std::fprintf(stderr, "run with mpirun -np 2\n");
    return 1;
  }
  const std::vector<Case> cases = {
      {DataType::Float(32), {0}},        {DataType::Float(32), {3}},
      {DataType::Float(32), {16384}},    {DataType::Float(32), {16385}},
      {DataType::Float(32), {512, 512}}, {DataType::Int(64), {5, 7}},
      {DataType::Bool(), {9}},           {DataType::Float(16), {33}},
      {DataType::Float(32), {2, 0, 4}},  {DataType::Int(32), {}},
  };
  int failures = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    runtime::Tensor expected = Pattern(cases[i].dtype, cases[i].shape, static_cast<int>(i));
    if (rank == 0) {
      transport->Send(0, 1, expected);
    } else {
      runtime::Tensor got = transport->Recv(1, 0, std::chrono::seconds(30));
      if (!runtime::BitwiseEqual(got, expected)) {
        std::fprintf(stderr, "case %zu: received %s%s, expected %s%s\n", i,
                     got.dtype().ToString().c_str(), runtime::ShapeToString(got.shape()).c_str(),
                     expected.dtype().ToString().c_str(),
                     runtime::ShapeToString(expected.shape()).c_str());
        ++failures;
      }
    }
  }
  runtime::Tensor back = Pattern(DataType::Float(32), {70000}, 5);
  if (rank == 1) {
    transport->Send(1, 0, back);
  } else if (!runtime::BitwiseEqual(transport->Recv(0, 1, std::chrono::seconds(30)), back)) {
    std::fprintf(stderr, "the reply differs\n");
    ++failures;
  }
  // Garbled messages on the header tag (the transport's wire format, see transport_mpi.cc).
  constexpr int kHeaderTag = 101;
  constexpr int64_t kMagic = 0x7073706c6974;
  struct Garbled {
    std::vector<int64_t> words;  // header, then the inline body as whole words
    std::string expected;
  };
  // Words: magic, sequence number (rank 0 sent tensors #0..#9 so far), dtype code, bits,
  // lanes, ndim, nbytes, dims, inline body.
  const int64_t next = static_cast<int64_t>(cases.size());
  const std::vector<Garbled> garbled = {
      {{42, next, 2, 32, 1, 1, 16, 4, 0, 0}, "malformed tensor header from worker 0"},
      {{kMagic, next, 2, 32, 1, 1, 16, 4}, "malformed tensor header from worker 0"},  // no body
      {{kMagic, next, 2, 65568, 1, 1, 16, 4, 0, 0}, "malformed tensor header from worker 0"},
      {{kMagic, next, 2, 32, 1, 1, 8, 4, 0},
       "tensor from worker 0 announces 8 bytes for float32[4]"},
      {{kMagic, next - 1, 2, 32, 1, 1, 8, 2, 0},
       "tensor #9 from worker 0 arrived twice (a duplicated message)"},
      {{kMagic, next + 2, 2, 32, 1, 1, 8, 2, 0},
       "tensor #10 from worker 0 never arrived (a lost message): tensor #12 came instead"},
  };
  for (const Garbled& g : garbled) {
    if (rank == 0) {
      MPI_Send(g.words.data(), static_cast<int>(g.words.size() * sizeof(int64_t)), MPI_BYTE, 1,
               kHeaderTag, MPI_COMM_WORLD);
      continue;
    }
    try {
      transport->Recv(1, 0, std::chrono::seconds(30));
      std::fprintf(stderr, "garbled message accepted; expected: %s\n", g.expected.c_str());
      ++failures;
    } catch (const runtime::RuntimeError& e) {
      if (std::string(e.what()) != g.expected) {
        std::fprintf(stderr, "error '%s', expected '%s'\n", e.what(), g.expected.c_str());
        ++failures;
      }
    }
  }
  transport.reset();
  runtime::FinalizeMpi();
  if (failures == 0 && rank == 1) {
    std::printf("%zu tensors matched, %zu garbled messages rejected\n", cases.size(),
                garbled.size());
  }
  return failures == 0 ? 0 : 1;
}
