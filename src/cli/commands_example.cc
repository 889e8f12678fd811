// pipesplit example llama / llama-lowered: write the example models of the models layer
// (models/llama_model.h) to a folder: model.py, params.safetensors and inputs.safetensors, or
// with --serving the model in MLC's serving form with prompts.json instead of inputs.
#include <cstdio>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "pipesplit/models/llama_model.h"
#include "pipesplit/runtime/io/safetensors.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/diagnostic.h"
#include "src/cli/cli_common.h"

namespace pipesplit::cli {
namespace {

struct ExampleOptions {
  models::LlamaConfig config;
  std::string dir;
  bool module_only = false;
  std::optional<ir::TirSyntax> tir_syntax;  // llama-lowered: the kernels' block spelling
  int microbatches = 0;  // also write microbatches.safetensors with this many requests
  bool serving = false;  // MLC's serving form (llama_serving.h)
  models::ServingRequests requests;
  CLI::App* app = nullptr;  // to tell which options were given
};

void AddLlamaOptions(CLI::App* cmd, ExampleOptions* o) {
  cmd->add_option("--layers", o->config.layers, "transformer layers");
  cmd->add_option("--hidden", o->config.hidden, "hidden size");
  cmd->add_option("--heads", o->config.heads, "attention heads");
  cmd->add_option("--ffn", o->config.ffn, "MLP inner size");
  cmd->add_option("--vocab", o->config.vocab, "vocabulary size");
  cmd->add_option("--seq", o->config.seq, "sequence length");
  cmd->add_option("--stages", o->config.stages, "pipeline stages");
  cmd->add_option("--seed", o->config.seed, "random seed of weights and inputs");
  cmd->add_option("--tensor-parallel", o->config.tensor_parallel,
                  "workers per group the model is sharded for (MLC's tensor_parallel_shards): "
                  "per-shard heads and FFN columns, R.ccl.allreduce, weights written unsharded");
  cmd->add_option("-o,--output", o->dir, "output directory")->required();
  cmd->add_option("--microbatches", o->microbatches,
                  "also write microbatches.safetensors: M requests as <input>.<k> (request k from "
                  "seed + k), for run --microbatches")
      ->check(CLI::Range(1, 4096));
  cmd->add_flag("--serving", o->serving,
                "MLC's serving form: embed, prefill, decode, batch_prefill, batch_decode over a "
                "paged KV cache and create_paged_kv_cache; writes prompts.json, not inputs");
  cmd->add_option("--kv-heads", o->config.kv_heads,
                  "--serving: key/value heads (default heads / 2 when heads is even, else heads)");
  cmd->add_option("--requests", o->requests.requests, "--serving: prompts in prompts.json");
  cmd->add_option("--prompt-len", o->requests.prompt_len, "--serving: tokens of each prompt");
  o->app = cmd;
}

std::filesystem::path MakeOutputDir(const std::string& path) {
  std::filesystem::path dir(path);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) ThrowError({}, "cannot create '" + dir.string() + "': " + ec.message());
  return dir;
}

// The model in its form; an impossible configuration (std::invalid_argument) is an error.
models::LlamaModel Build(const ExampleOptions& o, bool lowered) {
  models::LlamaForm form =
      o.serving ? (lowered ? models::LlamaForm::kServingLowered : models::LlamaForm::kServing)
                : (lowered ? models::LlamaForm::kLowered : models::LlamaForm::kHigh);
  try {
    return models::BuildLlama(o.config, form, o.requests);
  } catch (const std::invalid_argument& e) {
    ThrowError({}, e.what());
  }
}

// Makes the output folder and writes the module there as model.py, its TIR blocks spelled as
// asked.
std::filesystem::path WriteModel(const ExampleOptions& o, const ir::IRModule& mod) {
  std::filesystem::path dir = MakeOutputDir(o.dir);
  script::PrintOptions print;
  print.tir_syntax = o.tir_syntax;
  WriteOutput((dir / "model.py").string(), script::PrintModule(mod, print));
  return dir;
}

// --serving: model.py, params.safetensors (with the serving config) and prompts.json.
int WriteServing(const ExampleOptions& o, bool lowered) {
  for (const char* other : {"--seq", "--microbatches"}) {
    if (o.app->count(other) > 0) {
      ThrowError({}, std::string(other) + " does not apply to --serving");
    }
  }
  models::LlamaModel model = Build(o, lowered);
  std::filesystem::path dir = WriteModel(o, model.module);
  if (!o.module_only) {
    runtime::WriteSafetensors((dir / "params.safetensors").string(), model.weights,
                              model.weight_metadata);
    WriteOutput((dir / "prompts.json").string(), model.prompts_json);
  }
  std::printf("wrote %s/model.py (serving, %d layers, %d stages, %d kv heads)%s\n",
              dir.string().c_str(), o.config.layers, o.config.stages, model.kv_heads,
              o.module_only ? "" : ", params.safetensors, prompts.json");
  return 0;
}

// Writes model.py (legalized when `lowered`) and, unless module_only, the weights and inputs.
int WriteLlama(const ExampleOptions& o, bool lowered) {
  if (o.serving) return WriteServing(o, lowered);
  for (const char* serving_only : {"--kv-heads", "--requests", "--prompt-len"}) {
    if (o.app->count(serving_only) > 0) {
      ThrowError({}, std::string(serving_only) + " needs --serving");
    }
  }
  models::LlamaModel model = Build(o, lowered);
  std::filesystem::path dir = WriteModel(o, model.module);
  if (o.module_only) {
    std::printf("wrote %s/model.py (%d layers, %d stages)\n", dir.string().c_str(), o.config.layers,
                o.config.stages);
    return 0;
  }
  runtime::WriteSafetensors((dir / "params.safetensors").string(), model.weights,
                            model.weight_metadata);
  runtime::WriteSafetensors((dir / "inputs.safetensors").string(), model.inputs);
  if (o.microbatches > 0) {
    runtime::WriteSafetensors((dir / "microbatches.safetensors").string(),
                              models::LlamaMicrobatches(o.config, o.microbatches));
  }
  int64_t bytes = 0;
  for (const auto& [name, t] : model.weights) bytes += t.nbytes();
  std::printf(
      "wrote %s/model.py (%d layers, %d stages), params.safetensors (%zu tensors, %lld "
      "bytes), inputs.safetensors\n",
      dir.string().c_str(), o.config.layers, o.config.stages, model.weights.size(),
      static_cast<long long>(bytes));
  return 0;
}

}  // namespace

Runner AddExampleCommand(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("example", "write example programs");
  cmd->require_subcommand(1);

  auto llama = std::make_shared<ExampleOptions>();
  CLI::App* l = cmd->add_subcommand(
      "llama", "a tiny runnable Llama (model.py, params.safetensors, inputs.safetensors)");
  AddLlamaOptions(l, llama.get());

  auto lowered = std::make_shared<ExampleOptions>();
  CLI::App* ll = cmd->add_subcommand(
      "llama-lowered",
      "the tiny Llama lowered by legalize-ops (every op an R.call_tir of a TIR kernel)");
  AddLlamaOptions(ll, lowered.get());
  ll->add_flag("--module-only", lowered->module_only, "write only model.py (no weights or inputs)");
  AddTirSyntaxOption(ll, &lowered->tir_syntax);

  ExampleSubcommand random = AddRandomInputsCommand(cmd);

  return [=] {
    if (random.app->parsed()) return random.run();
    return ll->parsed() ? WriteLlama(*lowered, true) : WriteLlama(*llama, false);
  };
}

}  // namespace pipesplit::cli
