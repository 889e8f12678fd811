// Convolutions and pooling: nn.conv{1,2,3}d, nn.conv{1,2,3}d_transpose, nn.{max,avg}_pool{1,2,3}d
// and nn.adaptive_avg_pool{1,2,3}d, with layouts given as axis strings ("NCHW", "NHWC", ...).
#include "src/ir/op/op_families.h"

namespace pipesplit::ir {
namespace {

// Spatial axis letters by number of spatial dims.
std::string Spatial(int n) { return n == 1 ? "W" : n == 2 ? "HW" : "DHW"; }

// (in + pad - dilation * (k - 1) - 1 [+ stride - 1 with ceil_mode]) // stride + 1.
PrimExpr WindowOutput(const PrimExpr& in, int64_t pad, int64_t dilation, const PrimExpr& k,
                      int64_t stride, bool ceil_mode) {
  PrimExpr num = Sub(Sub(Add(in, Int64(pad)), Mul(Int64(dilation), Sub(k, Int64(1)))), Int64(1));
  if (ceil_mode) num = Add(num, Int64(stride - 1));
  return NormalizeArith(Add(FloorDiv(num, Int64(stride)), Int64(1)));
}

StructInfo InferConv(const CallNode& call, int n, bool transpose) {
  CheckArgCount(call, 2);
  const TensorSInfoNode& data = TensorArg(call, 0);
  const TensorSInfoNode& weight = TensorArg(call, 1);
  CallAttrs attrs(call);
  std::string canon_data = "NC" + Spatial(n);
  std::string canon_weight = (transpose ? "IO" : "OI") + Spatial(n);
  auto data_layout = TensorLayout::Parse(call, attrs.Str("data_layout"), canon_data, "data");
  auto weight_layout =
      TensorLayout::Parse(call, attrs.Str("kernel_layout"), canon_weight, "kernel");
  auto out_layout = TensorLayout::Parse(call, attrs.Str("out_layout"), canon_data, "output");
  auto data_shape = data_layout.ShapeOf(call, data, "data");
  auto weight_shape = weight_layout.ShapeOf(call, weight, "kernel");
  DataType dtype = attrs.DType("out_dtype");
  if (dtype.is_void()) {
    DataType a = data.dtype(), b = weight.dtype();
    if (!a.is_void() && !b.is_void() && a != b && !a.is_bool() && !b.is_bool()) {
      Fail(call, "dtypes " + a.ToString() + " and " + b.ToString() + " do not match");
    }
    dtype = (a.is_void() || b.is_void()) ? DataType::Void() : a;
  }
  std::string vdevice = JoinVDevice(call, data.vdevice(), weight.vdevice());
  if (!data_shape || !weight_shape) return MakeTensorNdim(dtype, out_layout.ndim(), vdevice);
  std::vector<PrimExpr> d = data_layout.ToPrimal(*data_shape);
  std::vector<PrimExpr> w = weight_layout.ToPrimal(*weight_shape);
  int64_t groups = attrs.Int("groups");
  if (groups <= 0) Fail(call, "groups must be positive");
  std::vector<int64_t> strides = attrs.IntList("strides");
  std::vector<int64_t> padding = attrs.IntList("padding");
  std::vector<int64_t> dilation = attrs.IntList("dilation");
  std::vector<int64_t> output_padding;
  if (transpose) output_padding = attrs.IntList("output_padding");
  CheckIntRange(call, "strides", strides, 1);
  CheckIntRange(call, "dilation", dilation, 1);
  CheckIntRange(call, "padding", padding, -(int64_t{1} << 31) + 1);
  CheckIntRange(call, "output_padding", output_padding, 0);
  if (static_cast<int>(strides.size()) != n || static_cast<int>(dilation.size()) != n ||
      static_cast<int>(padding.size()) != 2 * n ||
      (transpose && static_cast<int>(output_padding.size()) != n)) {
    Fail(call, "strides, dilation and padding do not match the " + std::to_string(n) +
                   " spatial dimensions");
  }
  std::vector<PrimExpr> out(n + 2);
  out[0] = d[0];
  if (!transpose) {
    if (ProvablyNe(d[1], Mul(w[1], Int64(groups)))) {
      Fail(call, "the data has " + ToString(d[1]) + " channels but the kernel expects " +
                     ToString(w[1]) + " x " + std::to_string(groups) + " groups");
    }
    if (auto o = AsConstInt(w[0]); o && *o % groups != 0) {
      Fail(call, "the " + std::to_string(*o) + " output channels are not divisible into " +
                     std::to_string(groups) + " groups");
    }
    out[1] = w[0];
  } else {
    if (ProvablyNe(d[1], w[0])) {
      Fail(call,
           "the data has " + ToString(d[1]) + " channels but the kernel expects " + ToString(w[0]));
    }
    for (int i = 0; i < n; ++i) {
      if (output_padding[i] >= strides[i]) {
        Fail(call, "output_padding must be smaller than strides");
      }
    }
    out[1] = Mul(w[1], Int64(groups));
  }
  for (int i = 0; i < n; ++i) {
    int64_t pad = padding[i] + padding[i + n];
    const PrimExpr& k = w[i + 2];
    if (!transpose) {
      out[i + 2] = WindowOutput(d[i + 2], pad, dilation[i], k, strides[i], false);
    } else {
      PrimExpr v = Mul(Sub(d[i + 2], Int64(1)), Int64(strides[i]));
      v = Add(Sub(v, Int64(pad)), Mul(Int64(dilation[i]), Sub(k, Int64(1))));
      out[i + 2] = NormalizeArith(Add(v, Int64(output_padding[i] + 1)));
    }
  }
  return MakeTensor(out_layout.FromPrimal(out), dtype, vdevice);
}

StructInfo InferPool(const CallNode& call, int n) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& data = TensorArg(call, 0);
  CallAttrs attrs(call);
  std::string canon = "NC" + Spatial(n);
  auto layout = TensorLayout::Parse(call, attrs.Str("layout"), canon, "data");
  auto out_layout = TensorLayout::Parse(call, attrs.Str("out_layout"), canon, "output");
  auto shape = layout.ShapeOf(call, data, "data");
  if (!shape) return MakeTensorNdim(data.dtype(), out_layout.ndim(), data.vdevice());
  std::vector<PrimExpr> d = layout.ToPrimal(*shape);
  std::vector<int64_t> pool = attrs.IntList("pool_size");
  std::vector<int64_t> strides = attrs.IntList("strides");
  std::vector<int64_t> dilation = attrs.IntList("dilation");
  std::vector<int64_t> padding = attrs.IntList("padding");
  bool ceil_mode = attrs.Bool("ceil_mode");
  CheckIntRange(call, "pool_size", pool, 1);
  CheckIntRange(call, "strides", strides, 1);
  CheckIntRange(call, "dilation", dilation, 1);
  CheckIntRange(call, "padding", padding, -(int64_t{1} << 31) + 1);
  if (static_cast<int>(pool.size()) != n || static_cast<int>(strides.size()) != n ||
      static_cast<int>(dilation.size()) != n || static_cast<int>(padding.size()) != 2 * n) {
    Fail(call, "pool_size, strides, dilation and padding do not match the " + std::to_string(n) +
                   " spatial dimensions");
  }
  std::vector<PrimExpr> out = d;
  for (int i = 0; i < n; ++i) {
    PrimExpr size = WindowOutput(d[i + 2], padding[i] + padding[i + n], dilation[i], Int64(pool[i]),
                                 strides[i], ceil_mode);
    if (ceil_mode) {
      // The last window must start inside the input or its leading padding.
      auto s = AsConstInt(size), in = AsConstInt(d[i + 2]);
      if (!s || !in) return MakeTensorNdim(data.dtype(), out_layout.ndim(), data.vdevice());
      if ((*s - 1) * strides[i] >= *in + padding[i]) size = Int64(*s - 1);
    }
    out[i + 2] = size;
  }
  return MakeTensor(out_layout.FromPrimal(out), data.dtype(), data.vdevice());
}

StructInfo InferAdaptivePool(const CallNode& call, int n) {
  CheckArgCount(call, 1);
  const TensorSInfoNode& data = TensorArg(call, 0);
  CallAttrs attrs(call);
  std::string canon = "NC" + Spatial(n);
  std::string layout_name = attrs.Str("layout");
  std::string out_layout_name = attrs.Str("out_layout");
  auto layout = TensorLayout::Parse(call, layout_name, canon, "data");
  auto out_layout = TensorLayout::Parse(call, out_layout_name, canon, "output");
  auto output_size = attrs.OptIntList("output_size");
  auto shape = layout.ShapeOf(call, data, "data");
  if (!shape) return MakeTensorNdim(data.dtype(), out_layout.ndim(), data.vdevice());
  std::vector<PrimExpr> out = layout.ToPrimal(*shape);
  if (output_size) {
    if (static_cast<int>(output_size->size()) != n) {
      Fail(call, "output_size must have " + std::to_string(n) + " entries");
    }
    for (int i = 0; i < n; ++i) out[i + 2] = Int64((*output_size)[i]);
  }
  return MakeTensor(out_layout.FromPrimal(out), data.dtype(), data.vdevice());
}

// Attribute completion shared by the family, as TVM's constructors do it: integers stand for
// one value per spatial dim, padding is expanded to both sides of every dim, and out_layout
// defaults to the input layout.
CompleteAttrsFn CompleteWindowAttrs(int n, const char* layout_key) {
  return [n, layout_key](AttrMap attrs, const std::vector<Expr>&) {
    std::string layout;
    for (const auto& [key, value] : attrs) {
      if (key == layout_key && value.as_string()) layout = *value.as_string();
    }
    for (auto& [key, value] : attrs) {
      std::optional<std::vector<int64_t>> list;
      if (auto v = value.ToInt()) {
        list = std::vector<int64_t>{*v};
      } else if (const AttrList* l = value.as_list()) {
        list.emplace();
        for (const AttrValue& item : *l) {
          auto i = item.ToInt();
          if (!i) {
            list.reset();
            break;
          }
          list->push_back(*i);
        }
      }
      if (key == "out_layout" && value.is_none()) {
        value = layout;
      } else if ((key == "output_size" || key == "strides" || key == "dilation" ||
                  key == "pool_size" || key == "output_padding") &&
                 list && list->size() == 1) {
        value = IntList(std::vector<int64_t>(n, (*list)[0]));
      } else if (key == "padding" && list) {
        std::vector<int64_t> p = *list;
        if (p.size() == 1) {
          p.assign(static_cast<size_t>(2) * n, p[0]);
        } else if (static_cast<int>(p.size()) == n && n > 1) {
          p.insert(p.end(), list->begin(), list->end());
        }
        value = IntList(p);
      }
    }
    return attrs;
  };
}

std::vector<int64_t> Repeat(int n, int64_t v) { return std::vector<int64_t>(n, v); }

void RegisterConv(int n, bool transpose) {
  std::string name = "relax.nn.conv" + std::to_string(n) + "d" + (transpose ? "_transpose" : "");
  std::string spatial = Spatial(n);
  std::vector<OpParam> params = {Arg("data"), Arg("weight"), Attr("strides", IntList(Repeat(n, 1))),
                                 Attr("padding", IntList(Repeat(2 * n, 0)))};
  if (transpose) params.push_back(Attr("output_padding", IntList(Repeat(n, 0))));
  params.push_back(Attr("dilation", IntList(Repeat(n, 1))));
  params.push_back(Attr("groups", 1));
  params.push_back(Attr("data_layout", "NC" + spatial));
  params.push_back(Attr("kernel_layout", (transpose ? "IO" : "OI") + spatial));
  params.push_back(Attr("out_layout", AttrValue()));
  params.push_back(OptionalDType("out_dtype"));
  RegisterOp(
      {.name = name,
       .params = std::move(params),
       .infer = [n, transpose](const CallNode& call) { return InferConv(call, n, transpose); },
       .summary = std::to_string(n) + "-d " + (transpose ? "transposed " : "") + "convolution",
       .complete_attrs = CompleteWindowAttrs(n, "data_layout")});
}

void RegisterPool(int n, const std::string& kind) {
  std::string spatial = Spatial(n);
  // avg_pool1d and avg_pool3d count padding by default; the others do not (as in TVM).
  bool count_pad = kind == "avg" && n != 2;
  RegisterOp({.name = "relax.nn." + kind + "_pool" + std::to_string(n) + "d",
              .params = {Arg("data"), Attr("pool_size", IntList(Repeat(n, 1))),
                         Attr("strides", IntList(Repeat(n, 1))),
                         Attr("padding", IntList(Repeat(2 * n, 0))),
                         Attr("dilation", IntList(Repeat(n, 1))), Attr("ceil_mode", false),
                         Attr("count_include_pad", count_pad), Attr("layout", "NC" + spatial),
                         Attr("out_layout", AttrValue())},
              .infer = [n](const CallNode& call) { return InferPool(call, n); },
              .summary = std::to_string(n) + "-d " + kind + " pooling",
              .attr_order = {"pool_size", "strides", "dilation", "padding", "ceil_mode",
                             "count_include_pad", "layout", "out_layout"},
              .complete_attrs = CompleteWindowAttrs(n, "layout")});
}

}  // namespace

void RegisterConvPoolOps() {
  for (int n = 1; n <= 3; ++n) {
    RegisterConv(n, false);
    RegisterConv(n, true);
    RegisterPool(n, "max");
    RegisterPool(n, "avg");
    std::string spatial = Spatial(n);
    RegisterOp({.name = "relax.nn.adaptive_avg_pool" + std::to_string(n) + "d",
                .params = {Arg("data"), Attr("output_size", AttrValue()),
                           Attr("layout", "NC" + spatial), Attr("out_layout", AttrValue())},
                .infer = [n](const CallNode& call) { return InferAdaptivePool(call, n); },
                .summary = std::to_string(n) + "-d adaptive average pooling",
                .complete_attrs = CompleteWindowAttrs(n, "layout")});
  }
  // The two pooling gradients share their attributes and take the input's struct info.
  for (const char* pool : {"max_pool2d", "avg_pool2d"}) {
    RegisterOp({.name = std::string("relax.grad.") + pool + "_backward",
                .params = {Arg("output_grad"), Arg("data"), Attr("pool_size", IntList({1, 1})),
                           Attr("strides", IntList({1, 1})), Attr("padding", IntList({0, 0, 0, 0})),
                           Attr("dilation", IntList({1, 1})), Attr("ceil_mode", false),
                           Attr("count_include_pad", false), Attr("layout", "NCHW"),
                           Attr("out_layout", AttrValue())},
                .infer =
                    [](const CallNode& call) {
                      CheckArgCount(call, 2);
                      TensorArg(call, 0);
                      TensorArg(call, 1);
                      return ArgSInfo(call, 1);
                    },
                .summary = std::string("gradient of nn.") + pool + " with respect to its input",
                .attr_order = {"pool_size", "strides", "dilation", "padding", "ceil_mode",
                               "count_include_pad", "layout", "out_layout"},
                .complete_attrs = CompleteWindowAttrs(2, "layout")});
  }
}

}  // namespace pipesplit::ir
