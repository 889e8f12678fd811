#include "src/runtime/kernels/blas.h"

#include <dlfcn.h>

#include <atomic>
#include <mutex>
#include <string>

#include "src/runtime/kernels/kernel_util.h"

#ifndef PIPESPLIT_BLAS_LIBRARY
#error "PIPESPLIT_BLAS_LIBRARY (the BLAS shared library CMake found) must be defined"
#endif

namespace pipesplit::runtime::blas {
namespace {

std::atomic<bool> loaded{false};

}  // namespace

Api Load(const char* path) {
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    detail::ThrowError(std::string("cannot load the BLAS library ") + path + ": " +
                       (why != nullptr ? why : "unknown error"));
  }
  Api api;
  api.sgemm = reinterpret_cast<decltype(api.sgemm)>(dlsym(handle, "cblas_sgemm"));
  api.dgemm = reinterpret_cast<decltype(api.dgemm)>(dlsym(handle, "cblas_dgemm"));
  api.set_num_threads =
      reinterpret_cast<decltype(api.set_num_threads)>(dlsym(handle, "openblas_set_num_threads"));
  if (api.sgemm == nullptr || api.dgemm == nullptr) {
    detail::ThrowError(std::string("the BLAS library ") + path +
                       " has no cblas_sgemm / cblas_dgemm");
  }
  return api;
}

const Api& Get() {
  static std::once_flag once;
  static Api api;
  std::call_once(once, [] {
    api = Load(PIPESPLIT_BLAS_LIBRARY);
    loaded.store(true);
  });
  return api;
}

bool Loaded() { return loaded.load(); }

}  // namespace pipesplit::runtime::blas
