// The sampler of the generation engine (serve/generate.h): one token from a row of logits.
#ifndef PIPESPLIT_SRC_RUNTIME_SERVE_SAMPLER_H_
#define PIPESPLIT_SRC_RUNTIME_SERVE_SAMPLER_H_

#include <cstdint>
#include <span>

#include "pipesplit/serve/engine/generate.h"

namespace pipesplit::serve::engine {

// Greedy (the first largest logit) when params.temperature is 0; otherwise a draw from
// softmax(logits / temperature) cut to its nucleus (the most likely tokens whose probability
// reaches top_p, ties broken by token id), with a uniform number that depends only on
// (seed, request, step).
int32_t SampleToken(std::span<const float> logits, const SamplingParams& params, int64_t request,
                    int64_t step);

}  // namespace pipesplit::serve::engine

#endif  // PIPESPLIT_SRC_RUNTIME_SERVE_SAMPLER_H_
