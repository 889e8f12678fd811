// The inputs of `pipesplit run` / `verify-split` (see run_inputs.h).
#include "src/cli/run_inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "pipesplit/ir/protocol.h"
#include "pipesplit/runtime/exec/session.h"
#include "pipesplit/runtime/io/safetensors.h"

namespace pipesplit::cli {
namespace {

constexpr std::string_view kMetadataPrefix = "relax.expr.Constant.";

// PARAM=@FUNC of every --arg, keyed by parameter.
std::map<std::string, std::string> ParseArgs(const std::vector<std::string>& args) {
  std::map<std::string, std::string> calls;
  for (const std::string& arg : args) {
    size_t eq = arg.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 2 >= arg.size() || arg[eq + 1] != '@') {
      throw runtime::RuntimeError(
          fmt::format("--arg '{}': expected PARAM=@FUNC (the result of calling FUNC)", arg));
    }
    std::string param = arg.substr(0, eq);
    if (!calls.emplace(param, arg.substr(eq + 2)).second) {
      throw runtime::RuntimeError(fmt::format("--arg given twice for parameter '{}'", param));
    }
  }
  return calls;
}

runtime::Value CallNoArgFunction(const ir::IRModule& mod, const std::string& param,
                                 const std::string& func_name,
                                 std::shared_ptr<const runtime::KernelLibrary> kernels,
                                 std::shared_ptr<const runtime::MetadataConstants> metadata) {
  ir::Function func = mod.LookupFunction(func_name);
  if (!func) {
    throw runtime::RuntimeError(fmt::format("--arg {}=@{}: the module has no Relax function '{}'",
                                            param, func_name, func_name));
  }
  if (!func->params().empty()) {
    throw runtime::RuntimeError(fmt::format(
        "--arg {}=@{}: '{}' takes {} parameter{}; --arg calls only functions "
        "without parameters",
        param, func_name, func_name, func->params().size(), func->params().size() == 1 ? "" : "s"));
  }
  runtime::BuiltinRegistry builtins;
  runtime::RegisterCoreBuiltins(&builtins);
  runtime::Interpreter interpreter(mod, builtins, std::move(kernels));
  interpreter.set_metadata(std::move(metadata));
  return interpreter.Invoke(func_name, {});
}

// A shape parameter's value from a 1-D int64 tensor.
runtime::Value ShapeFromTensor(const runtime::Tensor& t, const std::string& path,
                               const std::string& name) {
  if (t.dtype() != DataType::Int(64) || t.ndim() != 1) {
    throw runtime::RuntimeError(
        fmt::format("{}: tensor '{}' for shape parameter '{}' must be a 1-D int64 tensor, got {}",
                    path, name, name, t.ToString()));
  }
  return runtime::Value::MakeShape(runtime::ToInt64Vector(t));
}

}  // namespace

void AddInputOptions(CLI::App* cmd, InputOptions* options) {
  cmd->add_option("--inputs", options->inputs,
                  "inputs (safetensors), named as the parameters; a shape parameter as a 1-D "
                  "int64 tensor")
      ->required();
  cmd->add_option("--arg", options->args,
                  "PARAM=@FUNC: pass the result of calling the module's parameterless function "
                  "FUNC as parameter PARAM (repeatable)");
  cmd->add_option("--metadata", options->metadata,
                  "metadata constants (safetensors): metadata[\"relax.expr.Constant\"][i] is "
                  "tensor relax.expr.Constant.<i>");
}

std::shared_ptr<const runtime::MetadataConstants> LoadMetadata(const std::string& path) {
  if (path.empty()) return nullptr;
  runtime::SafetensorsFile file = runtime::SafetensorsFile::Open(path);
  auto constants = std::make_shared<runtime::MetadataConstants>();
  for (const std::string& name : file.names()) {
    int64_t index = -1;
    std::string_view digits =
        std::string_view(name).substr(std::min(name.size(), kMetadataPrefix.size()));
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (!name.starts_with(kMetadataPrefix) || digits.empty() || ec != std::errc() ||
        end != digits.data() + digits.size() || index < 0) {
      throw runtime::RuntimeError(fmt::format(
          "{}: tensor '{}' is not a metadata constant (expected relax.expr.Constant.<index>)", path,
          name));
    }
    constants->emplace(index, file.Get(name));
  }
  return constants;
}

std::vector<std::vector<runtime::Value>> LoadInputs(
    const InputOptions& options, const ir::IRModule& mod, const std::string& entry,
    std::shared_ptr<const runtime::KernelLibrary> kernels,
    std::shared_ptr<const runtime::MetadataConstants> metadata, int microbatches) {
  runtime::EntryLayout layout = runtime::AnalyzeEntry(mod, entry);
  std::map<std::string, std::string> calls = ParseArgs(options.args);
  const std::string& path = options.inputs;
  runtime::SafetensorsFile file = runtime::SafetensorsFile::Open(path);
  std::vector<std::vector<runtime::Value>> inputs(std::max(microbatches, 1));
  std::vector<std::string> expected;
  std::set<std::string> called;
  for (int k = 0; k < static_cast<int>(inputs.size()); ++k) {
    for (size_t i = 0; i < layout.num_inputs; ++i) {
      const ir::Var& param = layout.func->params()[i];
      const std::string& param_name = param->name_hint();
      const std::string name = microbatches > 0 ? param_name + "." + std::to_string(k) : param_name;
      if (auto call = calls.find(param_name); call != calls.end()) {
        if (file.Contains(name)) {
          throw runtime::RuntimeError(fmt::format(
              "parameter '{}' of '{}' is given both by --arg and by {}", param_name, entry, path));
        }
        inputs[k].push_back(CallNoArgFunction(mod, param_name, call->second, kernels, metadata));
        called.insert(param_name);
        continue;
      }
      expected.push_back(name);
      if (!file.Contains(name)) {
        throw runtime::RuntimeError(fmt::format(
            "{}: no tensor named '{}' for parameter '{}' of '{}'{}", path, name, param_name, entry,
            microbatches > 0 ? fmt::format(" in micro-batch {}", k) : ""));
      }
      runtime::Tensor t = file.Get(name);
      if (ir::Is<ir::ShapeSInfoNode>(param->struct_info())) {
        inputs[k].push_back(ShapeFromTensor(t, path, name));
      } else {
        inputs[k].emplace_back(std::move(t));
      }
    }
  }
  for (const std::string& param : called) calls.erase(param);
  if (!calls.empty()) {
    const auto& [param, func] = *calls.begin();
    bool is_weights = layout.has_packed_params && param == ir::protocol::kPackedParams;
    throw runtime::RuntimeError(
        fmt::format("--arg {}=@{}: {}", param, func,
                    is_weights ? fmt::format("'{}' of '{}' comes from --params", param, entry)
                               : fmt::format("'{}' has no input parameter '{}'", entry, param)));
  }
  for (const std::string& name : file.names()) {
    if (std::find(expected.begin(), expected.end(), name) == expected.end()) {
      throw runtime::RuntimeError(
          fmt::format("{}: tensor '{}' is not a parameter of '{}'", path, name, entry));
    }
  }
  return inputs;
}

}  // namespace pipesplit::cli
