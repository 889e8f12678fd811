// Random weights and inputs for any function of a module (`pipesplit example random-inputs`),
// so that a module without data (a TVMScript dump) can run.
#ifndef PIPESPLIT_MODELS_RANDOM_INPUTS_H_
#define PIPESPLIT_MODELS_RANDOM_INPUTS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "pipesplit/ir/module.h"
#include "pipesplit/runtime/io/safetensors.h"

namespace pipesplit::models {

struct RandomInputsConfig {
  std::string entry = "main";
  // Values of the symbolic vars in the parameters' shapes (--assume n=1).
  std::map<std::string, int64_t> assume;
  uint64_t seed = 0;
};

// Values drawn per dtype: floats uniform in [-kFloatRange, kFloatRange); unsigned integers
// (int4 packed in uint32, ...) uniform random bits; signed integers (token ids, indices)
// uniform in [0, kIntHigh), valid indices into any table of at least kIntHigh rows; bool 0/1.
inline constexpr double kFloatRange = 0.1;
inline constexpr int64_t kIntHigh = 8;

struct RandomInputs {
  // The fields of the trailing packed_params tuple, in order (param_0, param_1, ...).
  std::vector<runtime::NamedTensor> params;
  // One per tensor parameter (its shape and dtype) and shape parameter (1-D int64 with the
  // assumed values), named as the parameter.
  std::vector<runtime::NamedTensor> inputs;
  // Parameters neither tensors nor shapes (objects, tuples): the caller supplies them
  // (`run --arg PARAM=@FUNC`).
  std::vector<std::string> skipped;
};

// Throws std::invalid_argument for an unknown entry, a symbolic dim without --assume, an
// --assume of a var no parameter uses, a tensor of unknown dtype or rank, or a packed_params
// field that is not a tensor.
RandomInputs GenerateRandomInputs(const ir::IRModule& mod, const RandomInputsConfig& config);

}  // namespace pipesplit::models

#endif  // PIPESPLIT_MODELS_RANDOM_INPUTS_H_
