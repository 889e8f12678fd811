// The sampler (sampler.h). Probabilities are computed in double from the float32 logits.
#include "src/serve/engine/sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace pipesplit::serve::engine {
namespace {

uint64_t Mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Uniform in [0, 1) from (seed, request, step).
double Uniform(uint64_t seed, int64_t request, int64_t step) {
  uint64_t z = Mix(Mix(Mix(seed) ^ static_cast<uint64_t>(request)) ^ static_cast<uint64_t>(step));
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

}  // namespace

int32_t SampleToken(std::span<const float> logits, const SamplingParams& params, int64_t request,
                    int64_t step) {
  const size_t n = logits.size();
  size_t best = 0;
  for (size_t i = 1; i < n; ++i) {
    if (logits[i] > logits[best]) best = i;
  }
  if (params.temperature <= 0) return static_cast<int32_t>(best);
  // Buffers kept per thread: sampling a token allocates nothing once they have grown.
  thread_local std::vector<double> probs;
  thread_local std::vector<int32_t> order;
  probs.resize(n);
  order.resize(n);
  double sum = 0;
  for (size_t i = 0; i < n; ++i) {
    probs[i] = std::exp((static_cast<double>(logits[i]) - logits[best]) / params.temperature);
    sum += probs[i];
  }
  std::iota(order.begin(), order.end(), 0);
  // Most likely first, ties by token id (std::sort allocates no buffer, unlike stable_sort).
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return probs[a] != probs[b] ? probs[a] > probs[b] : a < b;
  });
  // The nucleus: the shortest prefix whose mass reaches top_p (at least one token).
  size_t keep = 0;
  double mass = 0;
  while (keep < n && (keep == 0 || mass < params.top_p * sum)) mass += probs[order[keep++]];
  double u = Uniform(params.seed, request, step) * mass;
  for (size_t i = 0; i < keep; ++i) {
    u -= probs[order[i]];
    if (u < 0) return order[i];
  }
  return order[keep - 1];
}

}  // namespace pipesplit::serve::engine
