// Generator of a lowered Llama-like Relax module (R.call_tir to TIR kernels, weights read
// from one `packed_params` tuple, symbolic sequence length), the shape MLC-LLM hands to the
// pipeline-parallel rewrite, at any size. Used by the compiler benchmarks and the large-input
// tests; its kernels are placeholders, so it is for compiling only. The runnable lowered model
// is `pipesplit example llama-lowered` (the llama example after legalize-ops).
#ifndef PIPESPLIT_MODELS_SYNTHETIC_LLAMA_H_
#define PIPESPLIT_MODELS_SYNTHETIC_LLAMA_H_

#include <string>

namespace pipesplit::models {

struct SyntheticLlamaConfig {
  int layers = 80;
  int stages = 8;  // stage markers: stages - 1, evenly spread over the layers; 1: none
  int hidden = 4096;
  int heads = 32;
  int ffn = 11008;
  int vocab = 32000;
  bool with_decode = true;  // also emit a `decode` function (sequence length 1)
};

// TVMScript (classic syntax) of the module.
std::string GenerateSyntheticLlama(const SyntheticLlamaConfig& config);

}  // namespace pipesplit::models

#endif  // PIPESPLIT_MODELS_SYNTHETIC_LLAMA_H_
