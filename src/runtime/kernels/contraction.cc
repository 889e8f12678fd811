// The fast contractions (contraction.h): checking a PipesplitContraction, widening x, cutting
// the weight rows into chunks for the kernel threads, the epilogue, and the choice of the
// instruction set.
//
// Steps of RunContraction:
//  1. Check the description (sizes, pointers, dtypes); a dtype without a kernel is declined.
//  2. Widen x to float32 rows of kp floats (4-bit weights: each block of 32 in the nibbles'
//     order, even k then odd k), zero past K.
//  3. Cut the N weight rows into chunks of kChunkRows (a constant: the cut never depends on the
//     thread count) and run the chunks on the kernel threads: the instruction set's inner loops
//     (contraction_kernel.h) fill a float32 block [m][chunk], then the epilogue turns it into y.
#include "pipesplit/runtime/kernels/contraction.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "pipesplit/support/float16_bits.h"
#include "src/runtime/kernels/contraction_kernel.h"
#include "src/runtime/kernels/parallel.h"

namespace pipesplit::runtime {
namespace {

using detail::ContractionProblem;
using detail::WeightKind;

// Weight rows per chunk of work (a multiple of the tiles' 4, 6 and 8 columns).
constexpr int64_t kChunkRows = 48;

bool IsType(PipesplitScalarType t, uint8_t code, uint8_t bits) {
  return t.code == code && t.bits == bits;
}
bool IsFloat32(PipesplitScalarType t) { return IsType(t, 2, 32); }
bool IsHalf(PipesplitScalarType t) { return IsType(t, 2, 16); }
bool IsBFloat16(PipesplitScalarType t) { return IsType(t, 4, 16); }
bool IsFloatType(PipesplitScalarType t) { return IsFloat32(t) || IsHalf(t) || IsBFloat16(t); }

// ---- The instruction set.

struct IsaChoice {
  std::mutex mu;
  std::string forced;  // empty: automatic
  bool read_env = false;
};
IsaChoice& Choice() {
  static IsaChoice choice;
  return choice;
}

std::string_view BestIsa() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  // F16C from CPUID leaf 1 (ECX bit 29): not every compiler's __builtin_cpu_supports knows it.
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & (1u << 29)) != 0;
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && f16c;
  if (avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")) {
    return "avx512";
  }
  if (avx2) return "avx2";
#endif
  return "portable";
}

std::atomic<const detail::ContractionIsa*> current_isa{nullptr};
std::atomic<int> fast_enabled{-1};  // -1: not read from the environment yet
thread_local int64_t fast_calls = 0;

const detail::ContractionIsa* IsaFor(std::string_view isa) {
  if (isa == "avx512") return &detail::kContractionAvx512;
  if (isa == "avx2") return &detail::kContractionAvx2;
  return &detail::kContractionPortable;
}

const detail::ContractionIsa& Isa() {
  const detail::ContractionIsa* isa = current_isa.load(std::memory_order_acquire);
  if (isa == nullptr) {
    isa = IsaFor(ContractionIsa());
    current_isa.store(isa, std::memory_order_release);
  }
  return *isa;
}

// ---- Step 1.

int32_t Fail(std::string* error, const std::string& message) {
  if (error != nullptr) *error = "fast contraction: " + message;
  return 1;
}

// Checks `c`; fills the problem's weight fields. Returns 0, DECLINED or 1.
int32_t Check(const PipesplitContraction& c, ContractionProblem* p, std::string* error) {
  if (c.m < 0 || c.n < 0 || c.k < 0) return Fail(error, "negative size");
  if (c.num_epilogue < 0 || c.num_epilogue > PIPESPLIT_MAX_EPILOGUE) {
    return Fail(error, "bad epilogue length " + std::to_string(c.num_epilogue));
  }
  if (!IsFloatType(c.x_dtype) || !IsFloatType(c.product) || !IsFloatType(c.y_dtype)) {
    return PIPESPLIT_CONTRACT_DECLINED;
  }
  PipesplitScalarType last = c.product;
  for (int i = 0; i < c.num_epilogue; ++i) {
    const PipesplitEpilogueOp& op = c.epilogue[i];
    if (!IsFloatType(op.dtype)) return PIPESPLIT_CONTRACT_DECLINED;
    if (op.kind == PIPESPLIT_EPILOGUE_ADD || op.kind == PIPESPLIT_EPILOGUE_MULTIPLY) {
      if (!IsFloatType(op.operand_dtype)) return PIPESPLIT_CONTRACT_DECLINED;
      if (op.operand_layout != PIPESPLIT_OPERAND_FULL &&
          op.operand_layout != PIPESPLIT_OPERAND_COLUMN) {
        return Fail(error, "bad operand layout");
      }
      if (op.operand == nullptr && c.m * c.n > 0) return Fail(error, "missing epilogue operand");
    } else if (op.kind != PIPESPLIT_EPILOGUE_CAST) {
      return Fail(error, "bad epilogue kind " + std::to_string(op.kind));
    }
    last = op.dtype;
  }
  if (!IsType(last, c.y_dtype.code, c.y_dtype.bits)) {
    return Fail(error, "the output's dtype is not the epilogue's");
  }
  p->m = c.m;
  p->n = c.n;
  p->k = c.k;
  p->w = c.w;
  if (c.weight_format == PIPESPLIT_WEIGHT_DENSE) {
    if (IsFloat32(c.w_dtype)) {
      p->kind = WeightKind::kFloat32;
    } else if (IsHalf(c.w_dtype)) {
      p->kind = WeightKind::kFloat16;
    } else if (IsBFloat16(c.w_dtype)) {
      p->kind = WeightKind::kBFloat16;
    } else {
      return PIPESPLIT_CONTRACT_DECLINED;
    }
    p->kp = (c.k + 15) / 16 * 16;
    p->sequential = IsFloat32(c.product);
    p->w_stride = c.w_row_stride == 0 ? c.k : c.w_row_stride;
    if (p->w_stride < c.k) return Fail(error, "weight rows shorter than K");
  } else if (c.weight_format == PIPESPLIT_WEIGHT_Q4) {
    if (!IsType(c.w_dtype, 1, 32)) return Fail(error, "4-bit weights must be uint32 words");
    if (c.k % 8 != 0) return Fail(error, "K = " + std::to_string(c.k) + " is not a multiple of 8");
    if (c.group_size <= 0 || c.group_size % 32 != 0) return PIPESPLIT_CONTRACT_DECLINED;
    if (!IsHalf(c.scale_dtype) && !IsFloat32(c.scale_dtype)) return PIPESPLIT_CONTRACT_DECLINED;
    if (c.scale == nullptr && c.n * c.k > 0) return Fail(error, "missing scales");
    p->kind = WeightKind::kQ4;
    p->scale = c.scale;
    p->scale_half = IsHalf(c.scale_dtype);
    if (c.dequant_dtype.code == 0 && c.dequant_dtype.bits == 0) {
      p->round_half = false;
    } else if (IsHalf(c.dequant_dtype) || IsFloat32(c.dequant_dtype)) {
      p->round_half = IsHalf(c.dequant_dtype);
    } else {
      return PIPESPLIT_CONTRACT_DECLINED;
    }
    p->group_size = c.group_size;
    const int64_t groups = (c.k + c.group_size - 1) / c.group_size;
    p->groups = c.scale_row_stride == 0 ? groups : c.scale_row_stride;
    p->w_stride = c.w_row_stride == 0 ? c.k / 8 : c.w_row_stride;
    if (p->w_stride < c.k / 8 || p->groups < groups) {
      return Fail(error, "weight or scale rows shorter than K needs");
    }
    p->kp = (c.k + 31) / 32 * 32;
    const float zero = static_cast<float>(c.zero_point);
    for (int q = 0; q < 16; ++q) p->base[q] = static_cast<float>(q) - zero;
    const bool integral = zero >= 0 && zero <= 15 && std::floor(zero) == zero;
    p->pad_nibble = integral ? static_cast<uint8_t>(zero) : 0;
  } else {
    return Fail(error, "unknown weight format " + std::to_string(c.weight_format));
  }
  const bool empty = c.m * c.n == 0;
  if (!empty && (c.y == nullptr || (c.k > 0 && (c.x == nullptr || c.w == nullptr)))) {
    return Fail(error, "missing data pointer");
  }
  return 0;
}

// ---- Step 2.

// `n` elements of type `t` from `src` as float32 into `dst` (exact).
void Widen(const detail::ContractionIsa& isa, PipesplitScalarType t, const void* src, float* dst,
           int64_t n) {
  if (IsFloat32(t)) {
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float));
  } else if (IsHalf(t)) {
    isa.widen_half(static_cast<const uint16_t*>(src), dst, n);
  } else {
    const auto* bits = static_cast<const uint16_t*>(src);
    for (int64_t i = 0; i < n; ++i) dst[i] = f16::BFloat16ToFloat(bits[i]);
  }
}

void WidenX(const detail::ContractionIsa& isa, const PipesplitContraction& c,
            const ContractionProblem& p, float* x) {
  const bool q4 = p.kind == WeightKind::kQ4;
  const size_t elem = c.x_dtype.bits / 8;
  detail::ParallelRange(c.m, 1, [&](int64_t m0, int64_t m1) {
    std::vector<float> row(static_cast<size_t>(p.kp));
    for (int64_t i = m0; i < m1; ++i) {
      float* dst = x + i * p.kp;
      float* wide = q4 ? row.data() : dst;
      std::fill(wide + c.k, wide + p.kp, 0.0f);
      Widen(isa, c.x_dtype, static_cast<const char*>(c.x) + i * c.k * elem, wide, c.k);
      if (!q4) continue;
      // 4-bit: k = 32b + 2j + h goes to 32b + 16h + j.
      for (int64_t b = 0; b < p.kp; b += 32) {
        for (int64_t j = 0; j < 16; ++j) {
          dst[b + j] = wide[b + 2 * j];
          dst[b + 16 + j] = wide[b + 2 * j + 1];
        }
      }
    }
  });
}

// ---- Step 3: the epilogue of rows [n0, n1), a row of outputs at a time.

// `v` rounded to the precision of `t` (float32: unchanged).
void RoundRow(const detail::ContractionIsa& isa, PipesplitScalarType t, float* v, int64_t n) {
  if (IsHalf(t)) {
    isa.round_half(v, n);
  } else if (IsBFloat16(t)) {
    for (int64_t j = 0; j < n; ++j) v[j] = f16::BFloat16ToFloat(f16::FloatToBFloat16(v[j]));
  }
}

void Epilogue(const detail::ContractionIsa& isa, const PipesplitContraction& c, float* sums,
              int64_t ldo, int64_t n0, int64_t n1, float* operand) {
  const int64_t n = n1 - n0;
  for (int64_t i = 0; i < c.m; ++i) {
    float* v = sums + i * ldo;
    RoundRow(isa, c.product, v, n);
    for (int e = 0; e < c.num_epilogue; ++e) {
      const PipesplitEpilogueOp& op = c.epilogue[e];
      if (op.kind != PIPESPLIT_EPILOGUE_CAST) {
        const int64_t at = op.operand_layout == PIPESPLIT_OPERAND_FULL ? i * c.n + n0 : n0;
        Widen(isa, op.operand_dtype,
              static_cast<const char*>(op.operand) + at * (op.operand_dtype.bits / 8), operand, n);
        if (op.kind == PIPESPLIT_EPILOGUE_ADD) {
          for (int64_t j = 0; j < n; ++j)
            v[j] = op.operand_first ? operand[j] + v[j] : v[j] + operand[j];
        } else {
          for (int64_t j = 0; j < n; ++j)
            v[j] = op.operand_first ? operand[j] * v[j] : v[j] * operand[j];
        }
      }
      RoundRow(isa, op.dtype, v, n);
    }
    char* y = static_cast<char*>(c.y) + (i * c.n + n0) * (c.y_dtype.bits / 8);
    if (IsFloat32(c.y_dtype)) {
      std::memcpy(y, v, static_cast<size_t>(n) * sizeof(float));
    } else if (IsHalf(c.y_dtype)) {
      isa.narrow_half(v, reinterpret_cast<uint16_t*>(y), n);
    } else {
      auto* bits = reinterpret_cast<uint16_t*>(y);
      for (int64_t j = 0; j < n; ++j) bits[j] = f16::FloatToBFloat16(v[j]);
    }
  }
}

}  // namespace

int32_t RunContraction(const PipesplitContraction& c, std::string* error) {
  ContractionProblem p;
  if (int32_t status = Check(c, &p, error); status != 0) return status;
  if (c.m == 0 || c.n == 0) return 0;
  const detail::ContractionIsa& isa = Isa();
  std::vector<float> x(static_cast<size_t>(c.m * p.kp));
  WidenX(isa, c, p, x.data());
  p.x = x.data();
  const int64_t chunks = (c.n + kChunkRows - 1) / kChunkRows;
  detail::ParallelFor(chunks, [&](int64_t chunk) {
    thread_local std::vector<float> sums;
    thread_local std::vector<float> scratch;
    sums.resize(static_cast<size_t>(c.m * kChunkRows + kChunkRows));
    scratch.resize(static_cast<size_t>(detail::ContractionScratchFloats(p)));
    const int64_t n0 = chunk * kChunkRows;
    const int64_t n1 = std::min(c.n, n0 + kChunkRows);
    isa.rows(p, n0, n1, sums.data(), kChunkRows, scratch.data());
    Epilogue(isa, c, sums.data(), kChunkRows, n0, n1, sums.data() + c.m * kChunkRows);
  });
  return 0;
}

int32_t ContractEntry(const PipesplitContraction* c, char* error, int64_t error_size) {
  std::string message;
  int32_t status = 1;
  try {
    status = c == nullptr ? Fail(&message, "no contraction") : RunContraction(*c, &message);
  } catch (const std::exception& e) {
    message = std::string("fast contraction: ") + e.what();
    status = 1;
  }
  if (status == 0) ++fast_calls;
  if (status == 1 && error != nullptr && error_size > 0) {
    std::snprintf(error, static_cast<size_t>(error_size), "%s", message.c_str());
  }
  return status;
}

int64_t FastPathCalls() { return fast_calls; }

bool FastKernelsEnabled() {
  int v = fast_enabled.load(std::memory_order_acquire);
  if (v < 0) {
    const char* env = std::getenv("PIPESPLIT_FAST_KERNELS");
    v = env != nullptr && std::string_view(env) == "0" ? 0 : 1;
    fast_enabled.store(v, std::memory_order_release);
  }
  return v == 1;
}

void SetFastKernelsEnabled(bool enabled) {
  fast_enabled.store(enabled ? 1 : 0, std::memory_order_release);
}

bool CpuRunsIsa(std::string_view isa) {
  if (isa == "portable") return true;
  const std::string_view best = BestIsa();
  if (isa == "avx2") return best == "avx2" || best == "avx512";
  if (isa == "avx512") return best == "avx512";
  return false;
}

std::string_view ContractionIsa() {
  IsaChoice& choice = Choice();
  std::lock_guard<std::mutex> lock(choice.mu);
  if (!choice.read_env) {
    choice.read_env = true;
    if (const char* env = std::getenv("PIPESPLIT_CONTRACTION_ISA"); env != nullptr && *env) {
      if (!CpuRunsIsa(env)) {
        throw std::invalid_argument(std::string("PIPESPLIT_CONTRACTION_ISA=") + env +
                                    ": not an instruction set this CPU runs (avx512, avx2, "
                                    "portable)");
      }
      choice.forced = env;
    }
  }
  if (choice.forced.empty()) return BestIsa();
  if (choice.forced == "avx512") return "avx512";
  if (choice.forced == "avx2") return "avx2";
  return "portable";
}

void SetContractionIsa(std::string_view isa) {
  if (!isa.empty() && !CpuRunsIsa(isa)) {
    throw std::invalid_argument("contraction instruction set '" + std::string(isa) +
                                "' is unknown or not run by this CPU");
  }
  {
    IsaChoice& choice = Choice();
    std::lock_guard<std::mutex> lock(choice.mu);
    choice.read_env = true;
    choice.forced = std::string(isa);
  }
  current_isa.store(nullptr, std::memory_order_release);
}

}  // namespace pipesplit::runtime
