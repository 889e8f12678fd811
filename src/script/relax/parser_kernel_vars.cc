// After parsing: the shape vars a kernel shares with the Relax function it was made from.
//
// LegalizeOps builds a kernel from its call: the kernel's buffer shapes hold the very symbolic
// vars of the calling function's tensors. TVM prints both as one module-level TypeVar (or, in
// the classic syntax, declares the var in each function), and its parser then gives every
// function a var of its own. Where the calls say which function's vars a kernel's are, the
// kernel gets them back, so that the IR has the sharing TVM had:
//  1. A kernel's candidates are the int64 vars of its param buffers' shapes, strides and
//     offsets that are no param (the vars TVM prints as TypeVars).
//  2. Every use of the kernel is a call (R.call_tir, or a direct call `cls.k(...)` after
//     memory planning) in one and the same Relax function; any other use (a value handed to a
//     builtin, calls from two functions) leaves the kernel alone.
//  3. Each call passes, in parameter order, its tensor arguments and (R.call_tir) its outputs;
//     where a param buffer has a candidate as a bare dim, the tensor passed there has a bare
//     int64 var of that function as the same dim, of the same name (one var prints one name:
//     a kernel's `batch` passed a function's `num_samples` is a var of its own). Every
//     candidate so aligned maps to one var (a conflict leaves the kernel alone); the kernel's
//     candidates are replaced by them.
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pipesplit/ir/functor.h"
#include "pipesplit/ir/struct_info.h"
#include "pipesplit/ir/tir_substitute.h"
#include "src/script/relax/parser_lower.h"

namespace pipesplit::script {
namespace {

// The struct infos a call passes for a kernel's params, in order; empty when the call is not
// one of the recognized forms.
std::vector<ir::StructInfo> PassedSInfo(const ir::CallNode& call, bool call_tir) {
  std::vector<ir::StructInfo> out;
  if (!call_tir) {
    for (const ir::Expr& a : call.args()) out.push_back(a->struct_info());
    return out;
  }
  if (call.args().size() < 2) return {};
  const auto* inputs = ir::As<ir::TupleNode>(call.args()[1]);
  if (inputs == nullptr) {
    out.push_back(call.args()[1]->struct_info());
  } else {
    for (const ir::Expr& a : inputs->fields()) out.push_back(a->struct_info());
  }
  const ir::StructInfo& result = call.struct_info();
  if (const auto* tuple = ir::As<ir::TupleSInfoNode>(result)) {
    out.insert(out.end(), tuple->fields().begin(), tuple->fields().end());
  } else {
    out.push_back(result);
  }
  return out;
}

struct KernelUse {
  const ir::FunctionNode* caller = nullptr;
  bool shareable = true;
  std::vector<const ir::CallNode*> calls;
};

// Records every use of the module's kernels in one Relax function.
class UseFinder : public ir::ExprVisitor {
 public:
  UseFinder(const std::unordered_map<const ir::GlobalVarNode*, KernelUse*>& kernels,
            const ir::FunctionNode* caller)
      : kernels_(kernels), caller_(caller) {}

  // Struct info names no kernel: not walked.
  void VisitVarDef(const ir::Var&) override {}
  void VisitStructInfo(const ir::StructInfo&) override {}

 protected:
  void VisitExpr_(const ir::GlobalVarNode& gv) override { Use(gv, nullptr); }
  void VisitExpr_(const ir::CallNode& call) override {
    const auto* op = call.op_node();
    bool call_tir = op != nullptr && op->name() == "relax.call_tir";
    const ir::GlobalVarNode* callee = nullptr;
    if (call_tir && !call.args().empty()) callee = ir::As<ir::GlobalVarNode>(call.args()[0]);
    if (op == nullptr) callee = ir::As<ir::GlobalVarNode>(call.op());
    if (callee != nullptr && kernels_.count(callee)) {
      Use(*callee, &call);
      // The callee is accounted for; visit the rest.
      for (size_t i = call_tir ? 1 : 0; i < call.args().size(); ++i) VisitExpr(call.args()[i]);
      return;
    }
    ExprVisitor::VisitExpr_(call);
  }

 private:
  void Use(const ir::GlobalVarNode& gv, const ir::CallNode* call) {
    auto it = kernels_.find(&gv);
    if (it == kernels_.end()) return;
    KernelUse& use = *it->second;
    if (call == nullptr || (use.caller != nullptr && use.caller != caller_)) {
      use.shareable = false;
      return;
    }
    use.caller = caller_;
    use.calls.push_back(call);
  }

  const std::unordered_map<const ir::GlobalVarNode*, KernelUse*>& kernels_;
  const ir::FunctionNode* caller_;
};

// Step 1: the candidates of a kernel.
std::unordered_set<const ir::TirVarNode*> Candidates(const ir::PrimFuncNode& k) {
  std::unordered_set<const ir::TirVarNode*> params, out;
  for (const ir::TirVar& p : k.params()) params.insert(p.get());
  auto collect = [&](const ir::PrimExpr& e) {
    if (e == nullptr) return;
    ir::VisitTirVars(e, [&](const ir::TirVar& v) {
      if (!params.count(v.get()) && v->dtype() == DataType::Int(64)) out.insert(v.get());
    });
  };
  for (const auto& [param, buffer] : k.buffer_map()) {
    for (const ir::PrimExpr& e : buffer->shape()) collect(e);
    for (const ir::PrimExpr& e : buffer->strides()) collect(e);
    collect(buffer->elem_offset());
  }
  return out;
}

}  // namespace

void ShareKernelVars(ir::IRModule* mod) {
  std::vector<KernelUse> uses(mod->members().size());
  std::vector<std::unordered_set<const ir::TirVarNode*>> candidates(mod->members().size());
  std::unordered_map<const ir::GlobalVarNode*, KernelUse*> kernels;
  for (size_t i = 0; i < mod->members().size(); ++i) {
    const ir::IRModule::Member& m = mod->members()[i];
    const auto* k = ir::As<ir::PrimFuncNode>(m.func);
    if (k == nullptr) continue;
    candidates[i] = Candidates(*k);
    if (!candidates[i].empty()) kernels[m.gvar.get()] = &uses[i];
  }
  if (kernels.empty()) return;
  for (const ir::IRModule::Member& m : mod->members()) {
    if (const auto* f = ir::As<ir::FunctionNode>(m.func)) UseFinder(kernels, f).VisitExpr(m.func);
  }
  for (size_t i = 0; i < mod->members().size(); ++i) {
    const KernelUse& use = uses[i];
    if (!use.shareable || use.caller == nullptr) continue;
    const ir::IRModule::Member& m = mod->members()[i];
    auto kernel = std::static_pointer_cast<const ir::PrimFuncNode>(m.func);
    ir::TirVarMap map;
    bool conflict = false;
    for (const ir::CallNode* call : use.calls) {
      const auto* op = call->op_node();
      std::vector<ir::StructInfo> passed = PassedSInfo(*call, op != nullptr);
      if (passed.size() != kernel->params().size()) {
        conflict = true;
        break;
      }
      for (size_t p = 0; p < passed.size() && !conflict; ++p) {
        const ir::Buffer* buffer = kernel->BufferOf(kernel->params()[p].get());
        const auto* tensor = ir::As<ir::TensorSInfoNode>(passed[p]);
        if (buffer == nullptr || tensor == nullptr || !tensor->shape() ||
            tensor->shape()->size() != (*buffer)->shape().size()) {
          continue;
        }
        for (size_t d = 0; d < tensor->shape()->size(); ++d) {
          const auto* v = ir::As<ir::TirVarNode>((*buffer)->shape()[d]);
          const ir::PrimExpr& w = (*tensor->shape())[d];
          const auto* wv = ir::As<ir::TirVarNode>(w);
          if (v == nullptr || !candidates[i].count(v) || wv == nullptr ||
              wv->dtype() != v->dtype() || wv->name() != v->name()) {
            continue;
          }
          auto [it, inserted] = map.emplace(v, w);
          if (!inserted && it->second != w) conflict = true;
        }
      }
    }
    if (conflict || map.empty()) continue;
    mod->Update(m.gvar, ir::SubstituteTirVars(kernel, map));
  }
}

}  // namespace pipesplit::script
