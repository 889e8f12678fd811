// The fast contractions of dense weights summed in float32 (contraction.h): one output per
// lane, each summing its K products one after another, each product rounded to float32 and then
// added: the kernel's own loop, bit for bit. The inner loops of contraction_kernel.h for the
// instruction-set files, with the same vector type V.
//
// Steps, for every 16 weight rows (the 16 lanes) and every kColSteps values of k:
//  1. the 16 rows' slice is loaded 16 by 16 and transposed into a panel: panel[k][lane];
//  2. every tile of up to 4 rows of x runs over the panel: acc[i] = acc[i] + x[i][k] * panel[k]
//     for k ascending (two roundings, no fused multiply-add); the accumulators wait in memory
//     between slices of k.
#ifndef PIPESPLIT_SRC_RUNTIME_KERNELS_CONTRACTION_COLUMNS_H_
#define PIPESPLIT_SRC_RUNTIME_KERNELS_CONTRACTION_COLUMNS_H_

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace pipesplit::runtime::detail {

template <class V>
struct ColumnKernel {
  static constexpr int kRows = 4;           // rows of x per tile
  static constexpr int64_t kColSteps = 16;  // blocks of 16 k per slice: 256 values of k
  static constexpr int64_t kAhead = 8;      // blocks a weight row is prefetched ahead

  const ContractionProblem& p;

  // Floats of scratch: the panel of a slice and the accumulators of every tile.
  static int64_t ScratchFloats(const ContractionProblem& p) {
    return kColSteps * 16 * 16 + (p.m + kRows - 1) / kRows * kRows * 16 + 16;
  }

  // Block s (16 values of k) of rows [r, r + 16) transposed into panel[16][16] (rows past n and
  // values past K are 0).
  template <WeightKind kKind>
  [[gnu::always_inline]] void Transpose(int64_t r, int64_t s, float* panel) const {
    const ContractionKernel<V> rows_of{p};
    constexpr int64_t kBytes = kKind == WeightKind::kFloat32 ? 4 : 2;
    V rows[16];
    for (int j = 0; j < 16; ++j) {
      if (r + j >= p.n) {
        rows[j] = V::Zero();
        continue;
      }
      const void* row = rows_of.template DenseRow<kKind>(r + j);
      // 16 rows stream at once: each is fetched kAhead blocks ahead of its reads.
      __builtin_prefetch(static_cast<const char*>(row) + 16 * kBytes * (s + kAhead));
      rows[j] = rows_of.template DenseStep<kKind>(row, s);
    }
    V::Transpose16(rows);
    for (int t = 0; t < 16; ++t) rows[t].Store(panel + 16 * t);
  }

  // Rows [i0, i0 + MR) of x over the panel's values of k [k0, k1).
  template <int MR>
  void Tile(int64_t i0, const float* panel, int64_t k0, int64_t k1, float* acc_mem, float* out,
            int64_t ldo, int64_t col0, int64_t cols) const {
    const int64_t kp = p.kp;
    const float* x = p.x + i0 * kp;
    V acc[MR];
    for (int i = 0; i < MR; ++i) acc[i] = k0 == 0 ? V::Zero() : V::Load(acc_mem + 16 * i);
    for (int64_t k = k0; k < k1; ++k) {
      const V w = V::Load(panel + 16 * (k - k0));
      for (int i = 0; i < MR; ++i) acc[i] = V::Add(acc[i], V::Mul(V::Broadcast(x[i * kp + k]), w));
    }
    if (k1 < kp) {
      for (int i = 0; i < MR; ++i) acc[i].Store(acc_mem + 16 * i);
      return;
    }
    for (int i = 0; i < MR; ++i) {
      float lanes[16];
      acc[i].Store(lanes);
      std::memcpy(out + (i0 + i) * ldo + col0, lanes, static_cast<size_t>(cols) * sizeof(float));
    }
  }

  template <WeightKind kKind>
  void Run(int64_t n0, int64_t n1, float* out, int64_t ldo, float* scratch) const {
    const int64_t steps = p.kp / 16;
    float* panel = scratch;
    float* acc_mem = panel + kColSteps * 16 * 16;
    for (int64_t r = n0; r < n1; r += 16) {
      const int64_t cols = std::min<int64_t>(16, n1 - r);
      for (int64_t s0 = 0; s0 < steps; s0 += kColSteps) {
        const int64_t s1 = std::min(steps, s0 + kColSteps);
        for (int64_t s = s0; s < s1; ++s) Transpose<kKind>(r, s, panel + (s - s0) * 256);
        for (int64_t i = 0; i < p.m; i += kRows) {
          float* tile_acc = acc_mem + i * 16;
          switch (std::min<int64_t>(kRows, p.m - i)) {
            case 1:
              Tile<1>(i, panel, 16 * s0, 16 * s1, tile_acc, out, ldo, r - n0, cols);
              break;
            case 2:
              Tile<2>(i, panel, 16 * s0, 16 * s1, tile_acc, out, ldo, r - n0, cols);
              break;
            case 3:
              Tile<3>(i, panel, 16 * s0, 16 * s1, tile_acc, out, ldo, r - n0, cols);
              break;
            default:
              Tile<4>(i, panel, 16 * s0, 16 * s1, tile_acc, out, ldo, r - n0, cols);
              break;
          }
        }
      }
    }
  }
};

}  // namespace pipesplit::runtime::detail

#endif  // PIPESPLIT_SRC_RUNTIME_KERNELS_CONTRACTION_COLUMNS_H_
