// MPI transport round trip, run by ctest under `mpirun -np 2`: rank 0 sends tensors of several
// dtypes and sizes (empty, inline bodies up to the 64 KiB boundary, chunked bodies past it) and
// rank 1 checks each arrives bit for bit with its dtype and shape, then sends one back.
// Exit status 0 when every tensor matched on both ranks.
#include <cstdio>
#include <vector>

#include "pipesplit/runtime/tensor.h"
#include "pipesplit/runtime/transport.h"

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
  transport.reset();
  runtime::FinalizeMpi();
  if (failures == 0 && rank == 1) std::printf("%zu tensors matched\n", cases.size());
  return failures == 0 ? 0 : 1;
}
