// Tiny Llama generator (see llama_example.h). The module text is written without binding
// annotations (the parser infers them); weights are uniform in ±1/sqrt(fan_in) from a
// splitmix64 stream, so every platform generates the same bits.
#include "pipesplit/models/llama.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <stdexcept>
#include <utility>

#include "pipesplit/ir/attr_names.h"
#include "pipesplit/ir/protocol.h"
#include "src/models/model_text.h"
#include "src/models/splitmix.h"

namespace pipesplit::models {
namespace {

using Rng = SplitMix;

// How a weight is split under tensor parallelism: MLC's shard function name (null: not split)
// and the dim cut.
struct Shard {
  const char* name = nullptr;
  int dim = 0;
};

class Builder {
 public:
  explicit Builder(const LlamaConfig& c) : c_(c), rng_(c.seed) {}

  LlamaExample Build() {
    const int h = c_.hidden, d = c_.hidden / c_.heads, s = c_.seq, tp = c_.tensor_parallel;
    const int heads = c_.heads / tp;  // of one shard
    std::string& body = body_;
    auto line = [&](const std::string& text) { body += "            " + text + "\n"; };

    std::string embed = Weight("embed", {c_.vocab, h}, h);
    std::string cos = Table("rope.cos", true), sin = Table("rope.sin", false);
    std::string input_ids = "input_ids";
    if (tp > 1) {
      line("ids_b = R.ccl.broadcast_from_worker0(input_ids)");
      input_ids = "ids_b";
    }
    line(fmt::format("ids = R.reshape({}, R.shape([{}]))", input_ids, s));
    line(fmt::format("x0 = R.take({}, ids, axis=0)", Read(embed)));
    line(fmt::format("h0 = R.reshape(x0, R.shape([1, {}, {}]))", s, h));
    line(
        fmt::format("neg = R.full(R.shape([{}, {}]), R.const(-1.0e9, \"float32\"), "
                    "dtype=\"float32\")",
                    s, s));
    line("mask = R.triu(neg, R.prim_value(1))");
    std::string x = "h0";
    int markers = 0;
    for (int l = 0; l < c_.layers; ++l) {
      std::string p = fmt::format("l{}_", l);
      std::string attn_norm = Weight(fmt::format("layers.{}.attn_norm", l), {h}, 0);
      std::string wq = Weight(fmt::format("layers.{}.wq", l), {h, h}, h, {"_shard_q", 1});
      std::string wk = Weight(fmt::format("layers.{}.wk", l), {h, h}, h, {"_shard_k", 1});
      std::string wv = Weight(fmt::format("layers.{}.wv", l), {h, h}, h, {"_shard_v", 1});
      std::string wo = Weight(fmt::format("layers.{}.wo", l), {h, h}, h, {"_shard_o", 0});
      std::string mlp_norm = Weight(fmt::format("layers.{}.mlp_norm", l), {h}, 0);
      std::string wg =
          Weight(fmt::format("layers.{}.w_gate", l), {h, c_.ffn}, h, {"_shard_mlp_gate", 1});
      std::string wu =
          Weight(fmt::format("layers.{}.w_up", l), {h, c_.ffn}, h, {"_shard_mlp_up", 1});
      std::string wd =
          Weight(fmt::format("layers.{}.w_down", l), {c_.ffn, h}, c_.ffn, {"_shard_mlp_down", 0});
      line(fmt::format("{0}an = R.nn.rms_norm({1}, {2}, axes=[-1], epsilon=1.0000000000000001e-05)",
                       p, x, Read(attn_norm)));
      const char* names[3] = {"q", "k", "v"};
      std::string weights[3] = {wq, wk, wv};
      for (int i = 0; i < 3; ++i) {
        line(fmt::format("{0}{1} = R.matmul({0}an, {2})", p, names[i], Read(weights[i])));
        line(fmt::format("{0}{1}4 = R.reshape({0}{1}, R.shape([1, {2}, {3}, {4}]))", p, names[i], s,
                         heads, d));
        line(fmt::format("{0}{1}t = R.permute_dims({0}{1}4, axes=[0, 2, 1, 3])", p, names[i]));
      }
      for (const char* n : {"q", "k"}) {
        line(
            fmt::format("{0}{1}a = R.strided_slice({0}{1}t, (R.prim_value(3),), "
                        "(R.prim_value(0),), (R.prim_value({2}),))",
                        p, n, d / 2));
        line(
            fmt::format("{0}{1}b = R.strided_slice({0}{1}t, (R.prim_value(3),), "
                        "(R.prim_value({2}),), (R.prim_value({3}),))",
                        p, n, d / 2, d));
        line(fmt::format("{0}{1}nb = R.negative({0}{1}b)", p, n));
        line(fmt::format("{0}{1}rh = R.concat(({0}{1}nb, {0}{1}a), axis=-1)", p, n));
        line(fmt::format("{0}{1}c = R.multiply({0}{1}t, {2})", p, n, Read(cos)));
        line(fmt::format("{0}{1}s = R.multiply({0}{1}rh, {2})", p, n, Read(sin)));
        line(fmt::format("{0}{1}r = R.add({0}{1}c, {0}{1}s)", p, n));
      }
      line(fmt::format("{0}kT = R.permute_dims({0}kr, axes=[0, 1, 3, 2])", p));
      line(fmt::format("{0}sc = R.matmul({0}qr, {0}kT)", p));
      line(fmt::format("{0}ss = R.multiply({0}sc, R.const({1}, \"float32\"))", p,
                       fmt::format("{:.17g}", 1.0 / std::sqrt(static_cast<double>(d)))));
      line(fmt::format("{0}sm = R.add({0}ss, mask)", p));
      line(fmt::format("{0}pr = R.nn.softmax({0}sm, axis=-1)", p));
      line(fmt::format("{0}o = R.matmul({0}pr, {0}vt)", p));
      line(fmt::format("{0}ot = R.permute_dims({0}o, axes=[0, 2, 1, 3])", p));
      line(fmt::format("{0}o3 = R.reshape({0}ot, R.shape([1, {1}, {2}]))", p, s, heads * d));
      line(fmt::format("{0}ao = R.matmul({0}o3, {1})", p, Read(wo)));
      line(fmt::format("{0}h1 = R.add({1}, {2})", p, x, AllReduce(p + "ao")));
      line(fmt::format(
          "{0}mn = R.nn.rms_norm({0}h1, {1}, axes=[-1], epsilon=1.0000000000000001e-05)", p,
          Read(mlp_norm)));
      line(fmt::format("{0}g = R.matmul({0}mn, {1})", p, Read(wg)));
      line(fmt::format("{0}gs = R.nn.silu({0}g)", p));
      line(fmt::format("{0}u = R.matmul({0}mn, {1})", p, Read(wu)));
      line(fmt::format("{0}gu = R.multiply({0}gs, {0}u)", p));
      line(fmt::format("{0}dn = R.matmul({0}gu, {1})", p, Read(wd)));
      line(fmt::format("{0}h2 = R.add({0}h1, {1})", p, AllReduce(p + "dn")));
      x = p + "h2";
      if (markers + 1 < c_.stages && (l + 1) * c_.stages >= (markers + 1) * c_.layers &&
          l + 1 < c_.layers) {
        line(fmt::format("{0}b = R.call_pure_packed(\"{3}\", {1}, sinfo_args=({2},))", p, x,
                         F32(fmt::format("1, {}, {}", s, h)), ir::protocol::kStageBoundary));
        x = p + "b";
        ++markers;
      }
    }
    std::string final_norm = Weight("final_norm", {h}, 0);
    std::string head = Weight("lm_head", {h, c_.vocab}, h);
    line(fmt::format("hn = R.nn.rms_norm({}, {}, axes=[-1], epsilon=1.0000000000000001e-05)", x,
                     Read(final_norm)));
    line(fmt::format("logits = R.matmul(hn, {})", Read(head)));
    line("R.output(logits)");

    std::string packed = "R.Tuple(";
    for (size_t i = 0; i < types_.size(); ++i) packed += (i ? ", " : "") + types_[i];
    packed += ")";
    LlamaExample out;
    out.module_text = fmt::format(
        "# A tiny Llama-style model generated by `pipesplit example llama`.\n"
        "@I.ir_module\nclass Module:\n    @R.function\n"
        "    def main(input_ids: R.Tensor((1, {0}), dtype=\"int32\"), {5}: {1}) -> {2}:\n"
        "        R.func_attr({{\"{6}\": 1, \"{7}\": {3}}})\n"
        "        with R.dataflow():\n{4}        return logits\n",
        s, packed, F32(fmt::format("1, {}, {}", s, c_.vocab)), c_.stages, body,
        ir::protocol::kPackedParams, ir::attr::kNumInput, ir::attr::kPipelineParallelStages);
    if (tp > 1) out.module_text += TensorParallelMetadataFunction(c_, params_json_ + "]");
    out.weights = std::move(weights_);
    std::string names = "[";
    for (size_t i = 0; i < out.weights.size(); ++i) {
      names += (i ? ", \"" : "\"") + out.weights[i].first + "\"";
    }
    out.weight_metadata.emplace_back(ir::protocol::kPackedParams, names + "]");
    std::vector<int64_t> ids(s);
    for (int64_t& id : ids) id = static_cast<int64_t>(rng_.Next() % c_.vocab);
    out.inputs.emplace_back("input_ids", runtime::MakeIntTensor(DataType::Int(32), {1, s}, ids));
    return out;
  }

 private:
  // Registers a weight of (unsharded) `shape`; fan_in 0 means a norm weight (around 1). Under
  // tensor parallelism a weight with a `shard` is declared with its shard's shape.
  std::string Weight(const std::string& name, std::vector<int64_t> shape, int fan_in,
                     Shard shard = {}) {
    weights_.emplace_back(name, SeededWeight(rng_, shape, fan_in));
    std::string strategy = "null";
    if (shard.name != nullptr && c_.tensor_parallel > 1) {
      shape[shard.dim] /= c_.tensor_parallel;
      strategy = fmt::format(R"({{"name": "{}", "dim": {}, "segs": null}})", shard.name, shard.dim);
    }
    types_.push_back(F32(ShapeTupleText(shape)));
    params_json_ += fmt::format(
        R"({}{{"name": "{}", "shape": [{}], "dtype": "float32", "shard_strategy": {}}})",
        params_json_.size() > 1 ? ", " : "", name, fmt::join(shape, ", "), strategy);
    return std::to_string(types_.size() - 1);
  }

  // The partial sums of `partial` over the group (itself without tensor parallelism).
  std::string AllReduce(const std::string& partial) {
    if (c_.tensor_parallel == 1) return partial;
    body_ += fmt::format(
        "            {0}_ar = R.ccl.allreduce({0}, op_type=\"sum\", in_group=True)\n", partial);
    return partial + "_ar";
  }

  // Rotary tables [1, 1, seq, head_dim] (broadcast over heads): cos or sin of pos * freq.
  std::string Table(const std::string& name, bool is_cos) {
    const int d = c_.hidden / c_.heads;
    std::vector<double> values;
    for (int pos = 0; pos < c_.seq; ++pos) {
      for (int i = 0; i < d; ++i) {
        double freq = std::pow(10000.0, -2.0 * (i % (d / 2)) / d);
        values.push_back(is_cos ? std::cos(pos * freq) : std::sin(pos * freq));
      }
    }
    weights_.emplace_back(name,
                          runtime::MakeTensor(DataType::Float(32), {1, 1, c_.seq, d}, values));
    types_.push_back(F32(fmt::format("1, 1, {}, {}", c_.seq, d)));
    params_json_ += fmt::format(
        R"({}{{"name": "{}", "shape": [1, 1, {}, {}], "dtype": "float32", "shard_strategy": null}})",
        params_json_.size() > 1 ? ", " : "", name, c_.seq, d);
    return std::to_string(types_.size() - 1);
  }

  // Binds a fresh var to weight `index` (each use reads it again, as lowered code does).
  std::string Read(const std::string& index) {
    std::string var = "w" + index + "_" + std::to_string(reads_++);
    body_ += fmt::format("            {} = {}[{}]\n", var, ir::protocol::kPackedParams, index);
    return var;
  }

  LlamaConfig c_;
  Rng rng_;
  std::vector<runtime::NamedTensor> weights_;
  std::vector<std::string> types_;
  std::string params_json_ = "[";  // _metadata's params so far
  std::string body_;
  int reads_ = 0;
};

}  // namespace

void CheckModelSizes(const LlamaConfig& c) {
  const std::pair<int, const char*> sizes[] = {{c.layers, "--layers"}, {c.hidden, "--hidden"},
                                               {c.heads, "--heads"},   {c.ffn, "--ffn"},
                                               {c.vocab, "--vocab"},   {c.stages, "--stages"}};
  for (const auto& [value, flag] : sizes) {
    if (value < 1) throw std::invalid_argument(std::string(flag) + " must be at least 1");
  }
}

void CheckTensorParallel(const LlamaConfig& c, int kv_heads) {
  const int tp = c.tensor_parallel;
  if (tp < 1) throw std::invalid_argument("--tensor-parallel must be at least 1");
  const std::pair<int, const char*> split[] = {
      {c.heads, "--heads"}, {kv_heads, "--kv-heads"}, {c.ffn, "--ffn"}};
  for (const auto& [value, flag] : split) {
    if (value % tp != 0) {
      throw std::invalid_argument(
          fmt::format("{} ({}) must be a multiple of --tensor-parallel ({})", flag, value, tp));
    }
  }
}

std::string TensorParallelMetadataFunction(const LlamaConfig& c, const std::string& params_json) {
  std::string json = fmt::format(
      R"({{"model_type": "llama", "tensor_parallel_shards": {}, "pipeline_parallel_stages": {}, )"
      R"("params": {}}})",
      c.tensor_parallel, c.stages, params_json);
  return "\n" + MetadataFunction(json);
}

LlamaExample GenerateLlamaExample(const LlamaConfig& c) {
  CheckModelSizes(c);
  CheckTensorParallel(c, c.heads);
  if (c.seq < 1) throw std::invalid_argument("--seq must be at least 1");
  if (c.hidden % c.heads != 0 || (c.hidden / c.heads) % 2 != 0) {
    throw std::invalid_argument("--hidden must be a multiple of 2 * --heads");
  }
  if (c.stages > c.layers) {
    throw std::invalid_argument("--stages (" + std::to_string(c.stages) +
                                ") must not exceed --layers (" + std::to_string(c.layers) + ")");
  }
  return Builder(c).Build();
}

}  // namespace pipesplit::models
