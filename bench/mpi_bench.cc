// MPI transport throughput: pipesplit's MPI transport vs plain MPI_Send/MPI_Recv of the same
// bytes, 1 KiB to 64 MiB. Run as `mpirun -np 2 pipesplit_mpi_bench` (rank 0 prints).
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "pipesplit/runtime/dist/transport.h"
#include "pipesplit/runtime/kernels/create.h"

using namespace pipesplit;

int main() {
  auto transport = runtime::MakeMpiTransport(std::chrono::seconds(60));
  int rank = runtime::MpiRank();
  if (runtime::MpiWorldSize() != 2) {
    if (rank == 0) std::fprintf(stderr, "run with mpirun -np 2\n");
    runtime::FinalizeMpi();
    return 1;
  }
  if (rank == 0)
    std::printf("%10s %14s %14s %8s\n", "bytes", "plain MB/s", "pipesplit MB/s", "ratio");
  for (int64_t bytes = 1024; bytes <= (int64_t{64} << 20); bytes *= 8) {
    int reps = static_cast<int>(std::max<int64_t>(4, (int64_t{256} << 20) / bytes / 4));
    runtime::Tensor t =
        runtime::FullValue(std::vector<int64_t>{bytes / 4}, 1.0, DataType::Float(32));
    std::vector<char> buffer(bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) {
      if (rank == 0) {
        MPI_Send(t.raw_data(), static_cast<int>(bytes), MPI_BYTE, 1, 7, MPI_COMM_WORLD);
      } else {
        MPI_Recv(buffer.data(), static_cast<int>(bytes), MPI_BYTE, 0, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double plain = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    start = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) {
      if (rank == 0) {
        transport->Send(0, 1, t);
      } else {
        runtime::Tensor r = transport->Recv(1, 0, std::chrono::seconds(60));
        (void)r;
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double ours = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (rank == 0) {
      double mb = static_cast<double>(bytes) * reps / 1e6;
      std::printf("%10lld %14.1f %14.1f %8.2f\n", static_cast<long long>(bytes), mb / plain,
                  mb / ours, ours / plain);
    }
  }
  transport.reset();
  runtime::FinalizeMpi();
  return 0;
}
