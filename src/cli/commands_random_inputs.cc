// pipesplit example random-inputs: random weights and inputs for a function of any module.
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "pipesplit/models/random_inputs.h"
#include "pipesplit/runtime/io/safetensors.h"
#include "pipesplit/support/diagnostic.h"
#include "src/cli/cli_common.h"

namespace pipesplit::cli {

ExampleSubcommand AddRandomInputsCommand(CLI::App* example) {
  struct Args {
    std::string module;
    models::RandomInputsConfig config;
    std::vector<std::string> assume;
    std::string dir;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = example->add_subcommand(
      "random-inputs",
      "random params.safetensors (packed_params) and inputs.safetensors for a module's function");
  cmd->add_option("module", args->module, "TVMScript module")->required();
  cmd->add_option("--entry", args->config.entry, "function (default: main)");
  cmd->add_option("--assume", args->assume, "VAR=VALUE: a symbolic dim of the parameters");
  cmd->add_option("--seed", args->config.seed, "random seed (default: 0)");
  cmd->add_option("-o,--output", args->dir, "output directory")->required();
  Runner run = [args] {
    for (const std::string& a : args->assume) {
      size_t eq = a.find('=');
      int64_t value = 0;
      bool ok = eq != std::string::npos && eq > 0;
      if (ok) {
        try {
          size_t used = 0;
          value = std::stoll(a.substr(eq + 1), &used);
          ok = used == a.size() - eq - 1 && value >= 0;
        } catch (const std::exception&) {
          ok = false;
        }
      }
      if (!ok) ThrowError({}, "--assume '" + a + "': expected VAR=VALUE with VALUE >= 0");
      args->config.assume[a.substr(0, eq)] = value;
    }
    ir::IRModule mod = LoadModule(args->module);
    models::RandomInputs data;
    try {
      data = models::GenerateRandomInputs(mod, args->config);
    } catch (const std::invalid_argument& e) {
      ThrowError({}, e.what());
    }
    std::filesystem::path dir(args->dir);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) ThrowError({}, "cannot create '" + dir.string() + "': " + ec.message());
    runtime::WriteSafetensors((dir / "params.safetensors").string(), data.params);
    runtime::WriteSafetensors((dir / "inputs.safetensors").string(), data.inputs);
    std::printf("wrote %s/params.safetensors (%zu tensors), inputs.safetensors (%zu tensors)\n",
                dir.string().c_str(), data.params.size(), data.inputs.size());
    for (const std::string& name : data.skipped) {
      std::printf("parameter '%s' is not a tensor or shape: give it with run --arg %s=@FUNC\n",
                  name.c_str(), name.c_str());
    }
    return 0;
  };
  return {cmd, run};
}

}  // namespace pipesplit::cli
