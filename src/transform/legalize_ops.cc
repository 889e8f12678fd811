// Pass `legalize-ops`: lowers calls of high-level Relax ops into `R.call_tir` of TIR kernels
// (@T.prim_func) shaped as TVM's LegalizeOps writes them, so that the module runs through
// the codegen and the call_tir runtime.
//
// Ops lowered (the rules are in legalize_ops_elementwise.cc, legalize_ops_manipulate.cc and
// legalize_ops_nn.cc):
//   elementwise binary, broadcasting: add, subtract, multiply, divide, maximum, minimum, equal,
//     not_equal, less, less_equal, greater, greater_equal, logical_and, logical_or (a scalar
//     R.const operand is inlined as an immediate);
//   elementwise unary: negative, exp, log, sqrt, rsqrt, tanh, sigmoid, erf, sin, cos, floor,
//     ceil, abs, square, nn.relu, nn.silu;
//   data movement and creation: reshape, permute_dims, strided_slice (constant axes and
//     strides), concat (a tuple literal), take (an integer axis), full (a scalar constant
//     fill), triu, tril;
//   reductions: matmul (both operands at least 2-D), nn.rms_norm (trailing axes),
//     nn.softmax.
// Any other op, and any call whose result or tensor operands have an unknown shape or dtype,
// is left as it is (as TVM leaves ops without a legalization).
//
// Preconditions: the module is normalized (every call has its struct info).
// Steps:
//  1. key every PrimFunc already in the module by its structure (modulo renaming);
//  2. visit every Relax function; for each call of a lowered op whose result is a tensor of
//     known shape, build its kernel (buffers from the Relax shapes, symbolic dims as T.int64
//     vars of the kernel; vars no buffer defines become scalar params passed as tir_vars);
//  3. reuse a structurally equal kernel when there is one, else add the new kernel under its
//     name hint, made unique with a counter ("add", "add1", ...);
//  4. replace the call by `R.call_tir(cls.kernel, (args...), out_sinfo=..., tir_vars=...)`
//     with the call's struct info, keeping its binding var.
#include <unordered_map>

#include "pipesplit/ir/functor.h"
#include "pipesplit/ir/op.h"
#include "src/analysis/structural_tir.h"
#include "src/transform/legalize_ops_tir.h"
#include "src/transform/passes.h"

namespace pipesplit::transform {
namespace {

using legalize::LoweredCall;
using legalize::Rule;

const std::unordered_map<std::string, Rule>& Rules() {
  static const std::unordered_map<std::string, Rule> kRules = [] {
    std::unordered_map<std::string, Rule> rules;
    legalize::AddElementwiseRules(&rules);
    legalize::AddManipulateRules(&rules);
    legalize::AddNnRules(&rules);
    return rules;
  }();
  return kRules;
}

// `func` renamed (the structural key ignores the module-level name).
ir::PrimFunc Renamed(const ir::PrimFuncNode& func, std::string name) {
  ir::PrimFuncNode::Fields f;
  f.name = std::move(name);
  f.params = func.params();
  f.buffer_map = func.buffer_map();
  f.body = func.body();
  f.attrs = func.attrs();
  f.is_private = func.is_private();
  f.s_tir = func.s_tir();
  return ir::Make<ir::PrimFuncNode>(std::move(f), func.span());
}

std::string KeyOf(const ir::PrimFuncNode& func) {
  return analysis::TirCanonicalForm(*Renamed(func, ""));
}

class Legalizer : public ir::ExprMutator {
 public:
  explicit Legalizer(ir::IRModule* mod) : mod_(mod) {
    for (const auto& member : mod->members()) {
      if (const auto* f = ir::As<ir::PrimFuncNode>(member.func)) {
        kernels_.emplace(KeyOf(*f), member.gvar);
      }
    }
  }

 protected:
  ir::Expr VisitExpr_(const ir::Ptr<ir::CallNode>& node) override {
    ir::Expr e = ExprMutator::VisitExpr_(node);
    const auto* call = ir::As<ir::CallNode>(e);
    if (call == nullptr || call->op_node() == nullptr || call->struct_info() == nullptr) return e;
    auto rule = Rules().find(call->op_node()->name());
    if (rule == Rules().end()) return e;
    std::optional<LoweredCall> lowered = rule->second(*call);
    if (!lowered) return e;
    ir::GlobalVar gvar = AddKernel(*lowered->func);
    std::vector<ir::StructInfo> arg_sinfo;
    for (const ir::Expr& a : lowered->args) arg_sinfo.push_back(a->struct_info());
    std::vector<ir::Expr> args = {
        gvar, ir::Make<ir::TupleNode>(lowered->args, ir::TupleSInfo(std::move(arg_sinfo)))};
    if (!lowered->tir_vars.empty()) args.push_back(ir::Make<ir::ShapeExprNode>(lowered->tir_vars));
    return ir::Make<ir::CallNode>(ir::GetOp("relax.call_tir"), std::move(args), ir::AttrMap{},
                                  std::vector<ir::StructInfo>{call->struct_info()},
                                  call->struct_info(), call->span());
  }

 private:
  ir::GlobalVar AddKernel(const ir::PrimFuncNode& func) {
    std::string key = KeyOf(func);
    if (auto it = kernels_.find(key); it != kernels_.end()) return it->second;
    std::string name = func.name();
    for (int i = 1; mod_->Find(name) != nullptr; ++i) name = func.name() + std::to_string(i);
    ir::PrimFunc kernel = Renamed(func, name);
    auto gvar = ir::Make<ir::GlobalVarNode>(name, kernel->struct_info());
    mod_->Add(gvar, kernel);
    kernels_.emplace(std::move(key), gvar);
    return gvar;
  }

  ir::IRModule* mod_;
  std::unordered_map<std::string, ir::GlobalVar> kernels_;
};

class LegalizeOpsPass : public Pass {
 public:
  std::string name() const override { return "legalize-ops"; }

  ir::IRModule Run(const ir::IRModule& mod, PassContext&) const override {
    ir::IRModule out = mod;
    Legalizer legalizer(&out);
    for (const auto& member : mod.members()) {
      if (ir::As<ir::FunctionNode>(member.func) == nullptr) continue;
      ir::Expr func = legalizer.VisitExpr(member.func);
      if (func != member.func) out.Update(member.gvar, func);
    }
    return out;
  }
};

}  // namespace

PassInfo LegalizeOpsPassInfo() {
  return {"legalize-ops",
          "lower high-level ops of known shape into R.call_tir of TIR kernels",
          {},
          [](const PassOptions&) -> std::unique_ptr<Pass> {
            return std::make_unique<LegalizeOpsPass>();
          }};
}

}  // namespace pipesplit::transform
