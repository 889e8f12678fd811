// Neural-network operators other than convolution and pooling: parameterized activations,
// softmax, normalizations, dropout, losses, pad, pixel_shuffle, batch_flatten and attention.
#include <algorithm>

#include "src/ir/op/op_families.h"

namespace pipesplit::ir {
namespace {

void RequireFloat(const CallNode& call, const TensorSInfoNode& x) {
  if (!x.dtype().is_void() && !x.dtype().is_float()) {
    Fail(call, "requires a float tensor, got " + x.dtype().ToString());
  }
}

// softmax, log_softmax, prelu: float data, a valid axis; the result is the data's info.
StructInfo InferAxisActivation(const CallNode& call, size_t num_args) {
  CheckArgCount(call, num_args);
  const TensorSInfoNode& x = TensorArg(call, 0);
  for (size_t i = 1; i < num_args; ++i) TensorArg(call, i);
  if (x.ndim() == -1) return ArgSInfo(call, 0);
  RequireFloat(call, x);
  NormalizeAxis(call, x.ndim(), CallAttrs(call).Int("axis"));
  return ArgSInfo(call, 0);
}

StructInfo InferSoftmax(const CallNode& call) { return InferAxisActivation(call, 1); }
StructInfo InferPRelu(const CallNode& call) { return InferAxisActivation(call, 2); }

StructInfo InferDataIdentity(const CallNode& call) {
  CheckArgCount(call, 1);
  TensorArg(call, 0);
  return ArgSInfo(call, 0);
}

// The checks shared by batch_norm, layer_norm and rms_norm: float data, every other input of
// the data's dtype with one dim per normalized axis and matching lengths. Returns true when
// some length cannot be proven equal (the result shape is then unknown).
bool CheckNormInputs(const CallNode& call, const std::vector<int64_t>& axes) {
  const TensorSInfoNode& data = TensorArg(call, 0);
  std::vector<int> norm_axes;
  if (data.ndim() != -1) norm_axes = NormalizeAxes(call, data.ndim(), axes);
  RequireFloat(call, data);
  std::vector<std::vector<PrimExpr>> lengths;
  if (data.shape() && !norm_axes.empty()) {
    std::vector<PrimExpr> l;
    l.reserve(norm_axes.size());
    for (int a : norm_axes) l.push_back((*data.shape())[a]);
    lengths.push_back(std::move(l));
  }
  for (size_t i = 1; i < call.args().size(); ++i) {
    const TensorSInfoNode& t = TensorArg(call, i);
    if (t.dtype() != data.dtype()) {
      Fail(call, ArgName(call, i) + " has dtype " + t.dtype().ToString() + " but the data has " +
                     data.dtype().ToString());
    }
    if (t.ndim() != static_cast<int>(axes.size())) {
      Fail(call, ArgName(call, i) + " must have " + std::to_string(axes.size()) + " dimension" +
                     (axes.size() == 1 ? "" : "s") + " (one per axis), got " +
                     std::to_string(t.ndim()));
    }
    if (t.shape()) lengths.push_back(*t.shape());
  }
  for (size_t i = 1; i < lengths.size(); ++i) {
    for (size_t d = 0; d < axes.size(); ++d) {
      if (ProvablyNe(lengths[0][d], lengths[i][d])) {
        Fail(call, "the normalized lengths " + ShapeString(lengths[0]) + " and " +
                       ShapeString(lengths[i]) + " differ");
      }
      if (!ProvablyEq(lengths[0][d], lengths[i][d])) return true;
    }
  }
  return false;
}

StructInfo InferLayerNorm(const CallNode& call, size_t num_args) {
  CheckArgCount(call, num_args);
  const TensorSInfoNode& data = TensorArg(call, 0);
  if (CheckNormInputs(call, CallAttrs(call).IntList("axes"))) {
    return MakeTensorNdim(data.dtype(), data.ndim(), data.vdevice());
  }
  return ArgSInfo(call, 0);
}

StructInfo InferBatchNorm(const CallNode& call) {
  CheckArgCount(call, 5);
  const TensorSInfoNode& data = TensorArg(call, 0);
  if (CheckNormInputs(call, {CallAttrs(call).Int("axis")})) {
    StructInfo vec = MakeTensorNdim(data.dtype(), 1, data.vdevice());
    return TupleSInfo({MakeTensorNdim(data.dtype(), data.ndim(), data.vdevice()), vec, vec});
  }
  return TupleSInfo({ArgSInfo(call, 0), ArgSInfo(call, 3), ArgSInfo(call, 4)});
}

// group_norm and instance_norm: channel_axis outside axes, 1-d gamma and beta of the data's
// dtype; the result is the data's info.
StructInfo InferChannelNorm(const CallNode& call, bool grouped) {
  CheckArgCount(call, 3);
  const TensorSInfoNode& data = TensorArg(call, 0);
  CallAttrs attrs(call);
  int channel_axis = -1;
  if (data.ndim() != -1) {
    channel_axis = NormalizeAxis(call, data.ndim(), attrs.Int("channel_axis"));
    std::vector<int> axes = NormalizeAxes(call, data.ndim(), attrs.IntList("axes"));
    if (std::find(axes.begin(), axes.end(), channel_axis) != axes.end()) {
      Fail(call, "channel_axis " + std::to_string(channel_axis) + " must not be in axes");
    }
  }
  RequireFloat(call, data);
  if (grouped && data.shape() && channel_axis != -1) {
    int64_t groups = attrs.Int("num_groups");
    auto channels = AsConstInt((*data.shape())[channel_axis]);
    if (groups <= 0 || (channels && *channels % groups != 0)) {
      Fail(call, "the " + ToString((*data.shape())[channel_axis]) +
                     " channels are not divisible into " + std::to_string(groups) + " groups");
    }
  }
  for (size_t i = 1; i < 3; ++i) {
    const TensorSInfoNode& t = TensorArg(call, i);
    if (t.dtype() != data.dtype()) {
      Fail(call, ArgName(call, i) + " has dtype " + t.dtype().ToString() + " but the data has " +
                     data.dtype().ToString());
    }
    if (t.ndim() != 1) Fail(call, ArgName(call, i) + " must be 1-d");
    if (t.shape() && data.shape() && channel_axis != -1 &&
        ProvablyNe((*t.shape())[0], (*data.shape())[channel_axis])) {
      Fail(call, ArgName(call, i) + " must have one entry per channel");
    }
  }
  return ArgSInfo(call, 0);
}

StructInfo InferDropout(const CallNode& call) {
  CheckArgCount(call, 1);
  TensorArg(call, 0);
  return TupleSInfo({ArgSInfo(call, 0), ArgSInfo(call, 0)});
}

StructInfo InferCrossEntropy(const CallNode& call) {
  CheckArgCount(call, 2);
  const TensorSInfoNode& pred = TensorArg(call, 0);
  const TensorSInfoNode& label = TensorArg(call, 1);
  if (pred.ndim() != -1 && label.ndim() != -1 && pred.ndim() != label.ndim()) {
    Fail(call, "predictions and labels must have the same rank");
  }
  if (!pred.dtype().is_void() && !label.dtype().is_void() && pred.dtype() != label.dtype()) {
    Fail(call, "dtypes " + pred.dtype().ToString() + " and " + label.dtype().ToString() +
                   " do not match");
  }
  if (pred.shape() && label.shape()) {
    for (size_t i = 0; i < pred.shape()->size(); ++i) {
      if (ProvablyNe((*pred.shape())[i], (*label.shape())[i])) {
        Fail(call, "predictions and labels must have the same shape");
      }
    }
  }
  return MakeTensor({}, pred.dtype(), JoinVDevice(call, pred.vdevice(), label.vdevice()));
}

StructInfo InferNLLLoss(const CallNode& call) {
  CheckArgCountBetween(call, 2, 3);
  const TensorSInfoNode& pred = TensorArg(call, 0);
  const TensorSInfoNode& targets = TensorArg(call, 1);
  if (call.args().size() == 3) TensorArg(call, 2);
  if (!targets.dtype().is_void() && !targets.dtype().is_integer()) {
    Fail(call, "targets must have an integer dtype, got " + targets.dtype().ToString());
  }
  std::string reduction = CallAttrs(call).Str("reduction");
  if (reduction != "none" && reduction != "mean" && reduction != "sum") {
    Fail(call, "reduction must be \"none\", \"mean\" or \"sum\", got \"" + reduction + "\"");
  }
  if (reduction != "none") return MakeTensor({}, pred.dtype(), pred.vdevice());
  if (targets.shape()) return MakeTensor(*targets.shape(), pred.dtype(), pred.vdevice());
  return MakeTensorNdim(pred.dtype(), targets.ndim(), pred.vdevice());
}

StructInfo InferPad(const CallNode& call) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& x = TensorArg(call, 0);
  std::vector<int64_t> pad = CallAttrs(call).IntList("pad_width");
  CheckIntRange(call, "pad_width", pad, -(int64_t{1} << 31) + 1);
  if (x.ndim() == -1) return MakeTensorNdim(x.dtype(), -1, "");
  if (static_cast<int>(pad.size()) != 2 * x.ndim()) {
    Fail(call, "pad_width needs " + std::to_string(2 * x.ndim()) + " entries (two per dim), got " +
                   std::to_string(pad.size()));
  }
  if (!x.shape()) return MakeTensorNdim(x.dtype(), x.ndim(), "");
  std::vector<PrimExpr> shape;
  shape.reserve(x.ndim());
  for (int i = 0; i < x.ndim(); ++i) {
    shape.push_back(Add((*x.shape())[i], Int64(pad[2 * static_cast<size_t>(i)] +
                                               pad[2 * static_cast<size_t>(i) + 1])));
  }
  return MakeTensor(std::move(shape), x.dtype(), "");
}

StructInfo InferPixelShuffle(const CallNode& call) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& x = TensorArg(call, 0);
  int64_t r = CallAttrs(call).Int("upscale_factor");
  if (r <= 0 || r > (int64_t{1} << 31)) Fail(call, "upscale_factor must be positive");
  if (x.ndim() != -1 && x.ndim() < 3) Fail(call, "the input needs at least 3 dimensions");
  if (!x.shape()) return MakeTensorNdim(x.dtype(), x.ndim(), "");
  std::vector<PrimExpr> shape = *x.shape();
  size_t c = shape.size() - 3;
  auto channels = AsConstInt(shape[c]);
  if (channels && *channels % (r * r) != 0) {
    Fail(call, "the " + std::to_string(*channels) + " channels are not divisible by " +
                   std::to_string(r * r));
  }
  shape[c] = FloorDiv(shape[c], Int64(r * r));
  shape[c + 1] = Mul(shape[c + 1], Int64(r));
  shape[c + 2] = Mul(shape[c + 2], Int64(r));
  return MakeTensor(std::move(shape), x.dtype(), "");
}

StructInfo InferBatchFlatten(const CallNode& call) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& x = TensorArg(call, 0);
  if (x.ndim() == -1) return MakeTensorNdim(x.dtype(), 2, x.vdevice());
  if (x.ndim() < 2) Fail(call, "the input needs at least 2 dimensions");
  if (x.ndim() == 2) return ArgSInfo(call, 0);
  if (!x.shape()) return MakeTensorNdim(x.dtype(), 2, x.vdevice());
  std::vector<PrimExpr> rest(x.shape()->begin() + 1, x.shape()->end());
  return MakeTensor({(*x.shape())[0], ShapeProduct(rest)}, x.dtype(), x.vdevice());
}

StructInfo InferAttention(const CallNode& call) {
  CheckArgCountBetween(call, 3, 4);
  const TensorSInfoNode& q = TensorArg(call, 0);
  const TensorSInfoNode& k = TensorArg(call, 1);
  const TensorSInfoNode& v = TensorArg(call, 2);
  for (size_t i = 0; i < call.args().size(); ++i) {
    if (TensorArg(call, i).ndim() != 4) {
      Fail(call, ArgName(call, i) + " must be 4-d (batch, sequence, heads, head dim)");
    }
  }
  if (!q.shape() || !k.shape() || !v.shape()) return MakeTensorNdim(q.dtype(), 4, q.vdevice());
  const auto& qs = *q.shape();
  const auto& ks = *k.shape();
  const auto& vs = *v.shape();
  auto same = [&](const PrimExpr& a, const PrimExpr& b, const std::string& what) {
    if (ProvablyNe(a, b)) {
      Fail(call, what + " differs: " + ToString(a) + " and " + ToString(b));
    }
  };
  auto multiple = [&](const PrimExpr& a, const PrimExpr& b, const std::string& what) {
    auto ca = AsConstInt(a), cb = AsConstInt(b);
    if (ca && cb && *cb > 0 && *ca % *cb != 0) {
      Fail(call, what + " of the query (" + ToString(a) + ") is not a multiple of " + ToString(b));
    }
  };
  same(qs[0], ks[0], "the batch size of query and key");
  same(qs[0], vs[0], "the batch size of query and value");
  multiple(qs[2], ks[2], "the number of heads");
  multiple(qs[2], vs[2], "the number of heads");
  same(ks[1], vs[1], "the sequence length of key and value");
  same(qs[3], ks[3], "the head dim of query and key");
  if (call.args().size() == 4) {
    const TensorSInfoNode& bias = TensorArg(call, 3);
    if (bias.shape()) {
      const auto& bs = *bias.shape();
      auto same_or_one = [&](const PrimExpr& a, const PrimExpr& b, const std::string& what) {
        if (AsConstInt(b) != 1) same(a, b, what);
      };
      same_or_one(qs[0], bs[0], "the batch size of query and bias");
      same_or_one(qs[2], bs[1], "the number of heads of query and bias");
      same_or_one(qs[1], bs[2], "the sequence length of query and bias");
      same(ks[1], bs[3], "the sequence length of key and bias");
    }
  }
  return MakeTensor({qs[0], qs[1], qs[2], vs[3]}, q.dtype(), q.vdevice());
}

std::vector<OpParam> AttentionAttrs() {
  return {Attr("scale", AttrValue()), Attr("causal_mask", AttrValue()),
          Attr("window_size", AttrValue())};
}

}  // namespace

void RegisterNNOps() {
  RegisterOp({.name = "relax.nn.leakyrelu",
              .params = {Arg("data"), Attr("alpha", 0.01)},
              .infer = InferDataIdentity,
              .summary = "leaky rectified linear unit"});
  RegisterOp({.name = "relax.nn.softplus",
              .params = {Arg("data"), Attr("beta", 1.0), Attr("threshold", 20.0)},
              .infer = InferDataIdentity,
              .summary = "softplus, log(1 + exp(beta * x)) / beta"});
  RegisterOp({.name = "relax.nn.prelu",
              .params = {Arg("data"), Arg("alpha"), Attr("axis", 1)},
              .infer = InferPRelu,
              .summary = "parametric rectified linear unit"});
  RegisterOp({.name = "relax.nn.softmax",
              .params = {Arg("data"), Attr("axis", -1)},
              .infer = InferSoftmax,
              .summary = "softmax along an axis"});
  RegisterOp({.name = "relax.nn.log_softmax",
              .params = {Arg("data"), Attr("axis", -1)},
              .infer = InferSoftmax,
              .summary = "log of softmax along an axis"});
  RegisterOp(
      {.name = "relax.nn.batch_norm",
       .params = {Arg("data"), Arg("gamma"), Arg("beta"), Arg("moving_mean"), Arg("moving_var"),
                  RequiredAttr("axis"), Attr("epsilon", 1e-5), Attr("center", true),
                  Attr("scale", true), Attr("momentum", 0.1), Attr("training", true)},
       .infer = InferBatchNorm,
       .summary = "batch normalization (result, new moving mean, new moving variance)"});
  RegisterOp({.name = "relax.nn.layer_norm",
              .params = {Arg("data"), Arg("gamma"), Arg("beta"), RequiredAttr("axes"),
                         Attr("epsilon", 1e-5), Attr("center", true), Attr("scale", true)},
              .infer = [](const CallNode& call) { return InferLayerNorm(call, 3); },
              .summary = "layer normalization over axes",
              .complete_attrs = ListifyInts({"axes"})});
  RegisterOp({.name = "relax.nn.group_norm",
              .params = {Arg("data"), Arg("gamma"), Arg("beta"), RequiredAttr("num_groups"),
                         RequiredAttr("channel_axis"), RequiredAttr("axes"), Attr("epsilon", 1e-5),
                         Attr("center", true), Attr("scale", true)},
              .infer = [](const CallNode& call) { return InferChannelNorm(call, true); },
              .summary = "group normalization",
              .complete_attrs = ListifyInts({"axes"})});
  RegisterOp({.name = "relax.nn.instance_norm",
              .params = {Arg("data"), Arg("gamma"), Arg("beta"), RequiredAttr("channel_axis"),
                         RequiredAttr("axes"), Attr("epsilon", 1e-5), Attr("center", true),
                         Attr("scale", true)},
              .infer = [](const CallNode& call) { return InferChannelNorm(call, false); },
              .summary = "instance normalization",
              .complete_attrs = ListifyInts({"axes"})});
  RegisterOp(
      {.name = "relax.nn.rms_norm",
       .params = {Arg("data"), Arg("weight"), Attr("axes", IntList({-1})), Attr("epsilon", 1e-5)},
       .infer = [](const CallNode& call) { return InferLayerNorm(call, 2); },
       .summary = "root-mean-square normalization over axes",
       .complete_attrs = ListifyInts({"axes"})});
  RegisterOp({.name = "relax.nn.dropout",
              .params = {Arg("data"), Attr("rate", 0.5)},
              .infer = InferDropout,
              .summary = "dropout (result and mask)"});
  RegisterOp({.name = "relax.nn.cross_entropy_with_logits",
              .params = {Arg("predictions"), Arg("labels")},
              .infer = InferCrossEntropy,
              .summary = "cross entropy of logits against labels"});
  RegisterOp({.name = "relax.nn.nll_loss",
              .params = {Arg("predictions"), Arg("targets"), OptionalArg("weights"),
                         Attr("reduction", "mean"), Attr("ignore_index", -100)},
              .infer = InferNLLLoss,
              .summary = "negative log likelihood loss"});
  RegisterOp({.name = "relax.nn.pad",
              .params = {Arg("data"), RequiredAttr("pad_width"), Attr("pad_mode", "constant"),
                         Attr("pad_value", 0.0)},
              .infer = InferPad,
              .summary = "pad a tensor (constant, edge or reflect)",
              .attr_order = {"pad_width", "pad_value", "pad_mode"}});
  RegisterOp({.name = "relax.nn.pixel_shuffle",
              .params = {Arg("data"), RequiredAttr("upscale_factor")},
              .infer = InferPixelShuffle,
              .summary = "rearrange channels into spatial blocks"});
  RegisterOp({.name = "relax.nn.batch_flatten",
              .params = {Arg("data")},
              .infer = InferBatchFlatten,
              .summary = "flatten all but the first dimension"});
  std::vector<OpParam> attention = {Arg("query"), Arg("key"), Arg("value"), OptionalArg("bias")};
  std::vector<OpParam> attention_attrs = AttentionAttrs();
  attention.insert(attention.end(), attention_attrs.begin(), attention_attrs.end());
  RegisterOp({.name = "relax.nn.attention",
              .params = attention,
              .infer = InferAttention,
              .summary = "scaled dot-product attention on (batch, seq, heads, dim) tensors"});
  attention[3] = Arg("bias");
  RegisterOp({.name = "relax.nn.attention_bias",
              .params = attention,
              .infer = InferAttention,
              .summary = "scaled dot-product attention with an additive bias"});
  // TVM stores (queries, keys, values, seqstart_q, seqstart_k, max_seqlen_q, max_seqlen_k);
  // its constructor copies the _q values when the _k ones are not given.
  std::vector<OpParam> var_len = {Arg("queries"),
                                  Arg("keys"),
                                  Arg("values"),
                                  Arg("seqstart_q"),
                                  AtIndex(Arg("max_seqlen_q"), 5),
                                  AtIndex(OptionalArg("seqstart_k"), 4),
                                  AtIndex(OptionalArg("max_seqlen_k"), 6)};
  var_len.insert(var_len.end(), attention_attrs.begin(), attention_attrs.end());
  RegisterOp({.name = "relax.nn.attention_var_len",
              .params = var_len,
              .infer = nullptr,
              .summary = "attention over variable-length sequences packed in one batch"});
}

}  // namespace pipesplit::ir
