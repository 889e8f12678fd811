// OpenBLAS, loaded on first use. Linked normally, OpenBLAS starts its thread pool (one thread
// per core, spinning for a while before it sleeps) when the process starts, in every command:
// the compiler commands, which never multiply a matrix, lost a core to it. It is opened here
// (dlopen) on the first gemm instead, and never closed.
#ifndef PIPESPLIT_SRC_RUNTIME_KERNELS_BLAS_H_
#define PIPESPLIT_SRC_RUNTIME_KERNELS_BLAS_H_

#include <cblas.h>

namespace pipesplit::runtime::blas {

struct Api {
  void (*sgemm)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, int, int, int, float, const float*,
                int, const float*, int, float, float*, int) = nullptr;
  void (*dgemm)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, int, int, int, double, const double*,
                int, const double*, int, double, double*, int) = nullptr;
  void (*set_num_threads)(int) = nullptr;  // OpenBLAS's own; null for another BLAS
};

// The library's entry points, loading it on the first call (thread-safe). Throws a runtime
// error naming the library when it cannot be opened or lacks cblas_sgemm / cblas_dgemm.
const Api& Get();

// Whether Get() has loaded the library (nothing is loaded by asking).
bool Loaded();

// Opens the BLAS library at `path` (Get() opens the one CMake found). Throws a runtime error
// naming it when it cannot be opened or lacks cblas_sgemm / cblas_dgemm.
Api Load(const char* path);

}  // namespace pipesplit::runtime::blas

#endif  // PIPESPLIT_SRC_RUNTIME_KERNELS_BLAS_H_
