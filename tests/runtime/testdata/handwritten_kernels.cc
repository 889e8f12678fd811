// A kernel library written by hand against support/kernel_abi.h, standing in for what the
// code generator emits, so the runtime's loading and calling are tested on their own:
//   add(A: float32[n], B: float32[n], C: float32[n])            C = A + B
//   scale_shift(X: float32[n], Y: float32[n], Z: float32[n], k)  Y = X * k, Z = X + k
//   accumulate(A: float32[n], B: float32[n])                     A += B (in place)
//   copy_f16(A: float16[n], B: float16[n])                       B = A (bit copy)
//   always_fails(A: float32[n], B: float32[n])                   returns an error
#include <cstdio>
#include <cstring>

#include "pipesplit/support/kernel_abi.h"

namespace {

int32_t Fail(char* error, int64_t size, const char* message) {
  std::snprintf(error, static_cast<size_t>(size), "%s", message);
  return 1;
}

bool IsVector(const PipesplitKernelArg& a, uint8_t code, uint8_t bits) {
  return a.ndim == 1 && a.data != nullptr && a.dtype_code == code && a.dtype_bits == bits;
}

// Checks `num` float32 vectors of one length n; returns n or -1 with `error` set.
int64_t CheckFloatVectors(const char* kernel, const PipesplitKernelArg* args, int32_t num,
                          char* error, int64_t size) {
  for (int32_t i = 0; i < num; ++i) {
    if (!IsVector(args[i], 2, 32)) {
      std::snprintf(error, static_cast<size_t>(size), "%s: argument %d is not a float32 vector",
                    kernel, i);
      return -1;
    }
    if (args[i].shape[0] != args[0].shape[0]) {
      std::snprintf(error, static_cast<size_t>(size), "%s: buffer %d: dim 0 is %lld, expected %lld",
                    kernel, i, static_cast<long long>(args[i].shape[0]),
                    static_cast<long long>(args[0].shape[0]));
      return -1;
    }
  }
  return args[0].shape[0];
}

}  // namespace

extern "C" {

int32_t pipesplit_kernel_abi_version(void) { return PIPESPLIT_KERNEL_ABI_VERSION; }

const char* pipesplit_kernel_names(void) {
  return "add\nscale_shift\naccumulate\ncopy_f16\nalways_fails";
}

int32_t pipesplit_kernel_add(const PipesplitKernelArg* args, int32_t num_args, char* error,
                             int64_t error_size) {
  if (num_args != 3) return Fail(error, error_size, "add: expected 3 arguments");
  int64_t n = CheckFloatVectors("add", args, 3, error, error_size);
  if (n < 0) return 1;
  const float* a = static_cast<const float*>(args[0].data);
  const float* b = static_cast<const float*>(args[1].data);
  float* c = static_cast<float*>(args[2].data);
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
  return 0;
}

int32_t pipesplit_kernel_scale_shift(const PipesplitKernelArg* args, int32_t num_args, char* error,
                                     int64_t error_size) {
  if (num_args != 4) return Fail(error, error_size, "scale_shift: expected 4 arguments");
  int64_t n = CheckFloatVectors("scale_shift", args, 3, error, error_size);
  if (n < 0) return 1;
  if (args[3].ndim != -1 || args[3].dtype_code != 0) {
    return Fail(error, error_size, "scale_shift: k must be an integer scalar");
  }
  const float* x = static_cast<const float*>(args[0].data);
  float* y = static_cast<float*>(args[1].data);
  float* z = static_cast<float*>(args[2].data);
  float k = static_cast<float>(args[3].scalar_int);
  for (int64_t i = 0; i < n; ++i) {
    y[i] = x[i] * k;
    z[i] = x[i] + k;
  }
  return 0;
}

int32_t pipesplit_kernel_accumulate(const PipesplitKernelArg* args, int32_t num_args, char* error,
                                    int64_t error_size) {
  if (num_args != 2) return Fail(error, error_size, "accumulate: expected 2 arguments");
  int64_t n = CheckFloatVectors("accumulate", args, 2, error, error_size);
  if (n < 0) return 1;
  float* a = static_cast<float*>(args[0].data);
  const float* b = static_cast<const float*>(args[1].data);
  for (int64_t i = 0; i < n; ++i) a[i] += b[i];
  return 0;
}

int32_t pipesplit_kernel_copy_f16(const PipesplitKernelArg* args, int32_t num_args, char* error,
                                  int64_t error_size) {
  if (num_args != 2 || !IsVector(args[0], 2, 16) || !IsVector(args[1], 2, 16) ||
      args[0].shape[0] != args[1].shape[0]) {
    return Fail(error, error_size, "copy_f16: expected two float16 vectors of one length");
  }
  std::memcpy(args[1].data, args[0].data, static_cast<size_t>(args[0].shape[0]) * 2);
  return 0;
}

int32_t pipesplit_kernel_always_fails(const PipesplitKernelArg*, int32_t, char* error,
                                      int64_t error_size) {
  return Fail(error, error_size, "always_fails: buffer A: dim 0 is 3, expected 4");
}

}  // extern "C"
