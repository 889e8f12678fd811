// `pipesplit convert` (mlc_convert.h): MLC's weight folder from a Hugging Face one. The steps
// are those of the header; QuantizeQ4F16 is in group_quantize.cc, mlc-chat-config.json in
// mlc_gen_config.cc.
#include "pipesplit/models/mlc_convert.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include "pipesplit/runtime/io/safetensors.h"
#include "pipesplit/serve/text/conversation.h"
#include "pipesplit/support/float16_bits.h"
#include "src/runtime/io/json_document.h"

namespace pipesplit::models {
namespace {

namespace fs = std::filesystem;
using runtime::JsonDocument;
using runtime::JsonValue;
using runtime::RuntimeError;

// One MLC parameter before quantization: its name, shape, the source tensors concatenated
// (along rows) to make it, and its dtype (the quantization's model dtype).
struct MlcParam {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<std::string> sources;
  bool quantize = false;  // q4f16_1: a linear weight or the embedding table
};

std::string ModelDtype(MlcQuantization q) {
  return q == MlcQuantization::kQ0F32 ? "float32" : "float16";
}

// Step 2: MLC's Llama parameters (LlamaForCausalLM's named parameters) and their sources.
std::vector<MlcParam> MlcParams(const HfLlamaConfig& c, MlcQuantization q) {
  const bool quantized = q == MlcQuantization::kQ4F16_1;
  const int64_t h = c.hidden_size, d = c.head_dim;
  std::vector<MlcParam> params;
  params.push_back(
      {"model.embed_tokens.weight", {c.vocab_size, h}, {"model.embed_tokens.weight"}, quantized});
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    const std::string p = fmt::format("model.layers.{}.", l);
    const std::string a = p + "self_attn.", m = p + "mlp.";
    params.push_back({a + "qkv_proj.weight",
                      {(c.num_attention_heads + 2 * c.num_key_value_heads) * d, h},
                      {a + "q_proj.weight", a + "k_proj.weight", a + "v_proj.weight"},
                      quantized});
    params.push_back(
        {a + "o_proj.weight", {h, c.num_attention_heads * d}, {a + "o_proj.weight"}, quantized});
    params.push_back({m + "gate_up_proj.weight",
                      {2 * c.intermediate_size, h},
                      {m + "gate_proj.weight", m + "up_proj.weight"},
                      quantized});
    params.push_back(
        {m + "down_proj.weight", {h, c.intermediate_size}, {m + "down_proj.weight"}, quantized});
    params.push_back({p + "input_layernorm.weight", {h}, {p + "input_layernorm.weight"}, false});
    params.push_back({p + "post_attention_layernorm.weight",
                      {h},
                      {p + "post_attention_layernorm.weight"},
                      false});
  }
  params.push_back({"model.norm.weight", {h}, {"model.norm.weight"}, false});
  if (!c.tie_word_embeddings) {
    params.push_back({"lm_head.weight", {c.vocab_size, h}, {"lm_head.weight"}, quantized});
  }
  return params;
}

// The tensors MLC's Llama loader declares unused (they are not counted as parameters).
bool IsUnused(const std::string& name) { return name.ends_with(".self_attn.rotary_emb.inv_freq"); }

int64_t Elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Step 2's checks: every source exists with the rows its parameter needs.
void CheckSources(const std::vector<MlcParam>& params,
                  const std::unordered_map<std::string, const HfTensorInfo*>& by_name,
                  const std::string& where) {
  for (const MlcParam& p : params) {
    int64_t rows = 0;
    for (const std::string& s : p.sources) {
      auto it = by_name.find(s);
      if (it == by_name.end()) {
        throw RuntimeError(fmt::format("{}: no tensor '{}' (MLC's '{}' is made from {})", where, s,
                                       p.name, fmt::join(p.sources, ", ")));
      }
      const HfTensorInfo& t = *it->second;
      const bool fits = t.shape.size() == p.shape.size() &&
                        std::equal(t.shape.begin() + 1, t.shape.end(), p.shape.begin() + 1);
      if (!fits) {
        throw RuntimeError(
            fmt::format("{}: tensor '{}' has shape [{}], but the config makes '{}' [{}]", t.file, s,
                        fmt::join(t.shape, ", "), p.name, fmt::join(p.shape, ", ")));
      }
      rows += t.shape.empty() ? 1 : t.shape[0];
    }
    if (!p.shape.empty() && rows != p.shape[0]) {
      throw RuntimeError(fmt::format("{}: {} make {} rows, but the config makes '{}' [{}]", where,
                                     fmt::join(p.sources, " + "), rows, p.name,
                                     fmt::join(p.shape, ", ")));
    }
  }
}

// Step 3: MLC's loading order, and the source parameters its loader counts (each file's tensors
// but the unused, counted again whenever the file is loaded again).
struct LoadPlan {
  std::vector<const MlcParam*> order;
  int64_t source_params = 0;
};

LoadPlan PlanLoading(const std::vector<MlcParam>& params, const std::vector<HfTensorInfo>& index) {
  std::map<std::string, std::vector<const MlcParam*>> by_source;
  for (const MlcParam& p : params) {
    for (const std::string& s : p.sources) by_source[s].push_back(&p);
  }
  std::vector<std::string> files;  // in order of first appearance
  std::map<std::string, std::vector<const HfTensorInfo*>> of_file;
  for (const HfTensorInfo& t : index) {
    if (of_file[t.file].empty()) files.push_back(t.file);
    of_file[t.file].push_back(&t);
  }
  std::unordered_map<std::string, std::string> file_of;
  for (const HfTensorInfo& t : index) file_of[t.name] = t.file;
  LoadPlan plan;
  std::set<const MlcParam*> seen;
  for (const std::string& f : files) {
    for (const HfTensorInfo* t : of_file[f]) {
      for (const MlcParam* p : by_source[t->name]) {
        if (seen.insert(p).second) plan.order.push_back(p);
      }
    }
  }
  std::set<std::string> loaded;
  for (const MlcParam* p : plan.order) {
    std::set<std::string> required;
    for (const std::string& s : p->sources) required.insert(file_of.at(s));
    bool load = false;
    for (const std::string& f : required) load = load || loaded.count(f) == 0;
    if (!load) continue;
    for (auto it = loaded.begin(); it != loaded.end();) {
      it = required.count(*it) ? std::next(it) : loaded.erase(it);
    }
    for (const std::string& f : required) {
      if (!loaded.insert(f).second) continue;
      for (const HfTensorInfo* t : of_file[f]) {
        if (!IsUnused(t->name)) plan.source_params += Elements(t->shape);
      }
    }
  }
  return plan;
}

// The stored records of one parameter: itself, or its q_weight and q_scale.
struct Output {
  std::string name;
  std::vector<int64_t> shape;
  std::string dtype;
};

std::vector<Output> Outputs(const MlcParam& p, MlcQuantization q) {
  if (!(p.quantize && q == MlcQuantization::kQ4F16_1)) return {{p.name, p.shape, ModelDtype(q)}};
  const std::string base = p.name.substr(0, p.name.size() - std::string(".weight").size());
  const int64_t groups = (p.shape[1] + 31) / 32;
  return {{base + ".q_weight", {p.shape[0], groups * 4}, "uint32"},
          {base + ".q_scale", {p.shape[0], groups}, "float16"}};
}

// Step 2: a source tensor's values converted to the model dtype (numpy's astype: float16
// rounds to nearest even, bfloat16 widens exactly).
void AppendConverted(const runtime::Tensor& t, const std::string& dtype,
                     std::vector<uint8_t>& out) {
  const size_t n = static_cast<size_t>(t.numel());
  const size_t at = out.size();
  const bool to_f32 = dtype == "float32";
  out.resize(at + n * (to_f32 ? 4 : 2));
  uint8_t* dst = out.data() + at;
  const auto* src = static_cast<const uint8_t*>(t.raw_data());
  const DataType from = t.dtype();
  if (from == (to_f32 ? DataType::Float(32) : DataType::Float(16))) {
    std::memcpy(dst, src, n * (to_f32 ? 4 : 2));
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    float v;
    if (from == DataType::Float(32)) {
      std::memcpy(&v, src + 4 * i, 4);
    } else {
      uint16_t bits;
      std::memcpy(&bits, src + 2 * i, 2);
      v = from == DataType::BFloat16() ? f16::BFloat16ToFloat(bits) : f16::HalfToFloat(bits);
    }
    if (to_f32) {
      std::memcpy(dst + 4 * i, &v, 4);
    } else {
      const uint16_t h = f16::FloatToHalf(v);
      std::memcpy(dst + 2 * i, &h, 2);
    }
  }
}

std::string MlcDtypeName(DataType dtype) {
  if (dtype == DataType::Float(32)) return "float32";
  if (dtype == DataType::Float(16)) return "float16";
  if (dtype == DataType::BFloat16()) return "bfloat16";
  return "";
}

// Step 1: the checkpoint's tensors in the order MLC's loader takes them.
std::vector<HfTensorInfo> ReadIndex(const fs::path& dir) {
  std::vector<HfTensorInfo> index;
  std::map<std::string, runtime::SafetensorsFile> files;
  auto open = [&](const std::string& file) -> const runtime::SafetensorsFile& {
    auto it = files.find(file);
    if (it == files.end()) {
      it = files.emplace(file, runtime::SafetensorsFile::Open((dir / file).string())).first;
    }
    return it->second;
  };
  auto info = [&](const std::string& name, const std::string& file) {
    const runtime::Tensor t = open(file).Get(name);
    HfTensorInfo i{name, file, std::vector<int64_t>(t.shape().begin(), t.shape().end()),
                   MlcDtypeName(t.dtype())};
    if (i.dtype.empty()) {
      throw RuntimeError(
          fmt::format("{}: tensor '{}' is {}; pipesplit converts float32, "
                      "bfloat16 and float16 weights",
                      (dir / file).string(), name, t.dtype().ToString()));
    }
    return i;
  };
  const fs::path index_path = dir / "model.safetensors.index.json";
  if (fs::exists(index_path)) {
    std::shared_ptr<const JsonDocument> doc = JsonDocument::Load(index_path.string());
    const JsonValue map = doc->root().Field("weight_map");
    if (!map.IsObject()) map.Fail("'weight_map' must be an object of file names");
    for (const auto& [name, _] : map.json().items()) {
      index.push_back(info(name, map.Field(name).String()));
    }
    return index;
  }
  if (!fs::exists(dir / "model.safetensors")) {
    throw RuntimeError(
        fmt::format("{}: no model.safetensors.index.json or model.safetensors "
                    "(pipesplit converts safetensors checkpoints)",
                    dir.string()));
  }
  std::vector<std::string> names = open("model.safetensors").names();
  std::sort(names.begin(), names.end());  // the order of safetensors' keys()
  for (const std::string& name : names) index.push_back(info(name, "model.safetensors"));
  return index;
}

ConvertReport Run(const HfLlamaConfig& config, const std::vector<HfTensorInfo>& index,
                  MlcQuantization q, const fs::path* hf_dir, const fs::path* out_dir) {
  const std::vector<MlcParam> params = MlcParams(config, q);
  std::unordered_map<std::string, const HfTensorInfo*> by_name;
  for (const HfTensorInfo& t : index) by_name[t.name] = &t;
  CheckSources(params, by_name, hf_dir ? hf_dir->string() : config.path);
  const LoadPlan plan = PlanLoading(params, index);
  TensorCacheWriter writer(out_dir ? out_dir->string() : "", /*plan_only=*/out_dir == nullptr);
  std::map<std::string, runtime::SafetensorsFile> files;
  ConvertReport report;
  for (const MlcParam* p : plan.order) {
    const std::vector<Output> outputs = Outputs(*p, q);
    for (const Output& o : outputs) {
      report.metadata.param_bytes +=
          static_cast<double>(TensorCacheWriter::DtypeBytes(o.dtype, Elements(o.shape)));
    }
    report.metadata.param_size += static_cast<int64_t>(outputs.size());
    if (!out_dir) {
      for (const Output& o : outputs) writer.Plan(o.name, o.shape, o.dtype);
      continue;
    }
    std::vector<uint8_t> value;  // the parameter in the model dtype
    for (const std::string& s : p->sources) {
      const HfTensorInfo& t = *by_name.at(s);
      auto it = files.find(t.file);
      if (it == files.end()) {
        it = files.emplace(t.file, runtime::SafetensorsFile::Open((*hf_dir / t.file).string()))
                 .first;
      }
      AppendConverted(it->second.Get(s), ModelDtype(q), value);
    }
    if (outputs.size() == 1) {
      writer.Add(outputs[0].name, outputs[0].shape, outputs[0].dtype, value);
      continue;
    }
    const Q4Weight w =
        QuantizeQ4F16(std::span(reinterpret_cast<const uint16_t*>(value.data()), value.size() / 2),
                      p->shape[0], p->shape[1]);
    writer.Add(
        outputs[0].name, outputs[0].shape, outputs[0].dtype,
        std::span(reinterpret_cast<const uint8_t*>(w.q_weight.data()), w.q_weight.size() * 4));
    writer.Add(outputs[1].name, outputs[1].shape, outputs[1].dtype,
               std::span(reinterpret_cast<const uint8_t*>(w.q_scale.data()), w.q_scale.size() * 2));
  }
  report.metadata.bits_per_param =
      plan.source_params == 0
          ? 0.0
          : report.metadata.param_bytes * 8.0 / static_cast<double>(plan.source_params);
  report.shards = writer.Finish(report.metadata);
  return report;
}

}  // namespace

std::optional<MlcQuantization> ParseMlcQuantization(std::string_view name) {
  if (name == "q0f32") return MlcQuantization::kQ0F32;
  if (name == "q0f16") return MlcQuantization::kQ0F16;
  if (name == "q4f16_1") return MlcQuantization::kQ4F16_1;
  return std::nullopt;
}

std::string_view MlcQuantizationName(MlcQuantization q) {
  switch (q) {
    case MlcQuantization::kQ0F32:
      return "q0f32";
    case MlcQuantization::kQ0F16:
      return "q0f16";
    case MlcQuantization::kQ4F16_1:
      return "q4f16_1";
  }
  return "";
}

ConvertReport PlanConversion(const HfLlamaConfig& config, const std::vector<HfTensorInfo>& tensors,
                             MlcQuantization quantization) {
  return Run(config, tensors, quantization, nullptr, nullptr);
}

ConvertReport ConvertHuggingFace(const std::string& hf_dir, const std::string& out_dir,
                                 const ConvertOptions& options) {
  const fs::path in(hf_dir), out(out_dir);
  if (!fs::is_directory(in)) throw RuntimeError(hf_dir + ": not a folder");
  if (!serve::text::ConversationPreset(options.conv_template)) {
    throw RuntimeError(fmt::format("--conv-template: '{}' is not a template pipesplit knows ({})",
                                   options.conv_template,
                                   fmt::join(serve::text::ConversationPresetNames(), ", ")));
  }
  const HfLlamaConfig config = ReadHfLlamaConfig((in / "config.json").string());  // step 1
  const std::vector<HfTensorInfo> index = ReadIndex(in);
  if (fs::exists(out) && !fs::is_directory(out)) throw RuntimeError(out_dir + ": not a folder");
  ConvertReport report = Run(config, index, options.quantization, &in, &out);  // steps 2-5
  // Step 6: the tokenizer files (MLC's list, in its order), then the chat config.
  for (const char* name : {"tokenizer.model", "tokenizer.json", "vocab.json", "merges.txt",
                           "added_tokens.json", "tokenizer_config.json"}) {
    if (!fs::exists(in / name)) continue;
    std::error_code ec;
    fs::copy_file(in / name, out / name, fs::copy_options::overwrite_existing, ec);
    if (ec)
      throw RuntimeError(fmt::format("cannot copy {}: {}", (in / name).string(), ec.message()));
    report.tokenizer_files.emplace_back(name);
  }
  const std::string chat = MlcChatConfigJson(config, options, report.tokenizer_files, out_dir);
  std::ofstream file(out / "mlc-chat-config.json", std::ios::binary);
  file << chat;
  if (!file) throw RuntimeError("cannot write " + (out / "mlc-chat-config.json").string());
  return report;
}

}  // namespace pipesplit::models
