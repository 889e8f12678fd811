// --params and --param-names (weight_args.h).
#include "src/cli/weight_args.h"

#include <fmt/format.h>

#include <filesystem>

#include "pipesplit/runtime/exec/weight_table.h"
#include "pipesplit/runtime/io/mlc_folder.h"
#include "pipesplit/runtime/io/safetensors.h"
#include "src/cli/cli_common.h"

namespace pipesplit::cli {
namespace {

namespace fs = std::filesystem;

bool EndsWith(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

void AddWeightOptions(CLI::App* cmd, WeightArgs* args, bool folder_alone) {
  CLI::Option* params = cmd->add_option(
      "--params", args->params,
      folder_alone ? "weights for packed_params: a safetensors file, or an MLC model folder "
                     "(tensor-cache.json and params_shard_*.bin, bound by name); not needed when "
                     "the module argument is the MLC folder itself"
                   : "weights for packed_params: a safetensors file, or an MLC model folder "
                     "(tensor-cache.json and params_shard_*.bin, bound by name)");
  if (!folder_alone) params->required();
  cmd->add_option("--param-names", args->param_names,
                  "the names binding an MLC folder's weights to packed_params when the module has "
                  "no _metadata (given, they win over it): a .json list of names, or a module "
                  "with _metadata");
  cmd->add_option("--weights-memory", args->memory,
                  "how weight files are held: huge-pages (read into memory backed by transparent "
                  "huge pages, the default where the kernel offers them: decode streams every "
                  "weight, and 4 KiB pages cost it up to half its speed) or mapped (mapped "
                  "read-only, shared with other processes)")
      ->check(CLI::IsMember({"huge-pages", "mapped"}));
}

runtime::MlcParamList ReadParamNames(const std::string& path) {
  if (EndsWith(path, ".safetensors")) {
    runtime::SafetensorsWeights weights(runtime::SafetensorsFile::Open(path));
    runtime::MlcParamList list{path, {}, 1, Span{}};
    for (int64_t i = 0; i < weights.size(); ++i)
      list.params.push_back({weights.Name(i), {}, Span{}, std::nullopt});
    return list;
  }
  if (EndsWith(path, ".json")) return runtime::MlcParamsFromJsonFile(path);
  std::optional<runtime::MlcParamList> list = runtime::MlcParamsOfModule(LoadModule(path));
  if (!list) {
    throw runtime::RuntimeError(fmt::format("{}: the module has no {} function to name the weights",
                                            path, runtime::kMlcMetadataFunction));
  }
  return *list;
}

ir::IRModule LoadModuleForWeights(const std::string& path, const WeightArgs& args) {
  ir::IRModule mod = LoadModule(path);
  if (mod.Find(runtime::kMlcMetadataFunction) != nullptr || args.param_names.empty() ||
      EndsWith(args.param_names, ".json") || EndsWith(args.param_names, ".safetensors")) {
    return mod;
  }
  ir::IRModule names = LoadModule(args.param_names);
  if (const ir::IRModule::Member* metadata = names.Find(runtime::kMlcMetadataFunction)) {
    mod.Add(
        ir::Make<ir::GlobalVarNode>(runtime::kMlcMetadataFunction, metadata->gvar->struct_info()),
        metadata->func);
  }
  return mod;
}

Weights OpenWeights(const WeightArgs& args, const ir::IRModule& mod, bool read_chat_config) {
  if (!args.memory.empty()) {
    runtime::SetWeightMemoryMode(args.memory == "mapped" ? runtime::WeightMemory::kMapped
                                                         : runtime::WeightMemory::kHugePages);
  }
  Weights out;
  std::error_code ec;
  if (fs::is_directory(args.params, ec)) {
    runtime::MlcTensorCache cache = runtime::MlcTensorCache::Open(args.params);
    std::optional<runtime::MlcParamList> names;
    if (!args.param_names.empty()) {
      names = ReadParamNames(args.param_names);
    } else {
      names = runtime::MlcParamsOfModule(mod);
    }
    if (!names) {
      throw runtime::RuntimeError(
          fmt::format("{}: an MLC folder's weights bind by name, and the module has no {} "
                      "function naming them: give --param-names",
                      args.params, runtime::kMlcMetadataFunction));
    }
    out.source = std::make_unique<runtime::MlcWeights>(std::move(cache), *names);
    const fs::path config = fs::path(args.params) / runtime::kMlcChatConfigFile;
    if (read_chat_config && fs::exists(config, ec))
      out.chat_config = runtime::ReadMlcChatConfig(config.string());
  } else {
    if (!args.param_names.empty()) {
      throw runtime::RuntimeError(
          fmt::format("--param-names names the weights of an MLC folder; {} is a safetensors "
                      "file, whose packed_params names are in its own __metadata__",
                      args.params));
    }
    out.source =
        std::make_unique<runtime::SafetensorsWeights>(runtime::SafetensorsFile::Open(args.params));
  }
  runtime::CheckWeightTypes(mod, *out.source);
  return out;
}

}  // namespace pipesplit::cli
