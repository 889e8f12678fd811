// The fast contractions' inner loops in portable C++ (contraction_kernel.h): a vector of 16
// lanes is 16 floats, the fused multiply-add std::fma. The same bits as the AVX-512 and AVX2
// files; the path on CPUs without them, and the reference the tests hold those to.
#define PIPESPLIT_CONTRACTION_KERNEL_BODY
#include <cmath>
#include <utility>

#include "pipesplit/support/float16_bits.h"
#include "src/runtime/kernels/contraction_kernel.h"

namespace pipesplit::runtime::detail {
namespace {

struct Vec16 {
  float v[16];

  static Vec16 Zero() { return Broadcast(0.0f); }
  static Vec16 Broadcast(float f) {
    Vec16 r;
    for (float& x : r.v) x = f;
    return r;
  }
  static Vec16 Load(const float* p) {
    Vec16 r;
    std::memcpy(r.v, p, sizeof(r.v));
    return r;
  }
  static Vec16 LoadHalf(const uint16_t* p) {
    Vec16 r;
    for (int j = 0; j < 16; ++j) r.v[j] = f16::HalfToFloat(p[j]);
    return r;
  }
  static Vec16 LoadBFloat16(const uint16_t* p) {
    Vec16 r;
    for (int j = 0; j < 16; ++j) r.v[j] = f16::BFloat16ToFloat(p[j]);
    return r;
  }
  void Store(float* p) const { std::memcpy(p, v, sizeof(v)); }
  static Vec16 Mul(const Vec16& a, const Vec16& b) {
    Vec16 r;
    for (int j = 0; j < 16; ++j) r.v[j] = a.v[j] * b.v[j];
    return r;
  }
  static Vec16 Fma(const Vec16& a, const Vec16& b, const Vec16& c) {
    Vec16 r;
    for (int j = 0; j < 16; ++j) r.v[j] = std::fma(a.v[j], b.v[j], c.v[j]);
    return r;
  }
  static float Sum(const Vec16& a) {
    float r[8];
    for (int j = 0; j < 8; ++j) r[j] = a.v[j] + a.v[j + 8];
    for (int j = 0; j < 4; ++j) r[j] = r[j] + r[j + 4];
    for (int j = 0; j < 2; ++j) r[j] = r[j] + r[j + 2];
    return r[0] + r[1];
  }
  static void Nibbles(const uint8_t* bytes, const Vec16& table, Vec16* even, Vec16* odd) {
    for (int j = 0; j < 16; ++j) {
      even->v[j] = table.v[bytes[j] & 15];
      odd->v[j] = table.v[bytes[j] >> 4];
    }
  }
  static float HalfToFloat(uint16_t h) { return f16::HalfToFloat(h); }
  static void Transpose16(Vec16 r[16]) {
    for (int i = 0; i < 16; ++i) {
      for (int j = i + 1; j < 16; ++j) std::swap(r[i].v[j], r[j].v[i]);
    }
  }
  static Vec16 RoundHalf(const Vec16& a) {
    Vec16 r;
    for (int j = 0; j < 16; ++j) r.v[j] = f16::HalfToFloat(f16::FloatToHalf(a.v[j]));
    return r;
  }
  static Vec16 Add(const Vec16& a, const Vec16& b) {
    Vec16 r;
    for (int j = 0; j < 16; ++j) r.v[j] = a.v[j] + b.v[j];
    return r;
  }
  static void WidenHalves(const uint16_t* src, float* dst, int64_t n) {
    for (int64_t i = 0; i < n; ++i) dst[i] = f16::HalfToFloat(src[i]);
  }
  static void RoundHalves(float* v, int64_t n) {
    for (int64_t i = 0; i < n; ++i) v[i] = f16::HalfToFloat(f16::FloatToHalf(v[i]));
  }
  static void NarrowHalves(const float* src, uint16_t* dst, int64_t n) {
    for (int64_t i = 0; i < n; ++i) dst[i] = f16::FloatToHalf(src[i]);
  }
};

}  // namespace

const ContractionIsa kContractionPortable = ContractionIsaOf<Vec16>();

}  // namespace pipesplit::runtime::detail
