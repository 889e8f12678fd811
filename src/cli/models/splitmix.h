// The splitmix64 stream the example generators draw weights and token ids from, so every
// platform generates the same bits for the same seed.
#ifndef PIPESPLIT_SRC_CLI_MODELS_SPLITMIX_H_
#define PIPESPLIT_SRC_CLI_MODELS_SPLITMIX_H_

#include <cstdint>

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

}  // namespace pipesplit::models

#endif  // PIPESPLIT_SRC_CLI_MODELS_SPLITMIX_H_
