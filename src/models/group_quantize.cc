// q4f16_1's group quantization (mlc_convert.h: QuantizeQ4F16). MLC computes it with a TVM kernel
// in float16: every operation rounds its float32 result to float16, as LLVM lowers half
// arithmetic on a CPU without native float16. Checked byte for byte against the shared corpus's
// llama-q4f16_1 folder (tests/models/mlc_convert_test.cc).
#include <algorithm>
#include <cmath>

#include "pipesplit/models/mlc_convert.h"
#include "pipesplit/support/float16_bits.h"

namespace pipesplit::models {
namespace {

constexpr int64_t kGroupSize = 32;
constexpr int64_t kPerStorage = 8;  // 4-bit values in a uint32
constexpr float kMaxInt = 7.0f;

float Half(float x) { return f16::HalfToFloat(f16::FloatToHalf(x)); }

}  // namespace

Q4Weight QuantizeQ4F16(std::span<const uint16_t> weight, int64_t rows, int64_t cols) {
  Q4Weight out;
  out.groups = (cols + kGroupSize - 1) / kGroupSize;
  const int64_t storages = out.groups * (kGroupSize / kPerStorage);
  out.q_weight.assign(static_cast<size_t>(rows * storages), 0);
  out.q_scale.resize(static_cast<size_t>(rows * out.groups));
  for (int64_t r = 0; r < rows; ++r) {
    const uint16_t* row = weight.data() + r * cols;
    for (int64_t g = 0; g < out.groups; ++g) {
      const int64_t begin = g * kGroupSize, end = std::min(cols, begin + kGroupSize);
      float max_abs = 0;
      for (int64_t c = begin; c < end; ++c) {
        max_abs = std::max(max_abs, std::fabs(f16::HalfToFloat(row[c])));
      }
      const uint16_t scale_bits = f16::FloatToHalf(max_abs / kMaxInt);
      out.q_scale[static_cast<size_t>(r * out.groups + g)] = scale_bits;
      const float scale = f16::HalfToFloat(scale_bits);
      for (int64_t c = begin; c < end; ++c) {
        const float scaled = Half(Half(f16::HalfToFloat(row[c]) / scale) + kMaxInt);
        // round half to even (LLVM's nearbyint), then clamp to [0, 14]; an all-zero group
        // divides 0 by 0, and TVM's max(x, 0) - a select on x > 0 - makes the NaN 0
        const float rounded =
            std::isnan(scaled) ? 0.0f : std::clamp(std::nearbyint(scaled), 0.0f, 2 * kMaxInt);
        const auto value = static_cast<uint32_t>(rounded);
        out.q_weight[static_cast<size_t>(r * storages + c / kPerStorage)] |=
            value << (4 * (c % kPerStorage));
      }
    }
  }
  return out;
}

}  // namespace pipesplit::models
