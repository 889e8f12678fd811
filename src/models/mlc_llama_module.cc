// The serving module of an MLC model folder (mlc_llama_module.h).
//
// Steps of WriteMlcLlamaModule:
//   1. MLC's parameters in its order (LlamaForCausalLM's named parameters, q4f16_1's q_weight
//      and q_scale pairs), the packed_params tuple type and the `_metadata` JSON naming them.
//   2. One `dequantize` kernel per quantized weight shape (q4f16_1).
//   3. The model functions, one binding per op as MLC's exporter writes them; a stage marker
//      before the first layer of every stage but the first.
//   4. create_paged_kv_cache: MLC's builtin with the model's heads, head dim, RoPE theta, layer
//      partition and cache dtype.
#include "pipesplit/models/mlc_llama_module.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <vector>

#include "pipesplit/ir/attr_names.h"
#include "pipesplit/ir/protocol.h"
#include "pipesplit/models/llama_serving.h"
#include "pipesplit/runtime/exec/paged_kv_cache.h"
#include "pipesplit/runtime/tensor/tensor.h"
#include "src/models/json_fields.h"
#include "src/models/mlc_llama_kernels.h"
#include "src/models/model_text.h"
#include "src/runtime/io/json_document.h"

namespace pipesplit::models {
namespace {

using runtime::JsonDocument;
using runtime::JsonValue;

// One parameter of the module: a plain weight or q4f16_1's pair.
struct Param {
  std::string name;            // MLC's name of the weight ("model.layers.0.mlp.down_proj.weight")
  int64_t rows = 0, cols = 0;  // cols 0: a vector (norm weight)
  bool quantized = false;
  int index = 0;  // its first field in packed_params
};

class ModuleWriter {
 public:
  ModuleWriter(const MlcLlamaModuleConfig& c, int stages)
      : c_(c), dtype_(c.quantization == "q0f32" ? "float32" : "float16"), stages_(stages) {}

  std::string Write() {
    // Step 1.
    const int64_t h = c_.hidden_size, d = c_.head_dim;
    embed_ = Add("model.embed_tokens.weight", c_.vocab_size, h, true);
    for (int64_t l = 0; l < c_.num_hidden_layers; ++l) {
      const std::string p = fmt::format("model.layers.{}.", l);
      Layer layer;
      layer.qkv = Add(p + "self_attn.qkv_proj.weight",
                      (c_.num_attention_heads + 2 * c_.num_key_value_heads) * d, h, true);
      layer.o = Add(p + "self_attn.o_proj.weight", h, c_.num_attention_heads * d, true);
      layer.gate_up = Add(p + "mlp.gate_up_proj.weight", 2 * c_.intermediate_size, h, true);
      layer.down = Add(p + "mlp.down_proj.weight", h, c_.intermediate_size, true);
      layer.in_norm = Add(p + "input_layernorm.weight", h, 0, false);
      layer.post_norm = Add(p + "post_attention_layernorm.weight", h, 0, false);
      layers_.push_back(layer);
    }
    norm_ = Add("model.norm.weight", h, 0, false);
    lm_head_ = c_.tie_word_embeddings ? embed_ : Add("lm_head.weight", c_.vocab_size, h, true);
    partition_ = ServingLayerPartition(static_cast<int>(c_.num_hidden_layers), stages_);
    packed_ = fmt::format("R.Tuple({})", fmt::join(types_, ", "));

    std::string out = fmt::format(
        "# The serving module of an MLC {} Llama, written by pipesplit from {}.\n"
        "@I.ir_module\nclass Module:\n",
        c_.quantization, c_.path);
    std::string functions = Embed() + "\n";
    for (const char* f : {"prefill", "decode", "batch_prefill", "batch_decode"}) {
      functions += ModelFunction(f) + "\n";
    }
    for (const auto& [name, text] : kernels_) out += text + "\n";
    return out + functions + CreateCache() + "\n" + Metadata();
  }

 private:
  struct Layer {
    const Param* qkv;
    const Param* o;
    const Param* gate_up;
    const Param* down;
    const Param* in_norm;
    const Param* post_norm;
  };

  bool Quantized() const { return c_.quantization == "q4f16_1"; }
  int64_t Groups(int64_t cols) const { return (cols + 31) / 32; }

  const Param* Add(const std::string& name, int64_t rows, int64_t cols, bool linear) {
    auto p = std::make_unique<Param>();
    p->name = name;
    p->rows = rows;
    p->cols = cols;
    p->quantized = linear && Quantized();
    p->index = static_cast<int>(types_.size());
    auto record = [&](const std::string& field, const std::vector<int64_t>& shape,
                      const std::string& dtype) {
      types_.push_back(fmt::format("R.Tensor(({}{}), dtype=\"{}\")", fmt::join(shape, ", "),
                                   shape.size() == 1 ? "," : "", dtype));
      params_json_.push_back(
          fmt::format(R"({{"name": "{}", "shape": [{}], "dtype": "{}", "preprocs": []}})", field,
                      fmt::join(shape, ", "), dtype));
    };
    if (p->quantized) {
      const std::string base = name.substr(0, name.size() - std::string(".weight").size());
      record(base + ".q_weight", {rows, Groups(cols) * 4}, "uint32");
      record(base + ".q_scale", {rows, Groups(cols)}, "float16");
    } else if (cols == 0) {
      record(name, {rows}, dtype_);
    } else {
      record(name, {rows, cols}, dtype_);
    }
    params_.push_back(std::move(p));
    return params_.back().get();
  }
  // Step 2: a kernel, written into the module once.
  std::string Kernel(KernelText kernel) {
    kernels_.emplace(kernel.name, std::move(kernel.text));
    return kernel.name;
  }

  static KernelWeight WeightShape(const Param& p) { return {p.rows, p.cols, p.quantized}; }

  std::string Tensor(const std::string& shape, const std::string& dtype = "") const {
    return fmt::format("R.Tensor(({}), dtype=\"{}\")", shape, dtype.empty() ? dtype_ : dtype);
  }

  void Line(const std::string& text) { body_ += "            " + text + "\n"; }

  std::string Fresh(const std::string& stem) { return fmt::format("{}{}", stem, counter_++); }

  // The fields of `p` in packed_params, as call_tir arguments ("w3, s4, ").
  std::string WeightArgs(const Param& p) {
    std::string args;
    for (int i = 0; i < (p.quantized ? 2 : 1); ++i) {
      std::string w = Fresh("w");
      Line(fmt::format("{} = {}[{}]", w, ir::protocol::kPackedParams, p.index + i));
      args += w + ", ";
    }
    return args;
  }

  std::string Weight(const Param& p) {
    std::string w = Fresh("w");
    Line(fmt::format("{} = {}[{}]", w, ir::protocol::kPackedParams, p.index));
    return w;
  }

  // x @ W^T (nn.Linear) for x of rows (b, s) as one kernel; `residual` added to it, or with
  // `logits` cast to float32, inside the kernel as MLC's fusion does.
  std::string Linear(const std::string& x, const Param& p, const std::string& b,
                     const std::string& s, const std::string& residual = "", bool logits = false) {
    const std::string form = b != "1" ? "mx1" : (s != "1" ? "1xm" : "1x1");
    const std::string epilogue =
        !residual.empty() ? "add" : (logits && dtype_ != "float32" ? "cast" : "");
    const std::string kernel = Kernel(NtMatmulKernel(WeightShape(p), form, epilogue, dtype_));
    std::string out = Fresh("mm");
    Line(fmt::format(
        "{} = R.call_tir(cls.{}, ({}{}{}), out_sinfo={})", out, kernel, WeightArgs(p), x,
        residual.empty() ? "" : ", " + residual,
        Tensor(fmt::format("{}, {}, {}", b, s, p.rows), epilogue == "cast" ? "float32" : "")));
    return out;
  }

  std::string RmsNorm(const std::string& x, const Param& weight, const std::string& b,
                      const std::string& s) {
    const std::string form = b != "1" ? "mx1" : (s != "1" ? "1xm" : "1x1");
    const std::string w = Weight(weight);
    std::string out = Fresh("rms");
    Line(fmt::format("{} = R.call_tir(cls.{}, ({}, {}), out_sinfo={})", out,
                     Kernel(RmsNormKernel(form, c_.hidden_size, c_.rms_norm_eps, dtype_)), x, w,
                     Tensor(fmt::format("{}, {}, {}", b, s, c_.hidden_size))));
    return out;
  }

  // One decoder layer on x (b, s, H); returns its output.
  std::string DecoderLayer(const Layer& w, const std::string& x, int64_t l, const std::string& b,
                           const std::string& s, const std::string& n) {
    const int64_t d = c_.head_dim, heads = c_.num_attention_heads;
    const int64_t qkv_heads = heads + 2 * c_.num_key_value_heads;
    const std::string qkv = Linear(RmsNorm(x, *w.in_norm, b, s), *w.qkv, b, s);
    const std::string r4 = Fresh("r"), r3 = Fresh("r"), attn = Fresh("attn"), o4 = Fresh("r"),
                      o = Fresh("r");
    Line(fmt::format("{} = R.reshape({}, R.shape([{}, {}, {}, {}]))", r4, qkv, b, s, qkv_heads, d));
    Line(fmt::format("{} = R.reshape({}, R.shape([{}, {}, {}]))", r3, r4, n, qkv_heads, d));
    Line(fmt::format(
        "{} = R.call_dps_packed(\"{}\", (paged_kv_cache, R.prim_value({}), "
        "R.prim_value(T.float64({:.17g})), {}), out_sinfo={})",
        attn, runtime::paged_kv::kAttentionWithFusedQkv, l, 1.0 / std::sqrt(static_cast<double>(d)),
        r3, Tensor(fmt::format("{}, {}, {}", n, heads, d))));
    Line(fmt::format("{} = R.reshape({}, R.shape([{}, {}, {}, {}]))", o4, attn, b, s, heads, d));
    Line(fmt::format("{} = R.reshape({}, R.shape([{}, {}, {}]))", o, o4, b, s, heads * d));
    const std::string h1 = Linear(o, *w.o, b, s, x);
    const std::string gu = Linear(RmsNorm(h1, *w.post_norm, b, s), *w.gate_up, b, s);
    const std::string split = Fresh("split"), g = Fresh("g"), u = Fresh("u"), act = Fresh("silu"),
                      m = Fresh("mul");
    Line(fmt::format("{} = R.split({}, indices_or_sections=2, axis=-1)", split, gu));
    Line(fmt::format("{} = {}[0]", g, split));
    Line(fmt::format("{} = {}[1]", u, split));
    Line(fmt::format("{} = R.nn.silu({})", act, g));
    Line(fmt::format("{} = R.multiply({}, {})", m, act, u));
    return Linear(m, *w.down, b, s, h1);
  }

  std::string Header(const std::string& name, const std::string& params, const std::string& ret,
                     int num_input, bool staged, const std::vector<std::string>& sym_vars) const {
    std::string attrs = fmt::format("\"{}\": {}", ir::attr::kNumInput, num_input);
    if (staged && stages_ > 1) {
      attrs += fmt::format(", \"{}\": {}", ir::attr::kPipelineParallelStages, stages_);
    }
    std::string out = fmt::format(
        "    @R.function\n    def {}({}) -> {}:\n        R.func_attr({{{}}})\n        cls = "
        "Module\n",
        name, params, ret, attrs);
    for (const std::string& v : sym_vars) out += fmt::format("        {} = T.int64()\n", v);
    return out;
  }

  std::string Embed() {
    body_.clear();
    if (embed_->quantized) {
      const std::string kernel = Kernel(DequantizeTakeKernel(WeightShape(*embed_)));
      Line(fmt::format("gv = R.call_tir(cls.{}, ({}input_ids), out_sinfo={})", kernel,
                       WeightArgs(*embed_),
                       Tensor(fmt::format("\"seq_len\", {}", c_.hidden_size))));
    } else {
      Line(fmt::format("gv = R.take({}, input_ids, axis=0)", Weight(*embed_)));
    }
    Line("R.output(gv)");
    return Header("embed",
                  fmt::format("input_ids: R.Tensor((\"seq_len\",), dtype=\"int32\"), {}: {}",
                              ir::protocol::kPackedParams, packed_),
                  Tensor(fmt::format("\"seq_len\", {}", c_.hidden_size)), 1, false, {"seq_len"}) +
           "        with R.dataflow():\n" + body_ + "        return gv\n";
  }

  std::string ModelFunction(const std::string& name) {
    const int64_t h = c_.hidden_size, v = c_.vocab_size;
    std::string b = "1", s = "1", n = "1", params, logits;
    std::vector<std::string> syms;
    int num_input = 2;
    std::string x = "input_embeds";
    if (name == "prefill") {
      s = n = "seq_len";
      x = "input_embed";
      params = "input_embed: " + Tensor(fmt::format("1, \"seq_len\", {}", h));
      logits = fmt::format("1, 1, {}", v);
      syms = {"seq_len"};
    } else if (name == "decode") {
      x = "input_embed";
      params = "input_embed: " + Tensor(fmt::format("1, 1, {}", h));
      logits = fmt::format("1, 1, {}", v);
    } else if (name == "batch_prefill") {
      s = n = "seq_len";
      params = "input_embeds: " + Tensor(fmt::format("1, \"seq_len\", {}", h)) +
               ", logit_positions: R.Tensor((\"batch_size\",), dtype=\"int32\")";
      logits = fmt::format("1, \"batch_size\", {}", v);
      syms = {"seq_len", "batch_size"};
      num_input = 3;
    } else {
      b = n = "batch_size";
      params = "input_embeds: " + Tensor(fmt::format("\"batch_size\", 1, {}", h));
      logits = fmt::format("\"batch_size\", 1, {}", v);
      syms = {"batch_size"};
    }
    params +=
        fmt::format(", paged_kv_cache: R.Object, {}: {}", ir::protocol::kPackedParams, packed_);
    body_.clear();
    for (int64_t l = 0; l < c_.num_hidden_layers; ++l) {
      bool starts_stage = false;
      for (size_t i = 1; i + 1 < partition_.size(); ++i) starts_stage |= partition_[i] == l;
      if (starts_stage) {
        const std::string marker = Fresh("stage_boundary");
        Line(fmt::format("{} = R.call_pure_packed(\"{}\", {}, sinfo_args=({},))", marker,
                         ir::protocol::kStageBoundary, x,
                         Tensor(fmt::format("{}, {}, {}", b, s, h))));
        x = marker;
      }
      x = DecoderLayer(layers_[static_cast<size_t>(l)], x, l, b, s, n);
    }
    std::string last = RmsNorm(x, *norm_, b, s);
    if (name == "prefill") {
      Line(fmt::format(
          "last = R.strided_slice({}, (R.prim_value(1),), (R.prim_value(seq_len - 1),), "
          "(R.prim_value(seq_len),), assume_inbound=True)",
          last));
      last = "last";
    } else if (name == "batch_prefill") {
      Line(fmt::format("last = R.take({}, logit_positions, axis=1)", last));
      last = "last";
    }
    const std::string out =
        name == "batch_prefill"  ? Linear(last, *lm_head_, "1", "batch_size", "", true)
        : name == "batch_decode" ? Linear(last, *lm_head_, "batch_size", "1", "", true)
                                 : Linear(last, *lm_head_, "1", "1", "", true);
    Line(fmt::format("gv = ({}, paged_kv_cache)", out));
    Line("R.output(gv)");
    return Header(name, params, fmt::format("R.Tuple({}, R.Object)", Tensor(logits, "float32")),
                  num_input, true, syms) +
           "        with R.dataflow():\n" + body_ + "        return gv\n";
  }

  // Argument 11 of the cache's builtin: llama3 rope_scaling's JSON, else 0 (no ext factors).
  std::string RopeScalingArg() const {
    if (c_.rope_scaling_json.empty()) return "R.prim_value(0)";
    std::string escaped;
    for (char ch : c_.rope_scaling_json) {
      if (ch == '"' || ch == '\\') escaped += '\\';
      escaped += ch;
    }
    return "R.str(\"" + escaped + "\")";
  }

  // Step 4.
  std::string CreateCache() const {
    const std::vector<std::string> names = {"max_batch_size", "max_total_seq_len",
                                            "prefill_chunk_size", "page_size",
                                            "support_sliding_window"};
    std::vector<std::string> params;
    params.reserve(names.size());
    for (const std::string& name : names) {
      params.push_back(fmt::format("{}_: R.Shape([\"{}\"])", name, name));
    }
    std::string call = fmt::format(
        "R.call_pure_packed(\"{}\", R.shape([{}]), R.shape([{}]), R.prim_value({}), "
        "R.prim_value({}), R.prim_value({}), R.prim_value({}), R.shape([{}]), R.prim_value(0), "
        "R.prim_value(1), R.prim_value(T.float64(1)), R.prim_value(T.float64({:.17g})), "
        "{}, init",
        ir::protocol::kPagedKvCacheCreate, fmt::join(names, ", "), fmt::join(partition_, ", "),
        c_.num_attention_heads, c_.num_key_value_heads, c_.head_dim, c_.head_dim,
        fmt::join(std::vector<int>(static_cast<size_t>(c_.num_hidden_layers), 0), ", "),
        c_.rope_theta, RopeScalingArg());
    for (int i = 13; i < 28; ++i) call += ", R.tuple()";
    call += ", sinfo_args=(R.Object,))";
    return Header("create_paged_kv_cache", fmt::format("{}", fmt::join(params, ", ")), "R.Object",
                  5, false, names) +
           fmt::format(
               "        init: R.Tensor((), dtype=\"{0}\") = R.zeros(R.shape([]), "
               "dtype=\"{0}\")\n",
               dtype_) +
           "        paged_kv_cache: R.Object = " + call + "\n        return paged_kv_cache\n";
  }

  std::string Metadata() const {
    const std::string json = fmt::format(
        R"({{"model_type": "llama", "quantization": "{}", "tensor_parallel_shards": 1, )"
        R"("pipeline_parallel_stages": {}, "params": [{}]}})",
        c_.quantization, stages_, fmt::join(params_json_, ", "));
    return MetadataFunction(json);
  }

  const MlcLlamaModuleConfig& c_;
  std::string dtype_;
  int stages_;
  std::vector<std::unique_ptr<Param>> params_;
  std::vector<std::string> types_;
  std::vector<std::string> params_json_;
  std::map<std::string, std::string> kernels_;  // name -> TVMScript, written once each
  std::vector<Layer> layers_;
  const Param* embed_ = nullptr;
  const Param* norm_ = nullptr;
  const Param* lm_head_ = nullptr;
  std::vector<int64_t> partition_;
  std::string packed_;
  std::string body_;
  int counter_ = 0;
};

}  // namespace

MlcLlamaModuleConfig ReadMlcLlamaModuleConfig(const std::string& chat_config_path) {
  std::shared_ptr<const JsonDocument> doc = JsonDocument::Load(chat_config_path);
  const JsonValue root = doc->root();
  if (!root.IsObject()) root.Fail("mlc-chat-config.json must be an object");
  MlcLlamaModuleConfig c;
  c.path = chat_config_path;
  const JsonValue type = root.Field("model_type");
  if (type.String() != "llama") {
    type.Fail(
        fmt::format("pipesplit writes the module of model_type llama, not '{}': give the "
                    "module MLC compiled (--debug-dump) instead",
                    type.String()));
  }
  const JsonValue q = root.Field("quantization");
  c.quantization = q.String();
  if (c.quantization != "q0f32" && c.quantization != "q0f16" && c.quantization != "q4f16_1") {
    q.Fail(fmt::format("pipesplit writes modules for q0f32, q0f16 and q4f16_1, not '{}'",
                       c.quantization));
  }
  const JsonValue m = root.Field("model_config");
  if (!m.IsObject()) m.Fail("'model_config' must be an object");
  c.hidden_size = PositiveIntField(m, "hidden_size");
  c.intermediate_size = PositiveIntField(m, "intermediate_size");
  c.num_attention_heads = PositiveIntField(m, "num_attention_heads");
  c.num_hidden_layers = PositiveIntField(m, "num_hidden_layers");
  c.vocab_size = PositiveIntField(m, "vocab_size");
  c.rms_norm_eps = m.Field("rms_norm_eps").Number();
  c.num_key_value_heads = c.num_attention_heads;
  if (std::optional<JsonValue> kv = m.Find("num_key_value_heads"); kv && kv->Int() > 0) {
    c.num_key_value_heads = kv->Int();
    if (c.num_attention_heads % c.num_key_value_heads != 0) {
      kv->Fail(fmt::format("{} attention heads do not divide into {} key-value heads",
                           c.num_attention_heads, c.num_key_value_heads));
    }
  }
  c.head_dim = c.hidden_size / c.num_attention_heads;
  if (std::optional<JsonValue> d = m.Find("head_dim"); d && d->Int() > 0) c.head_dim = d->Int();
  if (c.head_dim % 2 != 0) m.Fail(fmt::format("head_dim {} must be even (RoPE)", c.head_dim));
  if (std::optional<JsonValue> base = m.Find("position_embedding_base"); base && !base->IsNull()) {
    c.rope_theta = base->Number();
  }
  if (std::optional<JsonValue> tie = m.Find("tie_word_embeddings"); tie && !tie->IsNull()) {
    c.tie_word_embeddings = tie->Bool();
  }
  if (std::optional<JsonValue> rope = m.Find("rope_scaling"); rope && !rope->IsNull()) {
    std::optional<JsonValue> kind = rope->IsObject() ? rope->Find("rope_type") : std::nullopt;
    if (!kind || kind->String() != "llama3") {
      rope->Fail("the module pipesplit writes applies rope_scaling of rope_type llama3 only");
    }
    for (const char* key :
         {"factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"}) {
      rope->Field(key).Number();
    }
    c.rope_scaling_json = rope->json().dump();
  }
  if (std::optional<JsonValue> tp = m.Find("tensor_parallel_shards"); tp && tp->Int() > 1) {
    tp->Fail(
        "the module pipesplit writes is not sharded (tensor_parallel_shards 1): give the "
        "module MLC compiled for tensor parallelism instead");
  }
  return c;
}

std::string WriteMlcLlamaModule(const MlcLlamaModuleConfig& config, int stages) {
  const std::vector<int64_t> partition =
      ServingLayerPartition(static_cast<int>(config.num_hidden_layers), std::max(stages, 1));
  if (stages < 1 || partition[static_cast<size_t>(stages) - 1] >= config.num_hidden_layers) {
    throw runtime::RuntimeError(fmt::format(
        "{} pipeline stages of {} layers leave a stage without layers (MLC's layer partition [{}])",
        stages, config.num_hidden_layers, fmt::join(partition, ", ")));
  }
  return ModuleWriter(config, stages).Write();
}

}  // namespace pipesplit::models
