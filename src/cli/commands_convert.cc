// pipesplit convert HF_DIR --quantization q0f32|q0f16|q4f16_1 -o FOLDER: an MLC model folder from
// a Hugging Face one, as `mlc_llm convert_weight` and `mlc_llm gen_config` write it
// (models/mlc_convert.h). This file only wires flags.
#include <cstdio>
#include <string>

#include "pipesplit/models/mlc_convert.h"
#include "pipesplit/serve/text/conversation.h"
#include "src/cli/cli_common.h"

namespace pipesplit::cli {
namespace {

struct ConvertArgs {
  std::string hf_dir;
  std::string output;
  std::string quantization;
  models::ConvertOptions options;
  int64_t context_window_size = 0;
  int64_t prefill_chunk_size = 0;
};

int Convert(const ConvertArgs& args) {
  models::ConvertOptions options = args.options;
  options.quantization = *models::ParseMlcQuantization(args.quantization);
  if (args.context_window_size > 0) options.context_window_size = args.context_window_size;
  if (args.prefill_chunk_size > 0) options.prefill_chunk_size = args.prefill_chunk_size;
  const models::ConvertReport report =
      models::ConvertHuggingFace(args.hf_dir, args.output, options);
  size_t records = 0;
  int64_t bytes = 0;
  for (const models::TensorCacheShard& s : report.shards) {
    records += s.records.size();
    bytes += s.nbytes;
  }
  std::printf(
      "wrote %s: %zu tensors in %zu shard%s (%.1f MiB, %.3f bits per parameter), "
      "mlc-chat-config.json (%s, conversation template %s)%s%s\n",
      args.output.c_str(), records, report.shards.size(), report.shards.size() == 1 ? "" : "s",
      static_cast<double>(bytes) / (1 << 20), report.metadata.bits_per_param,
      args.quantization.c_str(), options.conv_template.c_str(),
      report.tokenizer_files.empty() ? "" : ", ",
      report.tokenizer_files.empty() ? "" : "and the tokenizer files");
  return 0;
}

}  // namespace

Runner AddConvertCommand(CLI::App& app) {
  auto args = std::make_shared<ConvertArgs>();
  CLI::App* cmd = app.add_subcommand(
      "convert",
      "write an MLC model folder from a Hugging Face one (Llama family, safetensors), as "
      "mlc_llm convert_weight and gen_config do");
  cmd->add_option("hf_dir", args->hf_dir,
                  "the Hugging Face folder: config.json, model.safetensors or "
                  "model.safetensors.index.json and its shards, tokenizer files")
      ->required();
  cmd->add_option("-o,--output", args->output, "the MLC folder to write")->required();
  cmd->add_option("--quantization", args->quantization,
                  "q0f32 (float32), q0f16 (float16) or q4f16_1 (4-bit weights in groups of 32 "
                  "with float16 scales)")
      ->required()
      ->check(CLI::IsMember({"q0f32", "q0f16", "q4f16_1"}));
  std::string names;
  for (const std::string& n : serve::text::ConversationPresetNames()) {
    names += (names.empty() ? "" : ", ") + n;
  }
  cmd->add_option("--conv-template", args->options.conv_template,
                  "the chat template written to mlc-chat-config.json, one of MLC's: " + names +
                      " (default: LM, no template)");
  cmd->add_option("--context-window-size", args->context_window_size,
                  "the longest sequence (default: config.json's max_position_embeddings)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  cmd->add_option("--prefill-chunk-size", args->prefill_chunk_size,
                  "the most tokens a prefill step takes (default: the context window, at most "
                  "8192)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  cmd->add_option("--max-batch-size", args->options.max_batch_size,
                  "the most sequences decoded at once (default: 128)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  cmd->add_option("--tensor-parallel-shards", args->options.tensor_parallel_shards,
                  "tensor_parallel_shards in the config (default: 1)")
      ->check(CLI::Range(int64_t{1}, int64_t{1024}));
  cmd->add_option("--pipeline-parallel-stages", args->options.pipeline_parallel_stages,
                  "pipeline_parallel_stages in the config (default: 1)")
      ->check(CLI::Range(int64_t{1}, int64_t{1024}));
  return [args] { return Convert(*args); };
}

}  // namespace pipesplit::cli
