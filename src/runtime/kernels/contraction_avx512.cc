// The fast contractions' inner loops on AVX-512 (contraction_kernel.h): a vector of 16 lanes
// is one zmm register. Compiled with -mavx512f -mavx512bw -mavx512dq -mavx512vl -mavx2 -mfma
// -mf16c (src/runtime/kernels/CMakeLists.txt); called only on CPUs that have them.
#define PIPESPLIT_CONTRACTION_KERNEL_BODY
#include "src/runtime/kernels/contraction_kernel.h"

#if defined(__x86_64__) && defined(__AVX512F__) && defined(__AVX512BW__) && defined(__FMA__) && \
    defined(__F16C__)
#include <immintrin.h>

// GCC 12's AVX-512 headers build 256-bit halves from _mm256_undefined_ps(), which its own
// -Wuninitialized reports at every use (GCC bug 105593): silenced for this file.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace pipesplit::runtime::detail {
namespace {

struct Vec512 {
  __m512 v;

  static Vec512 Zero() { return {_mm512_setzero_ps()}; }
  static Vec512 Broadcast(float f) { return {_mm512_set1_ps(f)}; }
  static Vec512 Load(const float* p) { return {_mm512_loadu_ps(p)}; }
  static Vec512 LoadHalf(const uint16_t* p) {
    return {_mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)))};
  }
  static Vec512 LoadBFloat16(const uint16_t* p) {
    const __m512i wide =
        _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    return {_mm512_castsi512_ps(_mm512_slli_epi32(wide, 16))};
  }
  void Store(float* p) const { _mm512_storeu_ps(p, v); }
  static Vec512 Mul(Vec512 a, Vec512 b) { return {_mm512_mul_ps(a.v, b.v)}; }
  static Vec512 Fma(Vec512 a, Vec512 b, Vec512 c) { return {_mm512_fmadd_ps(a.v, b.v, c.v)}; }
  static float Sum(Vec512 a) {
    const __m256 r8 = _mm256_add_ps(_mm512_castps512_ps256(a.v), _mm512_extractf32x8_ps(a.v, 1));
    const __m128 r4 = _mm_add_ps(_mm256_castps256_ps128(r8), _mm256_extractf128_ps(r8, 1));
    const __m128 r2 = _mm_add_ps(r4, _mm_movehl_ps(r4, r4));
    const __m128 r1 = _mm_add_ss(r2, _mm_shuffle_ps(r2, r2, 1));
    return _mm_cvtss_f32(r1);
  }
  static void Nibbles(const uint8_t* bytes, Vec512 table, Vec512* even, Vec512* odd) {
    // vpermps reads the low 4 bits of each index lane.
    const __m512i wide =
        _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes)));
    even->v = _mm512_permutexvar_ps(wide, table.v);
    odd->v = _mm512_permutexvar_ps(_mm512_srli_epi32(wide, 4), table.v);
  }
  static float HalfToFloat(uint16_t h) { return _cvtsh_ss(h); }
  static void Transpose16(Vec512 r[16]) {
    __m512 t[16];
    for (int i = 0; i < 16; i += 2) {
      t[i] = _mm512_unpacklo_ps(r[i].v, r[i + 1].v);
      t[i + 1] = _mm512_unpackhi_ps(r[i].v, r[i + 1].v);
    }
    __m512 u[16];
    for (int i = 0; i < 16; i += 4) {
      u[i] = _mm512_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
      u[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
      u[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
      u[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int h = 0; h < 16; h += 8) {
      for (int i = 0; i < 4; ++i) {
        t[h + i] = _mm512_shuffle_f32x4(u[h + i], u[h + 4 + i], 0x88);
        t[h + 4 + i] = _mm512_shuffle_f32x4(u[h + i], u[h + 4 + i], 0xdd);
      }
    }
    for (int i = 0; i < 8; ++i) {
      r[i].v = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
      r[i + 8].v = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xdd);
    }
  }
  static Vec512 RoundHalf(Vec512 a) {
    return {_mm512_cvtph_ps(_mm512_cvtps_ph(a.v, _MM_FROUND_TO_NEAREST_INT))};
  }
  static Vec512 Add(Vec512 a, Vec512 b) { return {_mm512_add_ps(a.v, b.v)}; }
  static void WidenHalves(const uint16_t* src, float* dst, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
      _mm512_storeu_ps(
          dst + i, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i))));
    }
    for (; i < n; ++i) dst[i] = _cvtsh_ss(src[i]);
  }
  static void RoundHalves(float* v, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
      const __m256i h = _mm512_cvtps_ph(_mm512_loadu_ps(v + i), _MM_FROUND_TO_NEAREST_INT);
      _mm512_storeu_ps(v + i, _mm512_cvtph_ps(h));
    }
    for (; i < n; ++i) v[i] = _cvtsh_ss(_cvtss_sh(v[i], _MM_FROUND_TO_NEAREST_INT));
  }
  static void NarrowHalves(const float* src, uint16_t* dst, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i),
                          _mm512_cvtps_ph(_mm512_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
    }
    for (; i < n; ++i) dst[i] = _cvtss_sh(src[i], _MM_FROUND_TO_NEAREST_INT);
  }
};

}  // namespace

const ContractionIsa kContractionAvx512 = ContractionIsaOf<Vec512>();

}  // namespace pipesplit::runtime::detail

#else

namespace pipesplit::runtime::detail {
// Built without AVX-512 (another architecture or compiler): never selected (contraction.cc).
const ContractionIsa kContractionAvx512 = kContractionPortable;
}  // namespace pipesplit::runtime::detail

#endif
