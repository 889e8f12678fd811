// The fixed part of every generated kernel source: value conversions for the 16-bit float
// types, integer arithmetic that wraps, floor division, intrinsics, argument checks and the
// error channel of the kernel ABI. Only the standard library is used.
#include "src/codegen/codegen_internal.h"

namespace pipesplit::codegen {

const char* KernelFloat16Config() {
  // Before the float16 text: kernels with F16C convert numbers in hardware, so the portable
  // code is their cold path (predefining PS_F16_PORTABLE as inline gives it inlined).
  return R"PSF16(
#if !defined(PS_F16_PORTABLE) && defined(__F16C__)
#define PS_F16_PORTABLE inline __attribute__((noinline, cold))
#endif
)PSF16";
}

const char* KernelPrelude() {
  return R"PSPRELUDE(
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <type_traits>
#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace {

#if defined(__clang__)
#define PS_IVDEP _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define PS_IVDEP _Pragma("GCC ivdep")
#else
#define PS_IVDEP
#endif
#if defined(__clang__)
#define PS_UNROLL _Pragma("clang loop unroll(full)")
#elif defined(__GNUC__)
#define PS_UNROLL _Pragma("GCC unroll 16")
#else
#define PS_UNROLL
#endif

// ---- float16 / bfloat16: stored as their bits, computed in float, rounded to nearest even,
// by pipesplit::f16 (the text of support/float16_bits.h, above; the runtime's definition).
// With F16C (-march=native on a CPU that has it) a conversion is one instruction, with the
// same bits for every float (NaNs included) and every half but NaNs, which the instruction
// would quiet; the portable code is then a cold call, so that an unrolled tile of conversions
// stays straight-line code (a fraction of the compile time).
inline uint16_t ps_f2h(float f) {
#if defined(__F16C__)
  return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT));
#else
  return pipesplit::f16::FloatToHalf(f);
#endif
}

inline float ps_h2f(uint16_t h) {
#if defined(__F16C__)
  if ((h & 0x7fffu) <= 0x7c00u) return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(h)));
#endif
  return pipesplit::f16::HalfToFloat(h);
}

inline uint16_t ps_f2bf(float f) { return pipesplit::f16::FloatToBFloat16(f); }
inline float ps_bf2f(uint16_t b) { return pipesplit::f16::BFloat16ToFloat(b); }

// Rounding to float16 in float: with F16C both conversions are instructions and the half in
// between is never a signaling NaN (the instruction quiets NaNs), so ps_h2f's NaN path is not
// needed: the same bits as ps_h2f(ps_f2h(f)), without a branch, and the half stays in a vector
// register (no round trip through an integer register: a float16 reduction chain runs 1.4x
// faster).
inline float ps_rf16(float f) {
#if defined(__F16C__)
  return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtps_ph(_mm_set_ss(f), _MM_FROUND_TO_NEAREST_INT)));
#else
  return ps_h2f(ps_f2h(f));
#endif
}
inline float ps_rbf16(float f) { return ps_bf2f(ps_f2bf(f)); }

// ---- Arithmetic: integers wrap (computed in uint64_t), floats as IEEE.
template <class T>
constexpr bool ps_is_int = std::is_integral<T>::value && !std::is_same<T, bool>::value;

template <class T>
inline T ps_add(T a, T b) {
  if constexpr (ps_is_int<T>) {
    return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  } else {
    return a + b;
  }
}
template <class T>
inline T ps_sub(T a, T b) {
  if constexpr (ps_is_int<T>) {
    return static_cast<T>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
  } else {
    return a - b;
  }
}
template <class T>
inline T ps_mul(T a, T b) {
  if constexpr (ps_is_int<T>) {
    return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  } else {
    return a * b;
  }
}
// Truncating division and remainder; x / 0 is 0 and MIN / -1 wraps (no trap).
template <class T>
inline T ps_truncdiv(T a, T b) {
  if constexpr (ps_is_int<T>) {
    if (b == 0) return 0;
    if constexpr (std::is_signed<T>::value) {
      if (b == -1) return ps_sub<T>(0, a);
    }
    return static_cast<T>(a / b);
  } else {
    return a / b;
  }
}
template <class T>
inline T ps_truncmod(T a, T b) {
  if constexpr (ps_is_int<T>) {
    if (b == 0) return 0;
    if constexpr (std::is_signed<T>::value) {
      if (b == -1) return 0;
    }
    return static_cast<T>(a % b);
  } else {
    return std::fmod(a, b);
  }
}
template <class T>
inline T ps_floordiv(T a, T b) {
  if constexpr (ps_is_int<T>) {
    T q = ps_truncdiv<T>(a, b);
    if constexpr (std::is_signed<T>::value) {
      T r = ps_truncmod<T>(a, b);
      if (r != 0 && ((r < 0) != (b < 0))) q = ps_sub<T>(q, 1);
    }
    return q;
  } else {
    return std::floor(a / b);
  }
}
template <class T>
inline T ps_floormod(T a, T b) {
  if constexpr (ps_is_int<T>) {
    T r = ps_truncmod<T>(a, b);
    if constexpr (std::is_signed<T>::value) {
      if (r != 0 && ((r < 0) != (b < 0))) r = ps_add<T>(r, b);
    }
    return r;
  } else {
    return a - std::floor(a / b) * b;
  }
}
template <class T>
inline T ps_min(T a, T b) { return a < b ? a : b; }
template <class T>
inline T ps_max(T a, T b) { return a > b ? a : b; }

template <class T>
inline T ps_shl(T a, T b) {
  uint64_t n = static_cast<uint64_t>(b);
  if (n >= sizeof(T) * 8) return 0;
  return static_cast<T>(static_cast<uint64_t>(a) << n);
}
template <class T>
inline T ps_shr(T a, T b) {
  uint64_t n = static_cast<uint64_t>(b);
  if (n >= sizeof(T) * 8) {
    if constexpr (std::is_unsigned<T>::value) return 0;
    n = sizeof(T) * 8 - 1;
  }
  return static_cast<T>(a >> n);
}
template <class T>
inline T ps_neg(T a) { return ps_sub<T>(0, a); }
template <class T>
inline T ps_abs(T a) {
  if constexpr (std::is_unsigned<T>::value) {
    return a;
  } else if constexpr (ps_is_int<T>) {
    return a < 0 ? ps_neg<T>(a) : a;
  } else {
    return std::fabs(a);
  }
}
template <class T>
inline T ps_sigmoid(T x) { return T(1) / (T(1) + std::exp(-x)); }
template <class T>
inline T ps_rsqrt(T x) { return T(1) / std::sqrt(x); }
template <class To, class From>
inline To ps_bitcast(From v) {
  static_assert(sizeof(To) == sizeof(From), "reinterpret between types of different sizes");
  To out;
  std::memcpy(&out, &v, sizeof(To));
  return out;
}

// ---- Errors: thrown inside a kernel, caught at its entry and written to the caller's buffer.
struct PsFail {
  std::string message;
};

[[noreturn]] inline void ps_fail(std::string message) { throw PsFail{std::move(message)}; }

inline int32_t ps_report(const char* message, char* error, int64_t error_size) {
  if (error != nullptr && error_size > 0) std::snprintf(error, error_size, "%s", message);
  return 1;
}

inline void ps_check_arity(const char* kernel, int32_t num_args, int32_t expected) {
  if (num_args != expected) {
    ps_fail(std::string(kernel) + ": expected " + std::to_string(expected) +
            " arguments, got " + std::to_string(num_args));
  }
}

inline void ps_check_buffer(const char* kernel, const char* buffer, const PipesplitKernelArg& arg,
                            int32_t ndim, int code, int bits) {
  if (arg.ndim != ndim) {
    ps_fail(std::string(kernel) + ": buffer " + buffer + ": rank " + std::to_string(arg.ndim) +
            ", expected " + std::to_string(ndim));
  }
  if (arg.dtype_code != code || arg.dtype_bits != bits || arg.lanes != 1) {
    ps_fail(std::string(kernel) + ": buffer " + buffer + ": dtype code " +
            std::to_string(arg.dtype_code) + " bits " + std::to_string(arg.dtype_bits) +
            " lanes " + std::to_string(arg.lanes) + ", expected code " + std::to_string(code) +
            " bits " + std::to_string(bits) + " lanes 1");
  }
  if (ndim > 0 && arg.shape == nullptr) {
    ps_fail(std::string(kernel) + ": buffer " + buffer + ": no shape");
  }
  if (arg.data == nullptr) {
    for (int32_t i = 0; i < ndim; ++i) {
      if (arg.shape[i] == 0) return;
    }
    ps_fail(std::string(kernel) + ": buffer " + buffer + ": no data");
  }
}

inline void ps_check_scalar(const char* kernel, const char* name, const PipesplitKernelArg& arg,
                            int code) {
  if (arg.ndim != -1 || arg.dtype_code != code) {
    ps_fail(std::string(kernel) + ": parameter " + name + ": expected a scalar of type code " +
            std::to_string(code));
  }
}

inline void ps_check_dim(const char* kernel, const char* buffer, int dim, int64_t actual,
                         int64_t expected) {
  if (actual != expected) {
    ps_fail(std::string(kernel) + ": buffer " + buffer + ": dim " + std::to_string(dim) + " is " +
            std::to_string(actual) + ", expected " + std::to_string(expected));
  }
}

inline int64_t ps_chk(int64_t index, int64_t extent, const char* kernel, const char* buffer,
                      int dim) {
  if (index < 0 || index >= extent) {
    ps_fail(std::string("kernel ") + kernel + ": buffer " + buffer + ": index " +
            std::to_string(index) + " out of bounds for dim " + std::to_string(dim) +
            " of extent " + std::to_string(extent));
  }
  return index;
}

template <class T>
inline std::unique_ptr<T[]> ps_alloc(int64_t n, const char* kernel, const char* buffer) {
  if (n < 0) ps_fail(std::string(kernel) + ": buffer " + buffer + ": negative size");
  T* p = new (std::nothrow) T[n > 0 ? n : 1];
  if (p == nullptr) {
    ps_fail(std::string(kernel) + ": buffer " + buffer + ": out of memory (" +
            std::to_string(n) + " elements)");
  }
  return std::unique_ptr<T[]>(p);
}

// GCC's -O2 vectorizes only loops whose trip count is a known multiple of the vector width;
// the tiles of a planned nest are not, so the kernels use the dynamic cost model (which never
// changes results: without -ffast-math no operation is reassociated).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=dynamic")
#endif

// ---- Loops: iteration counts, and parallel loops through the runtime's launch.
template <class T>
inline int64_t ps_count(T lo, T hi) {
  return hi > lo ? static_cast<int64_t>(hi) - static_cast<int64_t>(lo) : 0;
}
inline int64_t ps_ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::atomic<PipesplitParallelLaunchFn> ps_parallel_launch{nullptr};
// The runtime's fast contraction (kernel_abi.h), for the kernels the fast path recognised.
std::atomic<PipesplitContractFn> ps_fast_contract{nullptr};

// Iterations per task so that a task does at least ~2^15 innermost iterations.
inline int64_t ps_grain(int64_t work_per_iteration) {
  const int64_t task_work = INT64_C(1) << 15;
  return work_per_iteration >= task_work ? 1 : task_work / (work_per_iteration > 0 ? work_per_iteration : 1);
}

// Runs body(begin, end) over [0, n): on the runtime's threads when it registered a launch and
// n > grain, else here. The first failure of a task (in time) is rethrown here.
template <class F>
inline void ps_parallel_for(const char* kernel, int64_t n, int64_t grain, F&& body) {
  if (n <= 0) return;
  PipesplitParallelLaunchFn launch = ps_parallel_launch.load(std::memory_order_acquire);
  if (launch == nullptr || n <= grain) {
    body(INT64_C(0), n);
    return;
  }
  struct Closure {
    F* body;
    std::mutex mu;
    std::string error;
  } closure{&body, {}, {}};
  auto task = [](void* p, int64_t begin, int64_t end) -> int32_t {
    Closure& c = *static_cast<Closure*>(p);
    std::string message;
    try {
      (*c.body)(begin, end);
      return 0;
    } catch (const PsFail& f) {
      message = f.message;
    } catch (const std::exception& e) {
      message = e.what();
    } catch (...) {
      message = "unknown failure in a parallel loop";
    }
    std::lock_guard<std::mutex> lock(c.mu);
    if (c.error.empty()) c.error = message;
    return 1;
  };
  const int32_t status = launch(n, grain, task, &closure);
  if (!closure.error.empty()) throw PsFail{closure.error};
  if (status != 0) {
    throw PsFail{std::string(kernel) + ": parallel launch failed (status " +
                 std::to_string(status) + ")"};
  }
}

}  // namespace
)PSPRELUDE";
}

}  // namespace pipesplit::codegen
