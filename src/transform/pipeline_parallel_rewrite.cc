// Pass `pipeline-parallel-rewrite`: splits every function marked
// `pipeline_parallel_stages = N` (N > 1) into N private stage functions that send and receive
// activations, and replaces it with a dispatcher (the protocol's symbols are in
// pipesplit/ir/protocol.h; BuildStagePlan says what is checked and how values and symbolic
// vars are routed). Input and output keep the IR shapes of MLC-LLM's pass of the same name,
// so TVM/MLC users recognise both.
//
// Preconditions: the module is well-formed. Functions without the attribute, or with N == 1,
// are left exactly as they are.
// Step 0, once: stage functions already in the input (a module split before) must pair their
// sends and receives; a mismatch there is the user's, reported with both locations.
// Steps, per marked function:
//  1. BuildStagePlan (checks the input; all problems are reported together), for the marked
//     functions side by side, problems gathered in member order.
//  2. For each stage: fresh parameters, `s: R.Shape([...])`, `packed_params: R.Object`; a
//     dataflow block that receives (recv_from_prev_group, plus match_cast where symbolic
//     dims are re-derived), then the stage's bindings with weight reads turned into
//     vm.builtin.tuple_getitem calls; then one send_to_next_group per value passed on;
//     every symbolic var is the stage's own copy; a binding whose var keeps its struct info
//     and kind is reused as it is (each binding lands in exactly one stage). A tensor shaped
//     by a Relax shape var (R.Tensor(s, ...)) keeps `s` only where the stage's copy of it is
//     in scope (not in another stage, not in an output of the dataflow block when `s` stays
//     inside): elsewhere it keeps only the rank.
//     Stages are built side by side (CompileParallelFor; each reads the plan, writes its own
//     slot: the same module for every thread count). Static bindings skip the mutator walk
//     (FastVisitBinding); a static weight read keeps its var, so its users stay unchanged.
//  3. The dispatcher: DispatchFunctionByGroup over the stages, impure, returning R.Object.
//  4. Post-condition: sends of stage i pair up with receives of stage i + 1 (checked for the
//     new dispatchers; a mismatch is an internal error).
#include "pipesplit/transform/pipeline_parallel_rewrite.h"

#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "pipesplit/analysis/pipeline_checks.h"
#include "pipesplit/ir/attr_names.h"
#include "pipesplit/ir/block_builder.h"
#include "pipesplit/ir/functor.h"
#include "pipesplit/ir/op.h"
#include "pipesplit/ir/protocol.h"
#include "pipesplit/support/check.h"
#include "pipesplit/support/diagnostic.h"
#include "pipesplit/support/thread_pool.h"
#include "src/transform/passes.h"
#include "src/transform/pipeline_stage_mutator.h"
#include "src/transform/pipeline_symbols.h"

namespace pipesplit::transform {
namespace {

using ir::Expr;
using ir::Var;

struct StageFunction {
  ir::GlobalVar gvar;
  ir::Function func;
  std::vector<Expr> dispatch_args;  // in the dispatcher's scope
};

class StageBuilder {
 public:
  StageBuilder(const StagePlan& plan, int s, Var dispatcher_packed)
      : plan_(plan),
        stage_(plan.stages[s]),
        s_(s),
        dispatcher_packed_(std::move(dispatcher_packed)) {}

  StageFunction Build(const std::string& name) {
    const int last = plan_.num_stages - 1;
    // Which original vars end up as block outputs: what is sent on, or the result.
    std::vector<Var> sent;
    if (s_ < last) {
      for (const Transfer& t : plan_.transfers[s_]) sent.push_back(t.value);
    } else {
      sent.push_back(plan_.Resolve(plan_.result));
      outputs_.insert(plan_.result.get());
    }
    for (const Var& v : sent) outputs_.insert(v.get());
    if (s_ > 0) {
      for (const Transfer& t : plan_.transfers[s_ - 1]) {
        if (outputs_.count(t.value.get()) && !t.erase_shape) outputs_.insert(t.receiver.get());
      }
    }

    StageMutator mutator(&symbols_, &outputs_);
    mutator.ReserveVars(stage_.params.size() + stage_.bindings.size() + plan_.aliases.size());
    std::vector<Var> params;
    StageFunction out;
    for (const Var& p : stage_.params) {
      Var fresh = ir::MakeVar(p->name_hint(), mutator.Rewrite(p->struct_info()), false, p->span());
      mutator.Remap(p.get(), fresh);
      params.push_back(fresh);
      out.dispatch_args.push_back(p);
    }
    std::vector<ir::PrimExpr> shape_copies, shape_originals;
    for (const ir::TirVar& v : stage_.shape_vars) {
      shape_copies.push_back(mutator.VisitPrimExpr(v));
      shape_originals.push_back(v);
    }
    // Boundary vars and unpacked fields that stand for a parameter read it directly.
    for (const auto& [alias, value] : plan_.aliases) {
      const Var& resolved = plan_.Resolve(value);
      for (size_t i = 0; i < stage_.params.size(); ++i) {
        if (stage_.params[i] == resolved) mutator.Remap(alias, params[i]);
      }
    }
    params.push_back(ir::MakeVar("s", ir::Make<ir::ShapeSInfoNode>(shape_copies)));
    out.dispatch_args.push_back(ir::Make<ir::ShapeExprNode>(shape_originals));
    Var packed = ir::MakeVar(ir::protocol::kPackedParams, ir::ObjectSInfo());
    params.push_back(packed);
    out.dispatch_args.push_back(dispatcher_packed_);

    ir::BlockBuilder bb;
    bb.BeginScope(params);
    bb.BeginDataflowBlock();
    std::vector<Var> block_outputs;
    if (s_ > 0) EmitReceives(bb, mutator, &block_outputs);
    std::unordered_set<const ir::BindingNode*> cast_reads(stage_.cast_weight_reads.begin(),
                                                          stage_.cast_weight_reads.end());
    for (const ir::Binding& b : stage_.bindings) {
      const auto* item = ir::As<ir::TupleGetItemNode>(b->value());
      if (item != nullptr && item->tuple() == plan_.packed_params) {
        EmitWeightRead(bb, mutator, b, item->index(), packed, cast_reads.count(b.get()) != 0,
                       &block_outputs);
        continue;
      }
      ir::Binding rewritten = mutator.FastVisitBinding(b);  // most bindings
      if (rewritten == nullptr) rewritten = mutator.VisitBinding(b);
      bb.EmitNormalized(rewritten);
      if (outputs_.count(b->var().get())) block_outputs.push_back(rewritten->var());
    }
    std::vector<ir::BindingBlock> blocks{bb.EndBlock()};

    // Sends, after the dataflow block, in boundary order.
    std::vector<Expr> results;
    if (s_ < last) {
      // The names BlockBuilder::Emit would give ("gv", "gv1", ...), from the only names that
      // can collide with them: those of the block's vars that start with "gv" (the builder's
      // own table would first record every name of the stage).
      ir::NameSupply send_names;
      for (const ir::Binding& b : blocks[0]->bindings()) {
        const std::string& name = b->var()->name_hint();
        if (name.compare(0, 2, "gv") == 0) send_names.Reserve(name);
      }
      bb.BeginBindingBlock();
      for (const Var& v : sent) {
        Expr value = mutator.VisitExpr(v);
        Expr send = bb.Normalize(ir::Make<ir::CallNode>(
            ir::Make<ir::ExternFuncNode>(ir::protocol::kSendToNextGroup), std::vector<Expr>{value},
            ir::AttrMap{}, std::vector<ir::StructInfo>{}, ir::ObjectSInfo()));
        Var gv = ir::MakeVar(send_names.FreshName("gv"), send->struct_info(), false);
        bb.EmitNormalized(ir::Make<ir::VarBindingNode>(gv, send, Span{}));
      }
      blocks.push_back(bb.EndBlock());
      for (const Var& v : block_outputs) results.push_back(v);
    } else {
      results.push_back(mutator.VisitExpr(plan_.result));
    }
    Expr ret;
    if (results.size() == 1 && ir::Is<ir::TupleSInfoNode>(results[0]->struct_info())) {
      ret = results[0];
    } else {
      ret = bb.Normalize(ir::Make<ir::TupleNode>(results));
    }
    bb.EndScope();
    auto body = ir::Make<ir::SeqExprNode>(blocks, ret, ret->struct_info());

    ir::AttrMap attrs = plan_.func->attrs();
    attrs = ir::WithoutAttr(std::move(attrs), ir::attr::kGlobalSymbol);
    attrs = ir::WithoutAttr(std::move(attrs), ir::attr::kPipelineParallelStages);
    attrs = ir::WithAttr(std::move(attrs), ir::attr::kNumInput,
                         static_cast<int64_t>(params.size() - 1));
    // The signature may only mention symbolic vars its parameters bind (those bound inside
    // the body, e.g. by a weight's match_cast, become unknown dims).
    std::unordered_set<const ir::TirVarNode*> bound_by_params;
    for (const Var& p : params) {
      ir::VisitTirVars(p->struct_info(),
                       [&](const ir::TirVar& v) { bound_by_params.insert(v.get()); });
    }
    ir::StructInfo ret_sinfo = ir::EraseToWellDefined(
        ret->struct_info(), [&](const ir::TirVarNode& v) { return bound_by_params.count(&v) > 0; });
    out.func = ir::Make<ir::FunctionNode>(params, body, ret_sinfo,
                                          /*is_pure=*/false, attrs, plan_.func->span());
    out.gvar = ir::Make<ir::GlobalVarNode>(name, out.func->struct_info());
    return out;
  }

 private:
  void EmitReceives(ir::BlockBuilder& bb, StageMutator& mutator, std::vector<Var>* outputs) {
    const std::vector<Transfer>& transfers = plan_.transfers[s_ - 1];
    // Receives first; then the casts that re-derive symbolic dims, those binding whole dims
    // before those that only use them (`m * 2` needs `m`).
    std::vector<Var> received(transfers.size());
    std::vector<ir::StructInfo> full(transfers.size());
    for (size_t i = 0; i < transfers.size(); ++i) {
      const Transfer& t = transfers[i];
      full[i] = mutator.Rewrite(t.receiver->struct_info());
      ir::StructInfo declared = full[i];
      if (t.erase_shape) {
        const auto& tensor = static_cast<const ir::TensorSInfoNode&>(*full[i]);
        declared = ir::Make<ir::TensorSInfoNode>(tensor.dtype(), tensor.ndim(), tensor.vdevice());
      }
      bool output = !t.erase_shape && outputs_.count(t.receiver.get()) != 0;
      Expr recv = ir::MakeExternCall(ir::protocol::kCallDpsPacked, ir::protocol::kRecvFromPrevGroup,
                                     {bb.Normalize(ir::Make<ir::TupleNode>(std::vector<Expr>{}))},
                                     {declared}, declared);
      received[i] = ir::MakeVar(t.receiver->name_hint(), declared, !output, t.receiver->span());
      bb.EmitNormalized(ir::Make<ir::VarBindingNode>(received[i], recv));
      if (output) outputs->push_back(received[i]);
    }
    auto defines_whole_dims = [&](size_t i) {
      const auto* tensor = ir::As<ir::TensorSInfoNode>(transfers[i].receiver->struct_info());
      if (tensor == nullptr || !tensor->shape()) return false;
      for (const ir::PrimExpr& d : *tensor->shape()) {
        if (!ir::AsConstInt(d) && !ir::Is<ir::TirVarNode>(d)) return false;
      }
      return true;
    };
    for (int pass = 0; pass < 2; ++pass) {
      for (size_t i = 0; i < transfers.size(); ++i) {
        const Transfer& t = transfers[i];
        if (!t.erase_shape || defines_whole_dims(i) != (pass == 0)) continue;
        bool output = outputs_.count(t.value.get()) != 0;
        Var cast = ir::MakeVar(t.receiver->name_hint() + "_cast", full[i], !output);
        bb.EmitNormalized(ir::Make<ir::MatchCastNode>(cast, received[i], full[i]));
        if (output) outputs->push_back(cast);
        received[i] = cast;
      }
    }
    for (size_t i = 0; i < transfers.size(); ++i) {
      mutator.Remap(transfers[i].receiver.get(), received[i]);
      mutator.Remap(transfers[i].value.get(), received[i]);
    }
    // Aliases of received values (other unpacks of the same field, boundary vars).
    std::unordered_map<const ir::VarNode*, const Var*> by_value;
    for (const Transfer& t : transfers) by_value[t.value.get()] = &t.value;
    for (const auto& [alias, value] : plan_.aliases) {
      auto it = by_value.find(plan_.Resolve(value).get());
      if (it != by_value.end()) mutator.Remap(alias, mutator.Lookup(*it->second));
    }
  }

  void EmitWeightRead(ir::BlockBuilder& bb, StageMutator& mutator, const ir::Binding& b, int index,
                      const Var& packed, bool cast, std::vector<Var>* outputs) {
    const ir::StructInfo& sinfo = b->var()->struct_info();
    ir::StructInfo full = IsStaticStructInfo(sinfo) ? sinfo : mutator.Rewrite(sinfo);
    ir::StructInfo declared = cast ? ir::ObjectSInfo() : full;
    bool output = outputs_.count(b->var().get()) != 0;
    // MakeExternCall's call, with the op and the callee made once per stage.
    if (tuple_getitem_ == nullptr) {
      call_pure_packed_ = ir::GetOp(ir::protocol::kCallPurePacked);
      tuple_getitem_ = ir::Make<ir::ExternFuncNode>(ir::protocol::kTupleGetItem);
    }
    Expr read = ir::Make<ir::CallNode>(
        call_pure_packed_,
        std::vector<Expr>{tuple_getitem_, packed, ir::Make<ir::PrimValueNode>(ir::IntImm(index))},
        ir::AttrMap{}, std::vector<ir::StructInfo>{declared}, declared);
    // The original var when the stage's copy would be identical (its type has no symbolic
    // part and it keeps its kind): the function it came from is replaced by the dispatcher,
    // and the bindings that use it then stay as they are (StageMutator::FastVisitBinding).
    const Var& original = b->var();
    bool reuse = !cast && declared == original->struct_info() && original->is_dataflow() == !output;
    Var var = reuse
                  ? original
                  : ir::MakeVar(original->name_hint(), declared, cast || !output, original->span());
    bb.EmitNormalized(ir::Make<ir::VarBindingNode>(var, read, b->span()));
    if (cast) {
      Var cast_var = ir::MakeVar(b->var()->name_hint() + "_cast", full, !output);
      bb.EmitNormalized(ir::Make<ir::MatchCastNode>(cast_var, var, full, b->span()));
      var = cast_var;
    }
    if (output) outputs->push_back(var);
    if (!reuse) mutator.Remap(original.get(), var);
  }

  const StagePlan& plan_;
  const Stage& stage_;
  int s_;
  Var dispatcher_packed_;
  ir::TirVarMap symbols_;
  std::unordered_set<const ir::VarNode*> outputs_;
  Expr call_pure_packed_, tuple_getitem_;  // shared by the stage's weight reads
};

ir::Function BuildDispatcher(const StagePlan& plan, const Var& packed,
                             const std::vector<StageFunction>& stages) {
  std::vector<Var> params(plan.func->params().begin(), plan.func->params().end() - 1);
  params.push_back(packed);
  std::vector<Expr> per_stage;
  for (const StageFunction& stage : stages) {
    std::vector<Expr> items{stage.gvar};
    items.insert(items.end(), stage.dispatch_args.begin(), stage.dispatch_args.end());
    per_stage.push_back(ir::Make<ir::TupleNode>(std::move(items)));
  }
  ir::BlockBuilder bb;
  bb.BeginScope(params);
  bb.BeginBindingBlock();
  Expr table =
      ir::Make<ir::TupleNode>(std::vector<Expr>{ir::Make<ir::TupleNode>(std::move(per_stage))});
  Var gv = bb.Emit(
      ir::MakeExternCall(ir::protocol::kCallBuiltinWithCtx, ir::protocol::kDispatchFunctionByGroup,
                         {table}, {ir::ObjectSInfo()}, nullptr),
      "gv");
  std::vector<ir::BindingBlock> blocks{bb.EndBlock()};
  bb.EndScope();
  auto body = ir::Make<ir::SeqExprNode>(blocks, gv, gv->struct_info());
  ir::AttrMap attrs;
  if (const ir::AttrValue* symbol = plan.func->GetAttr(ir::attr::kGlobalSymbol)) {
    attrs.emplace_back(ir::attr::kGlobalSymbol, *symbol);
  }
  return ir::Make<ir::FunctionNode>(params, body, ir::ObjectSInfo(),
                                    /*is_pure=*/false, attrs, plan.func->span());
}

class PipelineParallelRewritePass : public Pass {
 public:
  explicit PipelineParallelRewritePass(StagePlanOptions options) : options_(options) {}
  std::string name() const override { return "pipeline-parallel-rewrite"; }

  ir::IRModule Run(const ir::IRModule& mod, PassContext& ctx) const override {
    std::vector<StagePlan> plans;
    ir::IRModule out = RewritePipelineStages(mod, &plans, options_);
    ctx.Set(std::move(plans));
    return out;
  }

 private:
  StagePlanOptions options_;
};

}  // namespace

ir::IRModule RewritePipelineStages(const ir::IRModule& mod, std::vector<StagePlan>* plans,
                                   const StagePlanOptions& options) {
  std::vector<Diagnostic> problems = analysis::CheckSendRecvPairing(mod);
  if (!problems.empty()) throw DiagnosticError(std::move(problems));
  // Step 1 for every function side by side (each reads only its function), results and
  // problems gathered in member order: the same for every thread count.
  std::vector<const ir::IRModule::Member*> funcs;
  for (const ir::IRModule::Member& member : mod.members()) {
    if (ir::Is<ir::FunctionNode>(member.func)) funcs.push_back(&member);
  }
  std::vector<std::optional<StagePlan>> slots(funcs.size());
  std::vector<std::vector<Diagnostic>> slot_problems(funcs.size());
  support::CompileParallelFor(static_cast<int64_t>(funcs.size()), [&](int64_t i) {
    try {
      slots[i] =
          BuildStagePlan(funcs[i]->gvar, ir::Cast<ir::FunctionNode>(funcs[i]->func), options);
    } catch (const DiagnosticError& e) {
      slot_problems[i] = e.diagnostics();
    }
  });
  std::vector<StagePlan> built;
  for (size_t i = 0; i < funcs.size(); ++i) {
    problems.insert(problems.end(), slot_problems[i].begin(), slot_problems[i].end());
    if (slots[i]) built.push_back(std::move(*slots[i]));
  }
  if (!problems.empty()) throw DiagnosticError(std::move(problems));

  ir::IRModule out = mod;
  std::vector<ir::GlobalVar> dispatchers;
  for (const StagePlan& plan : built) {
    Var packed = ir::MakeVar(ir::protocol::kPackedParams, ir::ObjectSInfo());
    // Stage s is built after the name of stage s is checked: stages before the first taken
    // name are built (side by side, each into its own slot, reading only the plan), then the
    // name is reported, so the error is the one a serial loop would raise first.
    std::vector<std::string> names;
    int buildable = plan.num_stages;
    for (int s = 0; s < plan.num_stages; ++s) {
      names.push_back(plan.gvar->name_hint() + "_stage" + std::to_string(s));
      if (out.Find(names.back()) != nullptr) {
        buildable = s;
        break;
      }
    }
    std::vector<StageFunction> stages(buildable);
    support::CompileParallelFor(buildable, [&](int64_t s) {
      stages[s] = StageBuilder(plan, static_cast<int>(s), packed).Build(names[s]);
    });
    if (buildable < plan.num_stages) {
      ThrowError(plan.func->span(), "cannot split '" + plan.gvar->name_hint() +
                                        "': the module already has a member named '" +
                                        names[buildable] + "'");
    }
    out.Update(plan.gvar, BuildDispatcher(plan, packed, stages));
    dispatchers.push_back(plan.gvar);
    for (StageFunction& stage : stages) out.Add(stage.gvar, stage.func);
  }
  // Step 4, on the new dispatchers only (the members left alone were checked in step 0).
  std::vector<Diagnostic> pairing = analysis::CheckSendRecvPairing(out, dispatchers);
  PS_CHECK(pairing.empty()) << "the rewrite produced unpaired sends and receives:\n"
                            << DiagnosticError(pairing).what();
  if (plans != nullptr) *plans = std::move(built);
  return out;
}

PassInfo PipelineParallelRewritePassInfo() {
  using T = PassOptionSpec::Type;
  return {"pipeline-parallel-rewrite",
          "split functions marked pipeline_parallel_stages=N into N stage functions and a "
          "dispatcher",
          {{"param-order", T::kString,
            "a stage's parameters: 'original' (as the function declares them, the default) or "
            "'first-use' (as MLC-LLM's rewrite orders them)",
            false}},
          [](const PassOptions& options) -> std::unique_ptr<Pass> {
            StagePlanOptions o;
            std::string order = options.GetString("param-order", "original");
            if (order == "first-use") {
              o.param_order = StageParamOrder::kFirstUse;
            } else if (order != "original") {
              ThrowError(options.SpanOf("param-order"),
                         "pipeline-parallel-rewrite: param-order must be 'original' or "
                         "'first-use', not '" +
                             order + "'");
            }
            return std::make_unique<PipelineParallelRewritePass>(o);
          }};
}

}  // namespace pipesplit::transform
