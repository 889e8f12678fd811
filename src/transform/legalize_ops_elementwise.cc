// legalize-ops rules of the elementwise family: broadcasting binary arithmetic and
// comparisons (one T_<op> block; scalar constant operands inlined as immediates, as TVM's
// legalization does), unary math (one `compute` block calling the TIR intrinsic), negative
// (T_negative), relu, and silu (a `compute` sigmoid stage then T_multiply).
#include "pipesplit/ir/arith.h"
#include "src/transform/legalize_ops_tir.h"

namespace pipesplit::transform::legalize {
namespace {

using ir::BinaryOp;

// One operand of a binary op: a tensor buffer, or an inlined scalar constant.
struct Operand {
  ir::Buffer buffer;  // null for a constant
  PrimExpr constant;
  PrimExpr At(const Indices& out_vars, const std::vector<PrimExpr>& out_shape) const {
    if (buffer == nullptr) return constant;
    return Load(buffer, BroadcastIndices(out_vars, out_shape, buffer->shape()));
  }
};

Rule BinaryRule(BinaryOp op) {
  return [op](const ir::CallNode& call) -> std::optional<LoweredCall> {
    auto out_type = Result(call);
    if (!out_type || call.args().size() != 2) return std::nullopt;
    std::string name = KernelName(call);
    KernelBuilder kb(name);
    // Operand dtype: a tensor operand's (comparisons produce bool).
    DataType operand_dtype = out_type->dtype;
    for (const ir::Expr& arg : call.args()) {
      if (auto t = KnownTensor(arg); t && !ScalarConstant(arg)) operand_dtype = t->dtype;
    }
    Operand operands[2];
    int tensors = 0;
    for (int i = 0; i < 2; ++i) {
      const ir::Expr& arg = call.args()[i];
      if (PrimExpr c = ScalarConstant(arg)) {
        operands[i].constant = Cast(operand_dtype, c);
      } else if (auto t = KnownTensor(arg)) {
        operands[i].buffer = kb.Input(arg, *t);
        ++tensors;
      } else {
        return std::nullopt;
      }
    }
    if (tensors == 0) return std::nullopt;
    ir::Buffer out = kb.Output("T_" + name, *out_type);
    const std::vector<PrimExpr> shape = out->shape();
    kb.Compute("T_" + name, out, [&](const Indices& v) {
      return ir::MakeBinary(op, operands[0].At(v, shape), operands[1].At(v, shape));
    });
    return kb.Finish();
  };
}

using UnaryFn = std::function<PrimExpr(const PrimExpr& x)>;

// out = fn(x) in one block named `block`; float-only ops reject other dtypes.
Rule UnaryRule(std::string block, UnaryFn fn, bool float_only) {
  return [block, fn, float_only](const ir::CallNode& call) -> std::optional<LoweredCall> {
    auto out_type = Result(call);
    if (!out_type || call.args().size() != 1) return std::nullopt;
    auto in_type = KnownTensor(call.args()[0]);
    if (!in_type || (float_only && !in_type->dtype.is_float())) return std::nullopt;
    KernelBuilder kb(KernelName(call));
    ir::Buffer x = kb.Input(call.args()[0], *in_type);
    ir::Buffer out = kb.Output(block, *out_type);
    kb.Compute(
        block, out, [&](const Indices& v) { return fn(Load(x, v)); },
        block == "compute" ? "i" : "ax");
    return kb.Finish();
  };
}

std::optional<LoweredCall> LowerSilu(const ir::CallNode& call) {
  auto out_type = Result(call);
  if (!out_type || call.args().size() != 1) return std::nullopt;
  auto in_type = KnownTensor(call.args()[0]);
  if (!in_type || !in_type->dtype.is_float()) return std::nullopt;
  KernelBuilder kb("silu");
  ir::Buffer x = kb.Input(call.args()[0], *in_type);
  ir::Buffer out = kb.Output("T_multiply", *out_type);
  ir::Buffer sigmoid = kb.Alloc("compute", out->dtype(), out->shape());
  kb.Compute(
      "compute", sigmoid, [&](const Indices& v) { return Call("sigmoid", Load(x, v)); }, "i");
  kb.Compute("T_multiply", out, [&](const Indices& v) {
    return ir::MakeBinary(BinaryOp::kMul, Load(x, v), Load(sigmoid, v));
  });
  return kb.Finish();
}

}  // namespace

void AddElementwiseRules(std::unordered_map<std::string, Rule>* rules) {
  const std::pair<const char*, BinaryOp> binary[] = {
      {"add", BinaryOp::kAdd},         {"subtract", BinaryOp::kSub},
      {"multiply", BinaryOp::kMul},    {"divide", BinaryOp::kDiv},
      {"maximum", BinaryOp::kMax},     {"minimum", BinaryOp::kMin},
      {"equal", BinaryOp::kEQ},        {"not_equal", BinaryOp::kNE},
      {"less", BinaryOp::kLT},         {"less_equal", BinaryOp::kLE},
      {"greater", BinaryOp::kGT},      {"greater_equal", BinaryOp::kGE},
      {"logical_and", BinaryOp::kAnd}, {"logical_or", BinaryOp::kOr},
  };
  for (const auto& [name, op] : binary) (*rules)[std::string("relax.") + name] = BinaryRule(op);
  for (const char* name :
       {"exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "erf", "sin", "cos", "floor", "ceil"}) {
    std::string intrinsic = name;
    (*rules)[std::string("relax.") + name] = UnaryRule(
        "compute", [intrinsic](const PrimExpr& x) { return Call(intrinsic, x); }, true);
  }
  (*rules)["relax.abs"] = UnaryRule(
      "compute", [](const PrimExpr& x) { return Call("fabs", x); }, true);
  (*rules)["relax.negative"] = UnaryRule(
      "T_negative",
      [](const PrimExpr& x) { return ir::MakeBinary(BinaryOp::kSub, Imm(x->dtype(), 0), x); },
      false);
  (*rules)["relax.square"] = UnaryRule(
      "T_multiply", [](const PrimExpr& x) { return ir::MakeBinary(BinaryOp::kMul, x, x); }, false);
  (*rules)["relax.nn.relu"] = UnaryRule(
      "compute",
      [](const PrimExpr& x) { return ir::MakeBinary(BinaryOp::kMax, x, Imm(x->dtype(), 0)); },
      false);
  (*rules)["relax.nn.silu"] = LowerSilu;
}

}  // namespace pipesplit::transform::legalize
