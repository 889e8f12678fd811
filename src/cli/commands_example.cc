// pipesplit example llama / llama-lowered: generate example programs.
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "pipesplit/runtime/safetensors.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/diagnostic.h"
#include "src/cli/cli_common.h"
#include "src/cli/models/llama_example.h"
#include "src/cli/models/lowered_llama.h"

namespace pipesplit::cli {

Runner AddExampleCommand(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("example", "write example programs");
  cmd->require_subcommand(1);

  auto llama = std::make_shared<models::LlamaConfig>();
  auto llama_dir = std::make_shared<std::string>();
  CLI::App* l = cmd->add_subcommand(
      "llama", "a tiny runnable Llama (model.py, params.safetensors, inputs.safetensors)");
  l->add_option("--layers", llama->layers, "transformer layers");
  l->add_option("--hidden", llama->hidden, "hidden size");
  l->add_option("--heads", llama->heads, "attention heads");
  l->add_option("--ffn", llama->ffn, "MLP inner size");
  l->add_option("--vocab", llama->vocab, "vocabulary size");
  l->add_option("--seq", llama->seq, "sequence length");
  l->add_option("--stages", llama->stages, "pipeline stages");
  l->add_option("--seed", llama->seed, "random seed of weights and inputs");
  l->add_option("-o,--output", *llama_dir, "output directory")->required();

  auto lowered = std::make_shared<models::LoweredLlamaConfig>();
  auto lowered_out = std::make_shared<std::string>("-");
  CLI::App* ll = cmd->add_subcommand(
      "llama-lowered", "a lowered Llama-like module (call_tir kernels; compile-only)");
  ll->add_option("--layers", lowered->layers, "transformer layers");
  ll->add_option("--stages", lowered->stages, "pipeline stages");
  ll->add_option("--hidden", lowered->hidden, "hidden size");
  ll->add_option("-o,--output", *lowered_out, "output file ('-' for standard output)");

  ExampleSubcommand random = AddRandomInputsCommand(cmd);

  return [=] {
    if (random.app->parsed()) return random.run();
    if (ll->parsed()) {
      if (lowered->layers < 1 || lowered->stages < 1 || lowered->stages > lowered->layers) {
        ThrowError({}, "llama-lowered needs 1 <= --stages <= --layers");
      }
      WriteOutput(*lowered_out, models::GenerateLoweredLlama(*lowered));
      return 0;
    }
    models::LlamaExample example;
    try {
      example = models::GenerateLlamaExample(*llama);
    } catch (const std::invalid_argument& e) {
      ThrowError({}, e.what());
    }
    // Canonical TVMScript, as TVM would print it.
    ir::IRModule mod = script::ParseModule(example.module_text, "<generated llama>");
    std::filesystem::path dir(*llama_dir);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) ThrowError({}, "cannot create '" + dir.string() + "': " + ec.message());
    WriteOutput((dir / "model.py").string(), script::PrintModule(mod));
    runtime::WriteSafetensors((dir / "params.safetensors").string(), example.weights,
                              example.weight_metadata);
    runtime::WriteSafetensors((dir / "inputs.safetensors").string(), example.inputs);
    int64_t bytes = 0;
    for (const auto& [name, t] : example.weights) bytes += t.nbytes();
    std::printf(
        "wrote %s/model.py (%d layers, %d stages), params.safetensors (%zu tensors, %lld "
        "bytes), inputs.safetensors\n",
        dir.string().c_str(), llama->layers, llama->stages, example.weights.size(),
        static_cast<long long>(bytes));
    return 0;
  };
}

}  // namespace pipesplit::cli
