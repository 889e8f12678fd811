// RunOp: Relax ops executed by the reference kernels. Attributes are read from the call, with
// the op table's defaults for those not written.
#include <functional>
#include <unordered_map>

#include "pipesplit/ir/op.h"
#include "pipesplit/ir/protocol.h"
#include "pipesplit/runtime/dist/collectives.h"
#include "pipesplit/runtime/exec/interpreter.h"
#include "pipesplit/runtime/kernels/kernels.h"
#include "src/runtime/exec/op_name.h"
#include "src/runtime/exec/op_profile.h"

namespace pipesplit::runtime {
namespace {

// The attribute `name` of the call, or the op's declared default (None when neither).
ir::AttrValue AttrOf(const ir::CallNode& call, const std::string& name) {
  if (const ir::AttrValue* v = ir::FindAttr(call.attrs(), name)) return *v;
  if (const ir::OpNode* op = call.op_node(); op && op->info()) {
    for (const ir::OpParam& p : op->info()->params) {
      if (p.name == name && p.default_value) return *p.default_value;
    }
  }
  return ir::AttrValue();
}

int64_t IntAttr(const ir::CallNode& call, const std::string& name) {
  ir::AttrValue v = AttrOf(call, name);
  if (auto i = v.ToInt()) return *i;
  throw RuntimeError(OpName(call) + ": attribute " + name + " must be an integer");
}

double FloatAttr(const ir::CallNode& call, const std::string& name) {
  ir::AttrValue v = AttrOf(call, name);
  if (const double* d = v.as_float()) return *d;
  if (auto i = v.ToInt()) return static_cast<double>(*i);
  if (const ir::PrimExpr* e = v.as_prim_expr()) {
    if (const auto* f = ir::As<ir::FloatImmNode>(*e)) return f->value();
  }
  throw RuntimeError(OpName(call) + ": attribute " + name + " must be a number");
}

bool BoolAttr(const ir::CallNode& call, const std::string& name) {
  ir::AttrValue v = AttrOf(call, name);
  if (const bool* b = v.as_bool()) return *b;
  if (auto i = v.ToInt()) return *i != 0;
  throw RuntimeError(OpName(call) + ": attribute " + name + " must be a boolean");
}

DataType DTypeAttr(const ir::CallNode& call, const std::string& name) {
  ir::AttrValue v = AttrOf(call, name);
  if (const std::string* s = v.as_string()) {
    if (auto t = DataType::Parse(*s)) return *t;
  }
  if (v.is_none()) return DataType::Void();
  throw RuntimeError(OpName(call) + ": attribute " + name + " must be a dtype");
}

// An int or a list of ints; nullopt for None.
std::optional<std::vector<int64_t>> IntsAttr(const ir::CallNode& call, const std::string& name) {
  ir::AttrValue v = AttrOf(call, name);
  if (v.is_none()) return std::nullopt;
  if (auto i = v.ToInt()) return std::vector<int64_t>{*i};
  if (const ir::AttrList* list = v.as_list()) {
    std::vector<int64_t> out;
    for (const ir::AttrValue& item : *list) {
      auto i = item.ToInt();
      if (!i) throw RuntimeError(OpName(call) + ": attribute " + name + " must hold integers");
      out.push_back(*i);
    }
    return out;
  }
  throw RuntimeError(OpName(call) + ": attribute " + name + " must be an integer list");
}

// Integers carried by a run-time value: a shape, a tuple of scalars, a scalar, or an integer
// tensor of rank 0 or 1.
std::vector<int64_t> IntsOf(const Value& v, const std::string& what) {
  if (const Shape* s = v.as_shape()) return *s;
  if (const PrimScalar* p = v.as_prim()) return {p->int_value};
  if (const auto* tuple = v.as_tuple()) {
    std::vector<int64_t> out;
    for (const Value& f : *tuple) {
      std::vector<int64_t> part = IntsOf(f, what);
      out.insert(out.end(), part.begin(), part.end());
    }
    return out;
  }
  if (const Tensor* t = v.as_tensor(); t && t->ndim() <= 1) return ToInt64Vector(*t);
  throw RuntimeError(what + " must be integers, got " + v.Describe());
}

const Tensor& T(const std::vector<Value>& args, size_t i, const ir::CallNode& call) {
  if (i >= args.size()) {
    throw RuntimeError(OpName(call) + ": missing argument " + std::to_string(i + 1));
  }
  return args[i].ExpectTensor(OpName(call) + " argument " + std::to_string(i + 1));
}

using OpFn = std::function<Value(const ir::CallNode&, const std::vector<Value>&)>;

std::unordered_map<std::string, OpFn> BuildTable() {
  std::unordered_map<std::string, OpFn> t;
  auto binary = [&](const char* name, Tensor (*fn)(const Tensor&, const Tensor&)) {
    t[std::string("relax.") + name] = [fn](const ir::CallNode& c, const std::vector<Value>& a) {
      return Value(fn(T(a, 0, c), T(a, 1, c)));
    };
  };
  auto unary = [&](const char* name, Tensor (*fn)(const Tensor&)) {
    t[std::string("relax.") + name] = [fn](const ir::CallNode& c, const std::vector<Value>& a) {
      return Value(fn(T(a, 0, c)));
    };
  };
  binary("add", Add);
  binary("subtract", Subtract);
  binary("multiply", Multiply);
  binary("divide", Divide);
  binary("floor_divide", FloorDivide);
  binary("floor_mod", FloorMod);
  binary("mod", Mod);
  binary("power", Power);
  binary("maximum", Maximum);
  binary("minimum", Minimum);
  binary("equal", Equal);
  binary("not_equal", NotEqual);
  binary("less", Less);
  binary("less_equal", LessEqual);
  binary("greater", Greater);
  binary("greater_equal", GreaterEqual);
  binary("logical_and", LogicalAnd);
  binary("logical_or", LogicalOr);
  binary("logical_xor", LogicalXor);
  unary("logical_not", LogicalNot);
  unary("negative", Negative);
  unary("abs", Abs);
  unary("square", Square);
  unary("exp", Exp);
  unary("log", Log);
  unary("sqrt", Sqrt);
  unary("rsqrt", Rsqrt);
  unary("tanh", Tanh);
  unary("sigmoid", Sigmoid);
  unary("erf", Erf);
  unary("sin", Sin);
  unary("cos", Cos);
  unary("floor", Floor);
  unary("ceil", Ceil);
  unary("nn.relu", Relu);
  unary("nn.silu", Silu);
  unary("nn.gelu", Gelu);
  unary("nn.gelu_tanh", GeluTanh);
  t["relax.where"] = [](const ir::CallNode& c, const std::vector<Value>& a) {
    return Value(Where(T(a, 0, c), T(a, 1, c), T(a, 2, c)));
  };
  t["relax.astype"] = [](const ir::CallNode& c, const std::vector<Value>& a) {
    return Value(Astype(T(a, 0, c), DTypeAttr(c, "dtype")));
  };
  t["relax.clip"] = [](const ir::CallNode& c, const std::vector<Value>& a) {
    auto bound = [&](size_t i) {
      if (i >= a.size()) throw RuntimeError("clip: missing bound");
      if (const PrimScalar* p = a[i].as_prim()) return p->AsDouble();
      return ElementAsDouble(a[i].ExpectTensor("clip bound"), 0);
    };
    return Value(Clip(T(a, 0, c), bound(1), bound(2)));
  };
  t["relax.matmul"] = [](const ir::CallNode& c, const std::vector<Value>& a) {
    return Value(Matmul(T(a, 0, c), T(a, 1, c), DTypeAttr(c, "out_dtype")));
  };
  t["relax.permute_dims"] = [](const ir::CallNode& c, const std::vector<Value>& a) {
    return Value(PermuteDims(T(a, 0, c), IntsAttr(c, "axes")));
  };
  t["relax.reshape"] = [](const ir::CallNode& c, const std::vector<Value>& a) {
    return Value(Reshape(T(a, 0, c), IntsOf(a.at(1), "reshape: the shape")));
  };
  t["relax.expand_dims"] = [](const ir::CallNode& c, const std::vector<Value>& a) {
    return Value(ExpandDims(T(a, 0, c), IntsAttr(c, "axis").value_or(std::vector<int64_t>{})));
  };
  t["relax.squeeze"] = [](const ir::CallNode& c, const std::vector<Value>& a) {
    return Value(Squeeze(T(a, 0, c), IntsAttr(c, "axis")));
  };
  t["relax.flatten"] = [](const ir::CallNode& c, const std::vector<Value>& a) {
    return Value(Flatten(T(a, 0, c)));
  };
  t["relax.broadcast_to"] = [](const ir::CallNode& c, const std::vector<Value>& a) {
    return Value(BroadcastTo(T(a, 0, c), IntsOf(a.at(1), "broadcast_to: the shape")));
  };
  t["relax.concat"] = [](const ir::CallNode& c, const std::vector<Value>& a) {
    std::vector<Tensor> parts;
    const auto* tuple = a.at(0).as_tuple();
    if (tuple == nullptr) throw RuntimeError("concat: expected a tuple of tensors");
    for (const Value& v : *tuple) parts.push_back(v.ExpectTensor("concat input"));
    auto axis = IntsAttr(c, "axis");
    return Value(Concat(parts, axis ? std::optional<int64_t>((*axis)[0]) : std::nullopt));
  };
  t["relax.split"] = [](const ir::CallNode& c, const std::vector<Value>& a) {
    ir::AttrValue spec = AttrOf(c, "indices_or_sections");
    std::variant<int64_t, std::vector<int64_t>> split;
    if (auto n = spec.ToInt()) {
      split = *n;
    } else {
      split = IntsAttr(c, "indices_or_sections").value_or(std::vector<int64_t>{});
    }
    Value::Tuple out;
    for (Tensor& part : Split(T(a, 0, c), split, IntAttr(c, "axis"))) out.push_back(part);
    return Value::MakeTuple(std::move(out));
  };
  t["relax.strided_slice"] = [](const ir::CallNode& c, const std::vector<Value>& a) {
    std::optional<std::vector<int64_t>> strides;
    if (a.size() > 4 && !a[4].is_null()) strides = IntsOf(a[4], "strided_slice: strides");
    return Value(StridedSlice(T(a, 0, c), IntsOf(a.at(1), "strided_slice: axes"),
                              IntsOf(a.at(2), "strided_slice: begin"),
                              IntsOf(a.at(3), "strided_slice: end"), strides));
  };
  t["relax.take"] = [](const ir::CallNode& c, const std::vector<Value>& a) {
    auto axis = IntsAttr(c, "axis");
    ir::AttrValue mode_attr = AttrOf(c, "mode");
    const std::string* mode = mode_attr.as_string();
    TakeMode m = TakeMode::kFast;
    if (mode && *mode == "clip") m = TakeMode::kClip;
    if (mode && *mode == "wrap") m = TakeMode::kWrap;
    return Value(
        Take(T(a, 0, c), T(a, 1, c), axis ? std::optional<int64_t>((*axis)[0]) : std::nullopt, m));
  };
  auto reduction = [&](const char* name, Tensor (*fn)(const Tensor&, const Axes&, bool)) {
    t[std::string("relax.") + name] = [fn](const ir::CallNode& c, const std::vector<Value>& a) {
      return Value(fn(T(a, 0, c), IntsAttr(c, "axis"), BoolAttr(c, "keepdims")));
    };
  };
  reduction("sum", Sum);
  reduction("mean", Mean);
  reduction("max", Max);
  reduction("min", Min);
  reduction("prod", Prod);
  t["relax.nn.softmax"] = [](const ir::CallNode& c, const std::vector<Value>& a) {
    return Value(Softmax(T(a, 0, c), IntAttr(c, "axis")));
  };
  t["relax.nn.log_softmax"] = [](const ir::CallNode& c, const std::vector<Value>& a) {
    return Value(LogSoftmax(T(a, 0, c), IntAttr(c, "axis")));
  };
  t["relax.nn.rms_norm"] = [](const ir::CallNode& c, const std::vector<Value>& a) {
    return Value(RmsNorm(T(a, 0, c), T(a, 1, c), IntsAttr(c, "axes").value_or(Shape{-1}),
                         FloatAttr(c, "epsilon")));
  };
  t["relax.nn.layer_norm"] = [](const ir::CallNode& c, const std::vector<Value>& a) {
    return Value(LayerNorm(T(a, 0, c), T(a, 1, c), T(a, 2, c),
                           IntsAttr(c, "axes").value_or(Shape{-1}), FloatAttr(c, "epsilon"),
                           BoolAttr(c, "center"), BoolAttr(c, "scale")));
  };
  auto creation = [&](const char* name, Tensor (*fn)(std::span<const int64_t>, DataType)) {
    t[std::string("relax.") + name] = [fn](const ir::CallNode& c, const std::vector<Value>& a) {
      return Value(fn(IntsOf(a.at(0), OpName(c) + ": the shape"), DTypeAttr(c, "dtype")));
    };
  };
  creation("zeros", Zeros);
  creation("ones", Ones);
  t["relax.full"] = [](const ir::CallNode& c, const std::vector<Value>& a) {
    Shape shape = IntsOf(a.at(0), "full: the shape");
    if (const PrimScalar* p = a.at(1).as_prim()) {
      DataType dtype = DTypeAttr(c, "dtype");
      return Value(FullValue(shape, p->AsDouble(), dtype.is_void() ? p->dtype : dtype));
    }
    return Value(Full(shape, T(a, 1, c), DTypeAttr(c, "dtype")));
  };
  auto triangle = [&](const char* name, Tensor (*fn)(const Tensor&, int64_t)) {
    t[std::string("relax.") + name] = [fn](const ir::CallNode& c, const std::vector<Value>& a) {
      int64_t k = 0;
      if (a.size() > 1) {
        std::vector<int64_t> ks = IntsOf(a[1], OpName(c) + ": k");
        if (ks.size() != 1) throw RuntimeError(OpName(c) + ": k must be one integer");
        k = ks[0];
      }
      return Value(fn(T(a, 0, c), k));
    };
  };
  triangle("triu", Triu);
  triangle("tril", Tril);
  return t;
}

}  // namespace

bool IsLastTwoDimsTranspose(const ir::CallNode& call) {
  const ir::OpNode* op = call.op_node();
  if (op == nullptr || op->name() != "relax.permute_dims" || call.args().size() != 1) return false;
  const auto* t = ir::As<ir::TensorSInfoNode>(call.args()[0]->struct_info());
  if (t == nullptr || t->ndim() < 2) return false;
  const int64_t n = t->ndim();
  std::optional<std::vector<int64_t>> axes;
  try {
    axes = IntsAttr(call, "axes");
  } catch (const RuntimeError&) {
    return false;  // RunOp reports it
  }
  if (!axes) return n == 2;
  if (static_cast<int64_t>(axes->size()) != n) return false;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t want = i < n - 2 ? i : (i == n - 2 ? n - 1 : n - 2);
    if ((*axes)[i] != want && (*axes)[i] != want - n) return false;
  }
  return true;
}

Value RunMatmulTransposedB(const ir::CallNode& call, const std::vector<Value>& args) {
  detail::OpTimer timer(call.op_node()->name());
  return Value(Matmul(T(args, 0, call), T(args, 1, call), DTypeAttr(call, "out_dtype"),
                      /*transpose_a=*/false, /*transpose_b=*/true));
}

Value RunOp(const ir::CallNode& call, const std::vector<Value>& args) {
  static const std::unordered_map<std::string, OpFn> kTable = BuildTable();
  const std::string& name = call.op_node()->name();
  auto it = kTable.find(name);
  if (it == kTable.end()) {
    throw RuntimeError("op " + call.op_node()->script_name() + " has no runtime kernel");
  }
  detail::OpTimer timer(name);
  return it->second(call, args);
}

}  // namespace pipesplit::runtime

namespace pipesplit::runtime {

CclCall LowerCclOp(const ir::CallNode& call, std::vector<Value> args) {
  const std::string& name = call.op_node()->name();
  if (args.size() != 1) throw RuntimeError(OpName(call) + " takes one tensor");
  const Tensor& x = args[0].ExpectTensor("the argument of " + OpName(call));
  auto flag = [](bool b) { return Value::MakePrim({DataType::Bool(), b ? 1 : 0, 0}); };
  if (name == "relax.ccl.allreduce") {
    ir::AttrValue op_type = AttrOf(call, "op_type");
    const std::string* kind_name = op_type.as_string();
    std::optional<ReduceKind> kind =
        kind_name != nullptr ? ReduceKindFromName(*kind_name) : std::nullopt;
    if (!kind) throw RuntimeError(OpName(call) + ": unknown op_type");
    return {ir::protocol::kAllReduce,
            {args[0], Value::MakeShape({static_cast<int64_t>(*kind)}),
             flag(BoolAttr(call, "in_group"))},
            0};
  }
  if (name == "relax.ccl.allgather") {
    return {ir::protocol::kAllGather,
            {args[0], flag(BoolAttr(call, "in_group"))},
            IntAttr(call, "num_workers")};
  }
  if (name == "relax.ccl.broadcast_from_worker0") {
    return {ir::protocol::kBroadcastFromWorker0, {args[0], flag(false)}, 0};
  }
  if (name == "relax.ccl.scatter_from_worker0") {
    // As TVM's legalization: the scattered axis split into (workers, part) and moved first.
    const int64_t workers = IntAttr(call, "num_workers");
    int64_t axis = IntAttr(call, "axis");
    if (axis < 0) axis += x.ndim();
    if (axis < 0 || axis >= x.ndim() || workers < 1 || x.dim(static_cast<int>(axis)) % workers) {
      throw RuntimeError(OpName(call) + ": cannot scatter " + x.ToString() + " along axis " +
                         std::to_string(axis) + " over " + std::to_string(workers) + " workers");
    }
    Shape split;
    for (int64_t i = 0; i < x.ndim(); ++i) {
      if (i == axis) {
        split.push_back(workers);
        split.push_back(x.dim(static_cast<int>(i)) / workers);
      } else {
        split.push_back(x.dim(static_cast<int>(i)));
      }
    }
    Tensor parts = Reshape(x, split);
    if (axis != 0) {
      std::vector<int64_t> order = {axis};
      for (int64_t i = 0; i < static_cast<int64_t>(split.size()); ++i) {
        if (i != axis) order.push_back(i);
      }
      parts = PermuteDims(parts, order);
    }
    return {ir::protocol::kScatterFromWorker0, {Value(parts), flag(false)}, 0};
  }
  throw RuntimeError("op " + OpName(call) + " has no runtime kernel");
}

}  // namespace pipesplit::runtime
