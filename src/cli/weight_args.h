// The weights of `run`, `verify-split` and `generate`: `--params` (a safetensors file or an
// MLC model folder) and `--param-names` (the names that bind an MLC folder's weights to
// packed_params when the module has no `_metadata` function).
#ifndef PIPESPLIT_SRC_CLI_WEIGHT_ARGS_H_
#define PIPESPLIT_SRC_CLI_WEIGHT_ARGS_H_

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>

#include "pipesplit/ir/module.h"
#include "pipesplit/runtime/io/mlc_chat_config.h"
#include "pipesplit/runtime/io/mlc_params.h"
#include "pipesplit/runtime/io/weights.h"

namespace pipesplit::cli {

struct WeightArgs {
  std::string params;
  std::string param_names;
  std::string memory;  // --weights-memory: "", "huge-pages" or "mapped"
};

// Adds --params (required unless `folder_alone`: the command takes an MLC folder in place of its
// module, LoadServingModule), --param-names and --weights-memory to a command.
void AddWeightOptions(CLI::App* cmd, WeightArgs* args, bool folder_alone = false);

// The names a --param-names file gives: a safetensors file's packed_params names, a `.json`
// file (a list of names, or an object with "params" as `_metadata` has), or a TVMScript module
// with a `_metadata` function.
runtime::MlcParamList ReadParamNames(const std::string& path);

// The module at `path` for a command that runs it on `args`' weights. A module without a
// `_metadata` function (an MLC phase-4 dump) whose --param-names is a module with one adopts
// that function: it describes the same model (its params' names, and for a tensor-parallel
// model tensor_parallel_shards and each param's preprocs), so the run binds and shards the
// weights as the memory-planned module would.
ir::IRModule LoadModuleForWeights(const std::string& path, const WeightArgs& args);

struct Weights {
  std::unique_ptr<runtime::WeightSource> source;
  // The folder's mlc-chat-config.json, when asked for and --params is an MLC folder holding
  // one.
  std::optional<runtime::MlcChatConfig> chat_config;
};

// Opens --params for `mod` and checks every weight `mod` reads against the type it reads it
// as (runtime::CheckWeightTypes), before any worker starts. An MLC folder binds by the names of
// --param-names, else of the module's `_metadata`; with `read_chat_config`, its
// mlc-chat-config.json is read too (located errors).
Weights OpenWeights(const WeightArgs& args, const ir::IRModule& mod, bool read_chat_config = false);

}  // namespace pipesplit::cli

#endif  // PIPESPLIT_SRC_CLI_WEIGHT_ARGS_H_
