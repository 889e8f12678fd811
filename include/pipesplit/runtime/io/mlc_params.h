// The names of packed_params for weights bound by name (an MLC model folder): position i of
// packed_params is the weight named `params[i].name` of the module's `_metadata` function (MLC
// compiles one into every model: `def _metadata() -> R.Any: return R.str("<json>")`, the JSON
// holding a "params" list), or the i-th name of a names file (`--param-names`).
#ifndef PIPESPLIT_RUNTIME_IO_MLC_PARAMS_H_
#define PIPESPLIT_RUNTIME_IO_MLC_PARAMS_H_

#include <optional>
#include <string>
#include <vector>

#include "pipesplit/ir/module.h"
#include "pipesplit/runtime/io/shard.h"
#include "pipesplit/support/source.h"

namespace pipesplit::runtime {

// The function MLC compiles into a model to describe it.
inline constexpr const char kMlcMetadataFunction[] = "_metadata";

// One entry of a param's "preprocs": a kernel of the module (MLC's tensor-parallel `_shard_*`)
// run at load time on the stored weight of `in_shape`, writing a fresh tensor of `out_shape`
// and `out_dtype`; the preprocs of a param run one after the other.
struct MlcPreproc {
  std::string func_name;
  Shape in_shape;
  Shape out_shape;
  DataType out_dtype;
  Span span;  // the entry
};

struct MlcParam {
  std::string name;
  // Its "preprocs" (empty when it has none). In a module with tensor_parallel_shards K > 1, the
  // last one's out_shape starts with K and worker k of a group holds slice k of it.
  std::vector<MlcPreproc> preprocs;
  Span span;  // where it is named (the _metadata literal, or its entry in a names file)
  // Its "shard_strategy" (pipesplit's tensor-parallel modules: MLC's ShardSingleDim as an
  // object {"name", "dim", "segs"}); none when absent or null.
  std::optional<ShardSpec> shard;
};

struct MlcParamList {
  std::string source;  // for messages: "the _metadata of model.py", or the names file
  std::vector<MlcParam> params;
  // "tensor_parallel_shards" of the _metadata (1 when absent): the workers of a group the
  // module is written for, each holding one shard of the weights that have a strategy.
  int64_t tensor_parallel_shards = 1;
  Span shards_span;  // where it is written (invalid when absent)
};

// The "params" of `mod`'s `_metadata` function; nullopt when the module has no such function.
// The one reader of that JSON: DiagnosticError at the string literal when the function does not
// return one, the JSON is malformed, or "params" is not a list of objects with a string "name"
// (and, when present, a list "preprocs" of objects with a string "func_name", integer lists
// "in_shape" and "out_shape" and a dtype "out_dtype", and a "shard_strategy" object with an integer
// "dim" and an optional list "segs" of positive integers), or "tensor_parallel_shards" is below 1.
std::optional<MlcParamList> MlcParamsOfModule(const ir::IRModule& mod);

// The names a JSON file lists: a list of names, or an object with "params" as `_metadata`
// has. Located errors as above, in the file.
MlcParamList MlcParamsFromJsonFile(const std::string& path);

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_IO_MLC_PARAMS_H_
