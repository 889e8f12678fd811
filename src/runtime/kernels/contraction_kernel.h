// The inner loops of the fast contractions (runtime/kernels/contraction.h states their
// arithmetic), written once over a vector of 16 float32 lanes `V` and compiled once per
// instruction set: contraction_avx512.cc (one zmm register), contraction_avx2.cc (two ymm),
// contraction_portable.cc (16 floats). Every lane operation is an IEEE float32 operation with
// one rounding (multiply, fused multiply-add, add), so the three give the same bits.
//
// V provides:
//   static V Zero();  static V Broadcast(float);  static V Load(const float*);  (16 floats)
//   static V Add(V, V);
//   static V LoadHalf(const uint16_t*);  static V LoadBFloat16(const uint16_t*);  (exact)
//   void Store(float*) const;  static V Mul(V, V);  static V Fma(V a, V b, V c);  (a * b + c)
//   static float Sum(V);  (lane j + j+8, then j + j+4, j + j+2, j + j+1)
//   static void Nibbles(const uint8_t* bytes, V table, V* even, V* odd);
//     (16 bytes: even lane j = table[low nibble of byte j], odd lane j = table[high nibble])
//   static float HalfToFloat(uint16_t);
//   static void WidenHalves(const uint16_t* src, float* dst, int64_t n);  (exact)
//   static void RoundHalves(float* v, int64_t n);  (to float16 precision, in place)
//   static void NarrowHalves(const float* src, uint16_t* dst, int64_t n);
//   static void Transpose16(V rows[16]);  (rows[i] lane j <-> rows[j] lane i)
//   static V RoundHalf(V);  (each lane rounded to float16 precision, as f16::FloatToHalf does)
#ifndef PIPESPLIT_SRC_RUNTIME_KERNELS_CONTRACTION_KERNEL_H_
#define PIPESPLIT_SRC_RUNTIME_KERNELS_CONTRACTION_KERNEL_H_

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace pipesplit::runtime::detail {

enum class WeightKind { kFloat32, kFloat16, kBFloat16, kQ4 };

// One contraction as the inner loops see it (contraction.cc prepares it).
struct ContractionProblem {
  WeightKind kind = WeightKind::kFloat32;
  int64_t m = 0, n = 0, k = 0;
  // K rounded up to whole blocks: 16 for dense weights, 32 for 4-bit ones.
  int64_t kp = 0;
  // x widened to float32, [m][kp], zero past K; for 4-bit weights each block of 32 holds its
  // even k first, then its odd k (the order of the packed nibbles).
  const float* x = nullptr;
  const void* w = nullptr;  // dense: [n][k] of `kind`; 4-bit: uint32 [n][k / 8]
  int64_t w_stride = 0;     // elements (4-bit: words) from a row of w to the next
  // 4-bit: scales [n][groups] (a row may hold more groups than K needs), float16 or float32;
  // the group size is a multiple of 32.
  const void* scale = nullptr;
  bool scale_half = true;
  // The dequantized weight is rounded to float16 (the kernel dequantizes in float16).
  bool round_half = false;
  // Dense weights summed in float32: each output sums its products one after another, as the
  // kernel does (contraction_columns.h), instead of in 16 lanes.
  bool sequential = false;
  int64_t groups = 0;
  int64_t group_size = 32;
  // The 16 dequantized values of a scale of 1: lane q = q - zero_point (float32).
  float base[16] = {};
  // The nibble that pads a partial block of 32 (zero_point when it is an integer in [0, 15],
  // so that the padding dequantizes to 0; the padding's x is 0 anyway).
  uint8_t pad_nibble = 0;
};

// Floats of scratch ContractRows needs: a panel slice of 6 rows of 512 floats, the scales of 8
// rows and the accumulators of 4 x 6 outputs for every 4 rows of x.
// (Float32 weights: a transposed panel of 16 rows of 256 values of k and 16 accumulators for
// every 4 rows of x, contraction_columns.h.)
inline int64_t ContractionScratchFloats(const ContractionProblem& p) {
  const int64_t lanes = 6 * 512 + 8 * p.groups + (p.m + 3) / 4 * 4 * 6 * 16 + 64;
  const int64_t columns = 16 * 256 + (p.m + 3) / 4 * 4 * 16 + 16;
  return std::max(lanes, columns);
}

// Signature of the per-instruction-set entry: out[i * ldo + (r - n0)] = the sum of row i of x
// with row r of w, for i < m and n0 <= r < n1.
using ContractRowsFn = void (*)(const ContractionProblem& p, int64_t n0, int64_t n1, float* out,
                                int64_t ldo, float* scratch);

// What an instruction set provides: the inner loops, and exact conversions of float16 rows
// (widening; rounding float32 to float16 precision in place; narrowing to float16 bits, the
// bits of support/float16_bits.h).
struct ContractionIsa {
  ContractRowsFn rows;
  void (*widen_half)(const uint16_t* src, float* dst, int64_t n);
  void (*round_half)(float* v, int64_t n);
  void (*narrow_half)(const float* src, uint16_t* dst, int64_t n);
};

extern const ContractionIsa kContractionAvx512;
extern const ContractionIsa kContractionAvx2;
extern const ContractionIsa kContractionPortable;

// ---- The template, for the instruction-set files only.
#ifdef PIPESPLIT_CONTRACTION_KERNEL_BODY

#if defined(__GNUC__)
#define PS_CONTRACTION_UNROLL _Pragma("GCC unroll 16")
#else
#define PS_CONTRACTION_UNROLL
#endif

template <class V>
struct ContractionKernel {
  // Rows of x at most when the weights are read in place (decode batches): each weight row is
  // dequantized in registers once for all of them; more rows go through a panel.
  static constexpr int kDirectRows = 8;
  // The register tile over a panel: kPanelRows rows of x by kPanelCols rows of w.
  static constexpr int kPanelRows = 4;
  static constexpr int kPanelCols = 6;
  // Steps of 16 lanes per pass over a panel: 6 + 4 rows of 512 floats, 20 KiB.
  static constexpr int64_t kStepsPerPass = 32;

  const ContractionProblem& p;

  float Scale(int64_t r, int64_t g) const {
    if (p.scale_half)
      return V::HalfToFloat(static_cast<const uint16_t*>(p.scale)[r * p.groups + g]);
    return static_cast<const float*>(p.scale)[r * p.groups + g];
  }

  // ---- 4-bit weights.

  // The 16 dequantized values of a group of scale `scale`: (q - zero_point) * scale, rounded
  // to float16 when the kernel dequantizes in float16.
  [[gnu::always_inline]] V Table(V base, float scale) const {
    const V table = V::Mul(base, V::Broadcast(scale));
    return p.round_half ? V::RoundHalf(table) : table;
  }

  const uint8_t* Q4Row(int64_t r) const {
    return reinterpret_cast<const uint8_t*>(static_cast<const uint32_t*>(p.w) + r * p.w_stride);
  }

  // The last block of row `row` (when partial: K % 32 != 0) as (even, odd) vectors, padded.
  void Q4PartialBlock(const uint8_t* row, int64_t b, V table, V* even, V* odd) const {
    uint8_t bytes[16];
    std::memset(bytes, p.pad_nibble * 0x11, sizeof(bytes));
    std::memcpy(bytes, row + 16 * b, static_cast<size_t>(p.k / 2 - 16 * b));
    V::Nibbles(bytes, table, even, odd);
  }

  // The scales of rows [r0, r0 + NR) as float32, [NR][groups], into `dst`.
  template <int NR>
  void Q4Scales(int64_t r0, float* dst) const {
    if (p.scale_half) {
      V::WidenHalves(static_cast<const uint16_t*>(p.scale) + r0 * p.groups, dst, NR * p.groups);
    } else {
      std::memcpy(dst, static_cast<const float*>(p.scale) + r0 * p.groups,
                  static_cast<size_t>(NR * p.groups) * sizeof(float));
    }
  }

  // Rows [0, MR) of x against 4-bit weight rows [r0, r0 + NR), dequantized in registers.
  // `scales`: room for NR * groups floats.
  template <int MR, int NR>
  void Q4DirectTile(int64_t r0, float* out, int64_t ldo, int64_t col0, float* scales) const {
    const int64_t kp = p.kp;
    const int64_t groups = p.groups;
    const float* x = p.x;
    const int64_t blocks = kp / 32;
    const int64_t full = p.k / 32;
    const int64_t per_group = p.group_size / 32;
    const V base = V::Load(p.base);
    const uint8_t* rows[NR];
    PS_CONTRACTION_UNROLL
    for (int j = 0; j < NR; ++j) rows[j] = Q4Row(r0 + j);
    Q4Scales<NR>(r0, scales);
    V acc[MR][NR];
    PS_CONTRACTION_UNROLL
    for (int i = 0; i < MR; ++i) {
      PS_CONTRACTION_UNROLL
      for (int j = 0; j < NR; ++j) acc[i][j] = V::Zero();
    }
    // The weights stream from memory once: while this tile runs, the next one's are fetched.
    const AheadPrefetch ahead = PrefetchAhead<WeightKind::kQ4>(r0 + NR, NR, full);
    // Whole blocks, a group (per_group blocks) at a time.
    for (int64_t g = 0, b = 0; b < full; ++g) {
      const int64_t end = std::min(full, b + per_group);
      for (; b < end; ++b) {
        ahead.Step(b);
        V even[NR], odd[NR];
        PS_CONTRACTION_UNROLL
        for (int j = 0; j < NR; ++j) {
          V::Nibbles(rows[j] + 16 * b, Table(base, scales[j * groups + g]), &even[j], &odd[j]);
        }
        PS_CONTRACTION_UNROLL
        for (int i = 0; i < MR; ++i) {
          const V xe = V::Load(x + i * kp + b * 32);
          const V xo = V::Load(x + i * kp + b * 32 + 16);
          PS_CONTRACTION_UNROLL
          for (int j = 0; j < NR; ++j) {
            acc[i][j] = V::Fma(xe, even[j], acc[i][j]);
            acc[i][j] = V::Fma(xo, odd[j], acc[i][j]);
          }
        }
      }
    }
    if (full < blocks) {
      const int64_t g = full / per_group;
      for (int j = 0; j < NR; ++j) {
        V even, odd;
        Q4PartialBlock(rows[j], full, Table(base, scales[j * groups + g]), &even, &odd);
        for (int i = 0; i < MR; ++i) {
          const float* xi = x + i * kp + full * 32;
          acc[i][j] = V::Fma(V::Load(xi), even, acc[i][j]);
          acc[i][j] = V::Fma(V::Load(xi + 16), odd, acc[i][j]);
        }
      }
    }
    PS_CONTRACTION_UNROLL
    for (int i = 0; i < MR; ++i) {
      PS_CONTRACTION_UNROLL
      for (int j = 0; j < NR; ++j) out[i * ldo + col0 + j] = V::Sum(acc[i][j]);
    }
  }

  // Blocks [b0, b1) of row r of 4-bit weights widened into `dst` (32 floats a block, in x's
  // lane order); `scales`: the row's scales as float32.
  void Q4WidenSlice(int64_t r, int64_t b0, int64_t b1, float* dst, const float* scales) const {
    const int64_t per_group = p.group_size / 32;
    const V base = V::Load(p.base);
    const uint8_t* row = Q4Row(r);
    // The group of block b is b / per_group, found without a division per block.
    int64_t g = b0 / per_group;
    int64_t next_group = (g + 1) * per_group;
    V table = Table(base, scales[g]);
    for (int64_t b = b0; b < b1; ++b) {
      if (b == next_group) {
        table = Table(base, scales[++g]);
        next_group += per_group;
      }
      V even, odd;
      if ((b + 1) * 32 <= p.k) {
        V::Nibbles(row + 16 * b, table, &even, &odd);
      } else {
        Q4PartialBlock(row, b, table, &even, &odd);
      }
      even.Store(dst + 32 * (b - b0));
      odd.Store(dst + 32 * (b - b0) + 16);
    }
  }

  // The cache lines of rows [r, r + count) of w and of their scales, asked for a few at a time
  // over `steps` steps of a loop (Step(i) in step i), so that the next tile's weights arrive
  // while this tile computes.
  struct AheadPrefetch {
    const char* rows = nullptr;
    const char* scales = nullptr;
    int64_t row_lines = 0;
    int64_t scale_lines = 0;
    int64_t per_step = 0;
    // Always inlined: GCC finds a function that only prefetches free of side effects (pure)
    // and drops the calls.
    [[gnu::always_inline]] void Step(int64_t i) const {
      for (int64_t l = i * per_step; l < (i + 1) * per_step; ++l) {
        if (l < row_lines) {
          __builtin_prefetch(rows + 64 * l);
        } else if (l < row_lines + scale_lines) {
          __builtin_prefetch(scales + 64 * (l - row_lines));
        }
      }
    }
  };

  template <WeightKind kKind>
  AheadPrefetch PrefetchAhead(int64_t r, int64_t count, int64_t steps) const {
    AheadPrefetch a;
    count = std::min(count, p.n - r);
    if (count <= 0 || steps <= 0) return a;
    if constexpr (kKind == WeightKind::kQ4) {
      const int64_t scale_bytes = p.scale_half ? 2 : 4;
      a.rows = reinterpret_cast<const char*>(Q4Row(r));
      a.row_lines = count * p.w_stride * 4 / 64;
      a.scales = static_cast<const char*>(p.scale) + r * p.groups * scale_bytes;
      a.scale_lines = count * p.groups * scale_bytes / 64;
    } else {
      a.rows = static_cast<const char*>(DenseRow<kKind>(r));
      a.row_lines = count * p.w_stride * (kKind == WeightKind::kFloat32 ? 4 : 2) / 64;
    }
    a.per_step = (a.row_lines + a.scale_lines + steps - 1) / steps;
    return a;
  }

  // Asks for rows [r, r + count) of w (and their scales) to be brought into the L2 cache.
  template <WeightKind kKind>
  [[gnu::always_inline]] void PrefetchRows(int64_t r, int64_t count) const {
    if (count <= 0) return;
    int64_t bytes = 0;
    const char* start = nullptr;
    if constexpr (kKind == WeightKind::kQ4) {
      start = reinterpret_cast<const char*>(Q4Row(r));
      bytes = count * p.w_stride * 4;
      const int64_t scale_bytes = count * p.groups * (p.scale_half ? 2 : 4);
      const char* scales =
          static_cast<const char*>(p.scale) + r * p.groups * (p.scale_half ? 2 : 4);
      for (int64_t b = 0; b < scale_bytes; b += 64) __builtin_prefetch(scales + b, 0, 2);
    } else {
      start = static_cast<const char*>(DenseRow<kKind>(r));
      bytes = count * p.w_stride * (kKind == WeightKind::kFloat32 ? 4 : 2);
    }
    for (int64_t b = 0; b < bytes; b += 64) __builtin_prefetch(start + b, 0, 2);
  }

  // ---- Dense weights.

  template <WeightKind kKind>
  V DenseLoad(const void* row, int64_t s) const {
    if constexpr (kKind == WeightKind::kFloat32) {
      return V::Load(static_cast<const float*>(row) + 16 * s);
    } else if constexpr (kKind == WeightKind::kFloat16) {
      return V::LoadHalf(static_cast<const uint16_t*>(row) + 16 * s);
    } else {
      return V::LoadBFloat16(static_cast<const uint16_t*>(row) + 16 * s);
    }
  }

  template <WeightKind kKind>
  const void* DenseRow(int64_t r) const {
    if constexpr (kKind == WeightKind::kFloat32) {
      return static_cast<const float*>(p.w) + r * p.w_stride;
    }
    return static_cast<const uint16_t*>(p.w) + r * p.w_stride;
  }

  // Step s of a dense row, the partial last step padded with zeros.
  template <WeightKind kKind>
  V DenseStep(const void* row, int64_t s) const {
    if ((s + 1) * 16 <= p.k) return DenseLoad<kKind>(row, s);
    const int64_t left = p.k - 16 * s;
    if constexpr (kKind == WeightKind::kFloat32) {
      float tail[16] = {};
      std::memcpy(tail, static_cast<const float*>(row) + 16 * s, left * sizeof(float));
      return V::Load(tail);
    } else {
      uint16_t tail[16] = {};
      std::memcpy(tail, static_cast<const uint16_t*>(row) + 16 * s, left * sizeof(uint16_t));
      return kKind == WeightKind::kFloat16 ? V::LoadHalf(tail) : V::LoadBFloat16(tail);
    }
  }

  // Rows [0, MR) of x against dense weight rows [r0, r0 + NR) read in place.
  template <WeightKind kKind, int MR, int NR>
  void DenseDirectTile(int64_t r0, float* out, int64_t ldo, int64_t col0) const {
    const int64_t kp = p.kp;
    const float* x = p.x;
    const int64_t steps = kp / 16;
    const int64_t full = p.k / 16;
    const void* rows[NR];
    PS_CONTRACTION_UNROLL
    for (int j = 0; j < NR; ++j) rows[j] = DenseRow<kKind>(r0 + j);
    V acc[MR][NR];
    PS_CONTRACTION_UNROLL
    for (int i = 0; i < MR; ++i) {
      PS_CONTRACTION_UNROLL
      for (int j = 0; j < NR; ++j) acc[i][j] = V::Zero();
    }
    // The weights stream from memory once: while this tile runs, the next one's are fetched.
    const AheadPrefetch ahead = PrefetchAhead<kKind>(r0 + NR, NR, steps);
    for (int64_t s = 0; s < steps; ++s) {
      ahead.Step(s);
      PS_CONTRACTION_UNROLL
      for (int j = 0; j < NR; ++j) {
        const V w = s < full ? DenseLoad<kKind>(rows[j], s) : DenseStep<kKind>(rows[j], s);
        PS_CONTRACTION_UNROLL
        for (int i = 0; i < MR; ++i) acc[i][j] = V::Fma(V::Load(x + i * kp + 16 * s), w, acc[i][j]);
      }
    }
    PS_CONTRACTION_UNROLL
    for (int i = 0; i < MR; ++i) {
      PS_CONTRACTION_UNROLL
      for (int j = 0; j < NR; ++j) out[i * ldo + col0 + j] = V::Sum(acc[i][j]);
    }
  }

  // Steps [s0, s1) of dense row r widened into `dst` (16 floats a step).
  template <WeightKind kKind>
  void DenseWidenSlice(int64_t r, int64_t s0, int64_t s1, float* dst) const {
    const void* row = DenseRow<kKind>(r);
    for (int64_t s = s0; s < s1; ++s) DenseStep<kKind>(row, s).Store(dst + 16 * (s - s0));
  }

  // ---- Panels: MR rows of x (from row i0) against NR rows of float32 (the steps [s0, s1) of
  // 16 lanes, row j at panel + j * stride). The accumulators start at 0 (s0 == 0) or from
  // `acc_mem`, and go back to `acc_mem`, or summed into `out` after the last step (s1 == kp / 16):
  // the same fused multiply-adds in the same order as one pass over all steps.

  template <int MR, int NR>
  void PanelTile(int64_t i0, const float* panel, int64_t stride, int64_t s0, int64_t s1,
                 float* acc_mem, float* out, int64_t ldo, int64_t col0) const {
    const int64_t kp = p.kp;
    const float* x = p.x + i0 * kp;
    V acc[MR][NR];
    PS_CONTRACTION_UNROLL
    for (int i = 0; i < MR; ++i) {
      PS_CONTRACTION_UNROLL
      for (int j = 0; j < NR; ++j) {
        acc[i][j] = s0 == 0 ? V::Zero() : V::Load(acc_mem + (i * NR + j) * 16);
      }
    }
    for (int64_t s = s0; s < s1; ++s) {
      V xv[MR];
      PS_CONTRACTION_UNROLL
      for (int i = 0; i < MR; ++i) xv[i] = V::Load(x + i * kp + 16 * s);
      PS_CONTRACTION_UNROLL
      for (int j = 0; j < NR; ++j) {
        const V w = V::Load(panel + j * stride + 16 * (s - s0));
        PS_CONTRACTION_UNROLL
        for (int i = 0; i < MR; ++i) acc[i][j] = V::Fma(xv[i], w, acc[i][j]);
      }
    }
    if (s1 < kp / 16) {
      PS_CONTRACTION_UNROLL
      for (int i = 0; i < MR; ++i) {
        PS_CONTRACTION_UNROLL
        for (int j = 0; j < NR; ++j) acc[i][j].Store(acc_mem + (i * NR + j) * 16);
      }
      return;
    }
    PS_CONTRACTION_UNROLL
    for (int i = 0; i < MR; ++i) {
      PS_CONTRACTION_UNROLL
      for (int j = 0; j < NR; ++j) out[(i0 + i) * ldo + col0 + j] = V::Sum(acc[i][j]);
    }
  }

  // ---- Dispatch of run-time tile sizes onto the instantiations.

  template <WeightKind kKind, int MR, int NR>
  void DirectTile(int64_t r0, float* out, int64_t ldo, int64_t col0, float* scratch) const {
    if constexpr (kKind == WeightKind::kQ4) {
      Q4DirectTile<MR, NR>(r0, out, ldo, col0, scratch);
    } else {
      DenseDirectTile<kKind, MR, NR>(r0, out, ldo, col0);
    }
  }

  template <WeightKind kKind, int MR>
  void DirectRows(int64_t n0, int64_t n1, float* out, int64_t ldo, float* scratch) const {
    constexpr int kWide = MR == 1 ? 8 : MR <= 4 ? 4 : 2;
    int64_t r = n0;
    for (; r + kWide <= n1; r += kWide) DirectTile<kKind, MR, kWide>(r, out, ldo, r - n0, scratch);
    for (; r < n1; ++r) DirectTile<kKind, MR, 1>(r, out, ldo, r - n0, scratch);
  }

  template <int MR>
  void PanelCols(int64_t i0, int nr, const float* panel, int64_t stride, int64_t s0, int64_t s1,
                 float* acc_mem, float* out, int64_t ldo, int64_t col0) const {
    switch (nr) {
      case 1:
        return PanelTile<MR, 1>(i0, panel, stride, s0, s1, acc_mem, out, ldo, col0);
      case 2:
        return PanelTile<MR, 2>(i0, panel, stride, s0, s1, acc_mem, out, ldo, col0);
      case 3:
        return PanelTile<MR, 3>(i0, panel, stride, s0, s1, acc_mem, out, ldo, col0);
      case 4:
        return PanelTile<MR, 4>(i0, panel, stride, s0, s1, acc_mem, out, ldo, col0);
      case 5:
        return PanelTile<MR, 5>(i0, panel, stride, s0, s1, acc_mem, out, ldo, col0);
      default:
        return PanelTile<MR, 6>(i0, panel, stride, s0, s1, acc_mem, out, ldo, col0);
    }
  }

  void PanelRows(int64_t i0, int mr, int nr, const float* panel, int64_t stride, int64_t s0,
                 int64_t s1, float* acc_mem, float* out, int64_t ldo, int64_t col0) const {
    switch (mr) {
      case 1:
        return PanelCols<1>(i0, nr, panel, stride, s0, s1, acc_mem, out, ldo, col0);
      case 2:
        return PanelCols<2>(i0, nr, panel, stride, s0, s1, acc_mem, out, ldo, col0);
      case 3:
        return PanelCols<3>(i0, nr, panel, stride, s0, s1, acc_mem, out, ldo, col0);
      default:
        return PanelCols<4>(i0, nr, panel, stride, s0, s1, acc_mem, out, ldo, col0);
    }
  }

  template <WeightKind kKind>
  void Run(int64_t n0, int64_t n1, float* out, int64_t ldo, float* scratch) const {
    if (p.m <= kDirectRows) {
      // Decode: each weight row is read once, dequantized in registers.
      switch (p.m) {
        case 1:
          return DirectRows<kKind, 1>(n0, n1, out, ldo, scratch);
        case 2:
          return DirectRows<kKind, 2>(n0, n1, out, ldo, scratch);
        case 3:
          return DirectRows<kKind, 3>(n0, n1, out, ldo, scratch);
        case 4:
          return DirectRows<kKind, 4>(n0, n1, out, ldo, scratch);
        case 5:
          return DirectRows<kKind, 5>(n0, n1, out, ldo, scratch);
        case 6:
          return DirectRows<kKind, 6>(n0, n1, out, ldo, scratch);
        case 7:
          return DirectRows<kKind, 7>(n0, n1, out, ldo, scratch);
        default:
          return DirectRows<kKind, 8>(n0, n1, out, ldo, scratch);
      }
    }
    // Prefill: kPanelCols weight rows at a time, kStepsPerPass steps of them at a time, are
    // widened into a float32 panel slice that stays in the L1 cache while every tile of
    // kPanelRows rows of x runs over it (the tiles' accumulators wait in memory between
    // slices: the same fused multiply-adds in the same order as one pass).
    const int64_t steps = p.kp / 16;
    constexpr int64_t kStride = kStepsPerPass * 16;
    float* panel = scratch;
    float* scales = panel + kPanelCols * kStride;
    float* acc_mem = scales + kPanelCols * p.groups;
    for (int64_t r = n0; r < n1; r += kPanelCols) {
      const int nr = static_cast<int>(std::min<int64_t>(kPanelCols, n1 - r));
      if constexpr (kKind == WeightKind::kQ4) {
        for (int j = 0; j < nr; ++j) Q4Scales<1>(r + j, scales + j * p.groups);
      }
      // The next panel's rows come from memory while this one is multiplied.
      PrefetchRows<kKind>(r + kPanelCols, std::min<int64_t>(kPanelCols, p.n - r - kPanelCols));
      for (int64_t s0 = 0; s0 < steps; s0 += kStepsPerPass) {
        const int64_t s1 = std::min(steps, s0 + kStepsPerPass);
        for (int j = 0; j < nr; ++j) {
          if constexpr (kKind == WeightKind::kQ4) {
            Q4WidenSlice(r + j, s0 / 2, s1 / 2, panel + j * kStride, scales + j * p.groups);
          } else {
            DenseWidenSlice<kKind>(r + j, s0, s1, panel + j * kStride);
          }
        }
        for (int64_t i = 0; i < p.m; i += kPanelRows) {
          const int mr = static_cast<int>(std::min<int64_t>(kPanelRows, p.m - i));
          float* tile_acc = acc_mem + (i / kPanelRows) * (kPanelRows * kPanelCols * 16);
          PanelRows(i, mr, nr, panel, kStride, s0, s1, tile_acc, out, ldo, r - n0);
        }
      }
    }
  }
};

}  // namespace pipesplit::runtime::detail
#include "src/runtime/kernels/contraction_columns.h"  // NOLINT(build/include_order)
namespace pipesplit::runtime::detail {

// The entries each instruction-set file defines with its V.
template <class V>
void ContractRowsWith(const ContractionProblem& p, int64_t n0, int64_t n1, float* out, int64_t ldo,
                      float* scratch) {
  const ContractionKernel<V> kernel{p};
  if (p.sequential) {
    const ColumnKernel<V> columns{p};
    switch (p.kind) {
      case WeightKind::kFloat16:
        return columns.template Run<WeightKind::kFloat16>(n0, n1, out, ldo, scratch);
      case WeightKind::kBFloat16:
        return columns.template Run<WeightKind::kBFloat16>(n0, n1, out, ldo, scratch);
      default:
        return columns.template Run<WeightKind::kFloat32>(n0, n1, out, ldo, scratch);
    }
  }
  switch (p.kind) {
    case WeightKind::kFloat32:
      return kernel.template Run<WeightKind::kFloat32>(n0, n1, out, ldo, scratch);
    case WeightKind::kFloat16:
      return kernel.template Run<WeightKind::kFloat16>(n0, n1, out, ldo, scratch);
    case WeightKind::kBFloat16:
      return kernel.template Run<WeightKind::kBFloat16>(n0, n1, out, ldo, scratch);
    case WeightKind::kQ4:
      return kernel.template Run<WeightKind::kQ4>(n0, n1, out, ldo, scratch);
  }
}

template <class V>
constexpr ContractionIsa ContractionIsaOf() {
  return {&ContractRowsWith<V>, &V::WidenHalves, &V::RoundHalves, &V::NarrowHalves};
}

#endif  // PIPESPLIT_CONTRACTION_KERNEL_BODY

}  // namespace pipesplit::runtime::detail

#endif  // PIPESPLIT_SRC_RUNTIME_KERNELS_CONTRACTION_KERNEL_H_
