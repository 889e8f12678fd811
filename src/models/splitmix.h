// The splitmix64 stream the example generators draw weights and token ids from, so every
// platform generates the same bits for the same seed.
#ifndef PIPESPLIT_SRC_MODELS_SPLITMIX_H_
#define PIPESPLIT_SRC_MODELS_SPLITMIX_H_

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::models {

class SplitMix {
 public:
  explicit SplitMix(uint64_t seed) : state_(seed ^ 0x9e3779b97f4a7c15ULL) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [-1, 1).
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-52 - 1.0; }

 private:
  uint64_t state_;
};

// A float32 weight of `shape` drawn from `rng`: uniform in ±1/sqrt(fan_in), or 1 ± 0.1 when
// fan_in is 0 (a norm weight).
inline runtime::Tensor SeededWeight(SplitMix& rng, const std::vector<int64_t>& shape, int fan_in) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<double> values(static_cast<size_t>(n));
  const double scale = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.1;
  for (double& v : values) v = (fan_in > 0 ? 0.0 : 1.0) + scale * rng.Uniform();
  return runtime::MakeTensor(DataType::Float(32), shape, values);
}

// `shape` as the dims of a TVMScript tuple: "4, 8", or "4," for one dim.
inline std::string ShapeTupleText(const std::vector<int64_t>& shape) {
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) text += ",";
  return text;
}

}  // namespace pipesplit::models

#endif  // PIPESPLIT_SRC_MODELS_SPLITMIX_H_
