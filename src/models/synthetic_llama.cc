// Lowered Llama-like module generator (see synthetic_llama.h). Per layer: RMSNorm, q/k/v
// projections through dequantizing matmuls (uint32 packed weights + float16 scales),
// rotary embedding (tir_vars), fused attention, output projection with residual add,
// RMSNorm, SwiGLU MLP with residual add: 28 bindings.
#include "pipesplit/models/synthetic_llama.h"

#include <fmt/format.h>

#include <vector>

#include "pipesplit/ir/attr_names.h"
#include "pipesplit/ir/protocol.h"

namespace pipesplit::models {
namespace {

// One opaque TIR kernel: a pointwise loop over a [rows, cols] output; enough to look like
// lowered code (pipesplit never interprets TIR).
std::string Kernel(const std::string& name, const std::string& params, const std::string& buffers,
                   const std::string& out, int cols) {
  std::string text;
  text += "    @T.prim_func(private=True)\n";
  text += fmt::format("    def {}({}):\n", name, params);
  text += "        T.func_attr({\"tir.noalias\": T.bool(True)})\n";
  text += "        n = T.int64()\n";
  text += buffers;
  text += "        # with T.block(\"root\"):\n";
  text += fmt::format("        for i, j in T.grid(n, T.int64({})):\n", cols);
  text += fmt::format("            with T.block(\"{}\"):\n", name);
  text += "                v_i, v_j = T.axis.remap(\"SS\", [i, j])\n";
  text += fmt::format("                {}[T.int64(0), v_i, v_j] = T.float16(0)\n", out);
  return text + "\n";
}

std::string Tensor(const std::string& shape, const char* dtype) {
  return fmt::format("R.Tensor(({}), dtype=\"{}\")", shape, dtype);
}

struct Weights {
  std::vector<std::string> types;
  int Add(const std::string& type) {
    types.push_back(type);
    return static_cast<int>(types.size()) - 1;
  }
};

class SyntheticGenerator {
 public:
  explicit SyntheticGenerator(const SyntheticLlamaConfig& c) : c_(c) {
    int packed = c.hidden / 8;
    int scales = c.hidden / 32;
    embed_q_ = w_.Add(Tensor(fmt::format("{}, {}", c.vocab, packed), "uint32"));
    embed_s_ = w_.Add(Tensor(fmt::format("{}, {}", c.vocab, scales), "float16"));
    for (int l = 0; l < c.layers; ++l) {
      Layer layer;
      layer.norm1 = w_.Add(Tensor(fmt::format("{},", c.hidden), "float16"));
      for (int p = 0; p < 4; ++p) {
        layer.proj_q[p] = w_.Add(Tensor(fmt::format("{}, {}", packed, c.hidden), "uint32"));
        layer.proj_s[p] = w_.Add(Tensor(fmt::format("{}, {}", scales, c.hidden), "float16"));
      }
      layer.norm2 = w_.Add(Tensor(fmt::format("{},", c.hidden), "float16"));
      for (int p = 0; p < 2; ++p) {
        layer.up_q[p] = w_.Add(Tensor(fmt::format("{}, {}", packed, c.ffn), "uint32"));
        layer.up_s[p] = w_.Add(Tensor(fmt::format("{}, {}", scales, c.ffn), "float16"));
      }
      layer.down_q = w_.Add(Tensor(fmt::format("{}, {}", c.ffn / 8, c.hidden), "uint32"));
      layer.down_s = w_.Add(Tensor(fmt::format("{}, {}", c.ffn / 32, c.hidden), "float16"));
      layers_.push_back(layer);
    }
    final_norm_ = w_.Add(Tensor(fmt::format("{},", c.hidden), "float16"));
    head_q_ = w_.Add(Tensor(fmt::format("{}, {}", packed, c.vocab), "uint32"));
    head_s_ = w_.Add(Tensor(fmt::format("{}, {}", scales, c.vocab), "float16"));
  }

  std::string Module() {
    std::string out =
        "# from tvm.script import ir as I\n# from tvm.script import tir as T\n"
        "# from tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n";
    out += Kernels();
    if (c_.with_decode) out += Function("decode", "1", false);
    out += Function("prefill", "\"n\"", true);
    out.pop_back();  // one newline at the end
    return out;
  }

 private:
  struct Layer {
    int norm1, norm2, proj_q[4], proj_s[4], up_q[2], up_s[2], down_q, down_s;
  };

  std::string Kernels() const {
    std::string h = std::to_string(c_.hidden);
    std::string act = fmt::format(
        "        A = T.match_buffer(var_A, (T.int64(1), n, T.int64({})), \"float16\")\n", h);
    std::string act_f = fmt::format(
        "        A = T.match_buffer(var_A, (T.int64(1), n, T.int64({})), \"float16\")\n", c_.ffn);
    std::string out_h = fmt::format(
        "        out = T.match_buffer(var_out, (T.int64(1), n, T.int64({})), \"float16\")\n", h);
    std::string out_f = fmt::format(
        "        out = T.match_buffer(var_out, (T.int64(1), n, T.int64({})), \"float16\")\n",
        c_.ffn);
    std::string k;
    k += Kernel("attention", "var_q: T.handle, var_k: T.handle, var_v: T.handle, var_out: T.handle",
                out_h, "out", c_.hidden);
    k += Kernel("fused_decode_NT_matmul",
                "var_A: T.handle, W: T.handle, S: T.handle, "
                "var_out: T.handle",
                act + out_h, "out", c_.hidden);
    k += Kernel("fused_decode_NT_matmul_add",
                "var_A: T.handle, W: T.handle, S: T.handle, "
                "var_R: T.handle, var_out: T.handle",
                act + out_h, "out", c_.hidden);
    // The down projection: an FFN-wide activation in, a hidden-wide one out.
    k += Kernel("fused_decode_NT_matmul_add1",
                "var_A: T.handle, W: T.handle, S: T.handle, "
                "var_R: T.handle, var_out: T.handle",
                act_f + out_h, "out", c_.hidden);
    k += Kernel("fused_decode_NT_matmul_multiply",
                "var_A: T.handle, W: T.handle, S: T.handle, "
                "var_G: T.handle, var_out: T.handle",
                act + out_f, "out", c_.ffn);
    k += Kernel("fused_decode_NT_matmul_silu",
                "var_A: T.handle, W: T.handle, S: T.handle, "
                "var_out: T.handle",
                act + out_f, "out", c_.ffn);
    k += Kernel("lm_head", "var_A: T.handle, W: T.handle, S: T.handle, var_out: T.handle", act, "A",
                c_.vocab);
    k += Kernel("rms_norm", "var_A: T.handle, B: T.handle, var_out: T.handle", act + out_h, "out",
                c_.hidden);
    k += Kernel("rotary_embedding", "var_A: T.handle, var_out: T.handle, m: T.int64", act + out_h,
                "out", c_.hidden);
    k += Kernel("take_decode", "W: T.handle, S: T.handle, var_ids: T.handle, var_out: T.handle",
                out_h, "out", c_.hidden);
    return k;
  }

  std::string Function(const std::string& name, const std::string& seq, bool symbolic) {
    counter_ = 0;
    const std::string body_seq = symbolic ? "n" : seq;
    std::string packed = "R.Tuple(";
    for (size_t i = 0; i < w_.types.size(); ++i) {
      packed += (i ? ", " : "") + w_.types[i];
    }
    packed += ")";
    std::string act = Tensor(fmt::format("1, {}, {}", body_seq, c_.hidden), "float16");
    std::string act_sig = Tensor(fmt::format("1, {}, {}", seq, c_.hidden), "float16");
    std::string logits = Tensor(fmt::format("1, {}, {}", body_seq, c_.vocab), "float16");
    std::string logits_sig = Tensor(fmt::format("1, {}, {}", seq, c_.vocab), "float16");
    std::string f;
    f += "    @R.function\n";
    f += fmt::format("    def {}(input_ids: R.Tensor((1, {}), dtype=\"int32\"), {}: {}) -> {}:\n",
                     name, seq, ir::protocol::kPackedParams, packed, logits_sig);
    if (symbolic) f += "        n = T.int64()\n";
    f += fmt::format("        R.func_attr({{\"{}\": 1, \"{}\": {}}})\n", ir::attr::kNumInput,
                     ir::attr::kPipelineParallelStages, c_.stages);
    f += "        cls = Module\n        with R.dataflow():\n";
    std::string h = Read(embed_q_, &f);
    std::string hs = Read(embed_s_, &f);
    h = Call("take_decode", {h, hs, "input_ids"}, act, &f);
    int done_markers = 0;
    for (int l = 0; l < c_.layers; ++l) {
      const Layer& layer = layers_[l];
      std::string x = h;
      std::string norm = Call("rms_norm", {x, Read(layer.norm1, &f)}, act, &f);
      std::string qkv[3];
      for (int p = 0; p < 3; ++p) {
        std::string wq = Read(layer.proj_q[p], &f);
        std::string ws = Read(layer.proj_s[p], &f);
        qkv[p] = Call("fused_decode_NT_matmul", {norm, wq, ws}, act, &f);
      }
      std::string q = Call("rotary_embedding", {qkv[0]}, act, &f, body_seq);
      std::string k = Call("rotary_embedding", {qkv[1]}, act, &f, body_seq);
      std::string attn = Call("attention", {q, k, qkv[2]}, act, &f);
      std::string wq = Read(layer.proj_q[3], &f);
      std::string ws = Read(layer.proj_s[3], &f);
      std::string h1 = Call("fused_decode_NT_matmul_add", {attn, wq, ws, x}, act, &f);
      std::string norm2 = Call("rms_norm", {h1, Read(layer.norm2, &f)}, act, &f);
      std::string ffn = Tensor(fmt::format("1, {}, {}", body_seq, c_.ffn), "float16");
      std::string gq = Read(layer.up_q[0], &f), gs = Read(layer.up_s[0], &f);
      std::string gate = Call("fused_decode_NT_matmul_silu", {norm2, gq, gs}, ffn, &f);
      std::string uq = Read(layer.up_q[1], &f), us = Read(layer.up_s[1], &f);
      std::string up = Call("fused_decode_NT_matmul_multiply", {norm2, uq, us, gate}, ffn, &f);
      std::string dq = Read(layer.down_q, &f), ds = Read(layer.down_s, &f);
      h = Call("fused_decode_NT_matmul_add1", {up, dq, ds, h1}, act, &f);
      // Stage markers after evenly spread layers.
      if (done_markers + 1 < c_.stages && (l + 1) * c_.stages >= (done_markers + 1) * c_.layers &&
          l + 1 < c_.layers) {
        std::string b = Fresh();
        f += fmt::format("            {}: {} = R.call_pure_packed(\"{}\", {}, sinfo_args=({},))\n",
                         b, act, ir::protocol::kStageBoundary, h, act);
        h = b;
        ++done_markers;
      }
    }
    std::string norm = Call("rms_norm", {h, Read(final_norm_, &f)}, act, &f);
    std::string hq = Read(head_q_, &f), hs2 = Read(head_s_, &f);
    std::string out = Fresh("gv");
    f += fmt::format("            {} = R.call_tir(cls.lm_head, ({}, {}, {}), out_sinfo={})\n", out,
                     norm, hq, hs2, logits);
    f += fmt::format("            R.output({})\n        return {}\n\n", out, out);
    return f;
  }

  std::string Fresh(const char* prefix = "lv") { return fmt::format("{}{}", prefix, counter_++); }

  std::string Read(int index, std::string* f) {
    std::string v = Fresh();
    *f += fmt::format("            {}: {} = {}[{}]\n", v, w_.types[index],
                      ir::protocol::kPackedParams, index);
    return v;
  }

  std::string Call(const std::string& kernel, const std::vector<std::string>& args,
                   const std::string& out_sinfo, std::string* f, const std::string& tir_var = "") {
    std::string v = Fresh();
    std::string joined;
    for (size_t i = 0; i < args.size(); ++i) joined += (i ? ", " : "") + args[i];
    if (args.size() == 1) joined += ",";
    *f += fmt::format("            {} = R.call_tir(cls.{}, ({}), out_sinfo={}{})\n", v, kernel,
                      joined, out_sinfo,
                      tir_var.empty() ? "" : fmt::format(", tir_vars=R.shape([{}])", tir_var));
    return v;
  }

  SyntheticLlamaConfig c_;
  Weights w_;
  std::vector<Layer> layers_;
  int embed_q_, embed_s_, final_norm_, head_q_, head_s_;
  int counter_ = 0;
};

}  // namespace

std::string GenerateSyntheticLlama(const SyntheticLlamaConfig& config) {
  return SyntheticGenerator(config).Module();
}

}  // namespace pipesplit::models
