// The inputs of `pipesplit run` / `verify-split`: tensors and shapes from a safetensors file,
// values made by calling a module function (`--arg PARAM=@FUNC`), and the module's metadata
// constants (`--metadata FILE`).
#ifndef PIPESPLIT_SRC_CLI_RUN_INPUTS_H_
#define PIPESPLIT_SRC_CLI_RUN_INPUTS_H_

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "pipesplit/ir/module.h"
#include "pipesplit/runtime/exec/interpreter.h"
#include "pipesplit/runtime/kernels/kernel_library.h"
#include "pipesplit/runtime/tensor/value.h"

namespace pipesplit::cli {

struct InputOptions {
  std::string inputs;             // safetensors, tensors named as the parameters
  std::vector<std::string> args;  // PARAM=@FUNC
  std::string metadata;           // safetensors, tensors named relax.expr.Constant.<i>
};

// Adds --inputs (required), --arg (repeatable) and --metadata to a command.
void AddInputOptions(CLI::App* cmd, InputOptions* options);

// The metadata constants of a --metadata file (null when `path` is empty). Throws
// RuntimeError for a tensor not named relax.expr.Constant.<i>.
std::shared_ptr<const runtime::MetadataConstants> LoadMetadata(const std::string& path);

// The inputs of `entry` (its parameters but the trailing packed_params), in order. A tensor
// parameter reads the tensor of its name; a shape parameter (R.Shape) reads a 1-D int64 tensor
// of its name; a parameter named by --arg is the result of calling that module function, which
// takes no parameters, called afresh on each call of LoadInputs (a KV cache is mutable state
// that one run must not hand to the next). With `microbatches` M > 0 the result holds M input
// lists, micro-batch k reading tensors `<param>.<k>` (a --arg function is called once per
// micro-batch); with 0 it holds one list read from tensors named as the parameters. Throws
// RuntimeError for a missing or extra tensor, a malformed --arg, an unknown parameter or
// function, or a function that takes parameters.
std::vector<std::vector<runtime::Value>> LoadInputs(
    const InputOptions& options, const ir::IRModule& mod, const std::string& entry,
    std::shared_ptr<const runtime::KernelLibrary> kernels,
    std::shared_ptr<const runtime::MetadataConstants> metadata, int microbatches = 0);

}  // namespace pipesplit::cli

#endif  // PIPESPLIT_SRC_CLI_RUN_INPUTS_H_
