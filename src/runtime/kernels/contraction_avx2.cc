// The fast contractions' inner loops on AVX2 (contraction_kernel.h): a vector of 16 lanes is
// two ymm registers, lanes 0-7 and 8-15. Compiled with -mavx2 -mfma -mf16c
// (src/runtime/kernels/CMakeLists.txt); called only on CPUs that have them.
#define PIPESPLIT_CONTRACTION_KERNEL_BODY
#include "src/runtime/kernels/contraction_kernel.h"

#if defined(__x86_64__) && defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#include <immintrin.h>

namespace pipesplit::runtime::detail {
namespace {

struct Vec256x2 {
  __m256 lo, hi;

  static Vec256x2 Zero() { return {_mm256_setzero_ps(), _mm256_setzero_ps()}; }
  static Vec256x2 Broadcast(float f) { return {_mm256_set1_ps(f), _mm256_set1_ps(f)}; }
  static Vec256x2 Load(const float* p) { return {_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8)}; }
  static Vec256x2 LoadHalf(const uint16_t* p) {
    return {_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))),
            _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 8)))};
  }
  static __m256 BFloat16Half(const uint16_t* p) {
    const __m256i wide =
        _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    return _mm256_castsi256_ps(_mm256_slli_epi32(wide, 16));
  }
  static Vec256x2 LoadBFloat16(const uint16_t* p) { return {BFloat16Half(p), BFloat16Half(p + 8)}; }
  void Store(float* p) const {
    _mm256_storeu_ps(p, lo);
    _mm256_storeu_ps(p + 8, hi);
  }
  static Vec256x2 Mul(Vec256x2 a, Vec256x2 b) {
    return {_mm256_mul_ps(a.lo, b.lo), _mm256_mul_ps(a.hi, b.hi)};
  }
  static Vec256x2 Fma(Vec256x2 a, Vec256x2 b, Vec256x2 c) {
    return {_mm256_fmadd_ps(a.lo, b.lo, c.lo), _mm256_fmadd_ps(a.hi, b.hi, c.hi)};
  }
  static float Sum(Vec256x2 a) {
    const __m256 r8 = _mm256_add_ps(a.lo, a.hi);
    const __m128 r4 = _mm_add_ps(_mm256_castps256_ps128(r8), _mm256_extractf128_ps(r8, 1));
    const __m128 r2 = _mm_add_ps(r4, _mm_movehl_ps(r4, r4));
    const __m128 r1 = _mm_add_ss(r2, _mm_shuffle_ps(r2, r2, 1));
    return _mm_cvtss_f32(r1);
  }
  // table[idx & 15] for 8 lanes: vpermps picks among 8 entries by the low 3 bits, bit 3 chooses
  // the half of the table.
  static __m256 Lookup(__m256i idx, __m256 table_lo, __m256 table_hi) {
    const __m256 from_lo = _mm256_permutevar8x32_ps(table_lo, idx);
    const __m256 from_hi = _mm256_permutevar8x32_ps(table_hi, idx);
    return _mm256_blendv_ps(from_lo, from_hi, _mm256_castsi256_ps(_mm256_slli_epi32(idx, 28)));
  }
  static void Nibbles(const uint8_t* bytes, Vec256x2 table, Vec256x2* even, Vec256x2* odd) {
    const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes));
    const __m256i w0 = _mm256_cvtepu8_epi32(raw);                     // bytes 0-7
    const __m256i w1 = _mm256_cvtepu8_epi32(_mm_srli_si128(raw, 8));  // bytes 8-15
    even->lo = Lookup(w0, table.lo, table.hi);
    even->hi = Lookup(w1, table.lo, table.hi);
    odd->lo = Lookup(_mm256_srli_epi32(w0, 4), table.lo, table.hi);
    odd->hi = Lookup(_mm256_srli_epi32(w1, 4), table.lo, table.hi);
  }
  static float HalfToFloat(uint16_t h) { return _cvtsh_ss(h); }
  static void Transpose16(Vec256x2 r[16]) {
    alignas(64) float m[16][16];
    for (int i = 0; i < 16; ++i) r[i].Store(m[i]);
    alignas(64) float t[16][16];
    for (int i = 0; i < 16; ++i) {
      for (int j = 0; j < 16; ++j) t[j][i] = m[i][j];
    }
    for (int i = 0; i < 16; ++i) r[i] = Load(t[i]);
  }
  static Vec256x2 RoundHalf(Vec256x2 a) {
    return {_mm256_cvtph_ps(_mm256_cvtps_ph(a.lo, _MM_FROUND_TO_NEAREST_INT)),
            _mm256_cvtph_ps(_mm256_cvtps_ph(a.hi, _MM_FROUND_TO_NEAREST_INT))};
  }
  static Vec256x2 Add(Vec256x2 a, Vec256x2 b) {
    return {_mm256_add_ps(a.lo, b.lo), _mm256_add_ps(a.hi, b.hi)};
  }
  static void WidenHalves(const uint16_t* src, float* dst, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      _mm256_storeu_ps(dst + i,
                       _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
    }
    for (; i < n; ++i) dst[i] = _cvtsh_ss(src[i]);
  }
  static void RoundHalves(float* v, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(v + i), _MM_FROUND_TO_NEAREST_INT);
      _mm256_storeu_ps(v + i, _mm256_cvtph_ps(h));
    }
    for (; i < n; ++i) v[i] = _cvtsh_ss(_cvtss_sh(v[i], _MM_FROUND_TO_NEAREST_INT));
  }
  static void NarrowHalves(const float* src, uint16_t* dst, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                       _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
    }
    for (; i < n; ++i) dst[i] = _cvtss_sh(src[i], _MM_FROUND_TO_NEAREST_INT);
  }
};

}  // namespace

const ContractionIsa kContractionAvx2 = ContractionIsaOf<Vec256x2>();

}  // namespace pipesplit::runtime::detail

#else

namespace pipesplit::runtime::detail {
// Built without AVX2 (another architecture or compiler): never selected (contraction.cc).
const ContractionIsa kContractionAvx2 = kContractionPortable;
}  // namespace pipesplit::runtime::detail

#endif
