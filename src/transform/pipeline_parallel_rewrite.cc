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
//  1. BuildStagePlan (checks the input; all problems are reported together).
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
//  4. Post-condition: sends of stage i pair up with receives of stage i + 1 (checked; a
//     mismatch is an internal error).
#include "pipesplit/transform/pipeline_parallel_rewrite.h"

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
#include "pipesplit/support/pointer_map.h"
#include "pipesplit/support/thread_pool.h"
#include "src/transform/passes.h"
#include "src/transform/pipeline_symbols.h"

namespace pipesplit::transform {
namespace {

using ir::Expr;
using ir::Var;

// Rewrites a stage's bindings into the stage's own scope: every symbolic var becomes the
// stage's own copy, and a Var definition gets a fresh Var when its struct info or its kind
// changes (dataflow unless it is an output); unchanged bindings are reused as they are.
class StageMutator : public ir::ExprMutator {
 public:
  StageMutator(ir::TirVarMap* symbols, const std::unordered_set<const ir::VarNode*>* outputs)
      : symbols_(symbols), outputs_(outputs) {}

  void Remap(const ir::VarNode* from, Var to) { SetRemap(from, std::move(to)); }
  void ReserveVars(size_t n) {  // no rehashing while the stage grows
    var_remap_.reserve(n);
    remapped_.Reserve(n);
  }
  const Var& Lookup(const Var& var) const {
    auto it = var_remap_.find(var.get());
    PS_CHECK(it != var_remap_.end()) << "no stage value for " << var->name_hint();
    return it->second;
  }

  // The stage's copy of every symbolic var in `e` (created on first sight).
  ir::PrimExpr VisitPrimExpr(const ir::PrimExpr& e) override {
    if (e == nullptr || e->kind() == ir::NodeKind::kIntImm) return e;  // most dims
    if (const auto* var = ir::As<ir::TirVarNode>(e)) {  // most of the others: one lookup
      auto it = symbols_->find(var);
      if (it != symbols_->end()) return it->second;
    }
    ir::VisitTirVars(e, [&](const ir::TirVar& v) { Copy(v); });
    return ir::Substitute(e, *symbols_);
  }

  ir::StructInfo Rewrite(const ir::StructInfo& sinfo) { return VisitStructInfo(sinfo); }

  // The last mapping is remembered: a call_tir's struct info is its out_sinfo node, visited
  // right after it.
  ir::StructInfo VisitStructInfo(const ir::StructInfo& sinfo) override {
    if (NamesShapeVar(sinfo)) {
      // R.Tensor(s, ...): `s` is the stage's copy when the stage has one; a shape var of
      // another stage is erased to the rank. Not cached: the stage's vars grow as it is built.
      return ExprMutator::VisitStructInfo(ir::EraseToWellDefined(
          sinfo, [](const ir::TirVarNode&) { return true; },
          [&](const ir::VarNode& v) { return var_remap_.count(&v) != 0; }));
    }
    if (sinfo != last_sinfo_in_) {
      last_sinfo_out_ = ExprMutator::VisitStructInfo(sinfo);
      last_sinfo_in_ = sinfo;
    }
    return last_sinfo_out_;
  }

  // A binding belongs to exactly one stage, so its var is defined once in the output and is
  // kept when the stage's copy would be identical (same struct info, same dataflow kind).
  Var VisitVarDef(const Var& var) override {
    bool output = outputs_->count(var.get()) != 0;
    bool dataflow = !output && in_dataflow_;
    ir::StructInfo sinfo = VisitStructInfo(var->struct_info());
    if (output && NamesShapeVar(sinfo)) {
      // An output leaves the dataflow block: it cannot name a shape var that stays inside.
      sinfo = ir::EraseToWellDefined(
          sinfo, [](const ir::TirVarNode&) { return true; },
          [](const ir::VarNode& v) { return !v.is_dataflow(); });
    }
    if (sinfo == var->struct_info() && dataflow == var->is_dataflow()) {
      // A reused shape var is in the stage's scope for later R.Tensor(s, ...) (VisitStructInfo).
      if (ir::Is<ir::ShapeSInfoNode>(sinfo)) SetRemap(var.get(), var);
      return var;
    }
    Var fresh = ir::MakeVar(var->name_hint(), std::move(sinfo), dataflow, var->span());
    SetRemap(var.get(), fresh);
    return fresh;
  }

  // A call bound to an output whose shape var was erased (VisitVarDef) takes the output's
  // struct info, as an annotated call does in TVMScript: the printed stage parses back the same.
  ir::Binding VisitBinding(const ir::Binding& binding) override {
    ir::Binding out = ExprMutator::VisitBinding(binding);
    const auto* call = ir::As<ir::CallNode>(out->value());
    if (call == nullptr || out->kind() != ir::NodeKind::kVarBinding ||
        outputs_->count(binding->var().get()) == 0 ||
        call->struct_info() == out->var()->struct_info() || !NamesShapeVar(call->struct_info())) {
      return out;
    }
    Expr value = ir::Make<ir::CallNode>(call->op(), call->args(), call->attrs(), call->sinfo_args(),
                                        out->var()->struct_info(), call->span());
    return ir::Make<ir::VarBindingNode>(out->var(), value, out->span());
  }

  // VisitBinding's result, computed directly for the common binding of a static model (a
  // call_tir of vars): a var binding whose var keeps its kind and has a struct info without
  // symbolic parts, and whose value is built of vars, leaves, tuples and calls whose struct
  // infos have no symbolic parts either. Only var uses can change there, and they are looked
  // up as ExprMutator would. nullptr when the binding needs the full walk.
  ir::Binding FastVisitBinding(const ir::Binding& binding) {
    if (binding->kind() != ir::NodeKind::kVarBinding || !in_dataflow_) return nullptr;
    const ir::Var& var = binding->var();
    // Kept only when its kind stays (dataflow unless it is an output).
    if (var->is_dataflow() == (outputs_->count(var.get()) != 0)) return nullptr;
    const ir::StructInfo& sinfo = var->struct_info();
    // A kept shape var is recorded in the remap by VisitVarDef: left to the walk.
    if (ir::Is<ir::ShapeSInfoNode>(sinfo) || !IsStaticStructInfo(sinfo)) return nullptr;
    Expr value = FastVisit(binding->value());
    if (value == nullptr) return nullptr;
    if (value == binding->value()) return binding;
    return ir::Make<ir::VarBindingNode>(var, std::move(value), binding->span());
  }

  void set_in_dataflow(bool v) { in_dataflow_ = v; }

 protected:
  ir::Expr VisitExpr_(const ir::Ptr<ir::FunctionNode>& node) override {
    bool saved = in_dataflow_;
    in_dataflow_ = false;  // a nested function's vars are its own
    ir::Expr out = ExprMutator::VisitExpr_(node);
    in_dataflow_ = saved;
    return out;
  }

 private:
  static bool NamesShapeVar(const ir::StructInfo& sinfo) {
    if (const auto* tensor = ir::As<ir::TensorSInfoNode>(sinfo)) {
      return tensor->shape_var() != nullptr;  // most struct infos: one test
    }
    if (!ir::Is<ir::TupleSInfoNode>(sinfo) && !ir::Is<ir::FuncSInfoNode>(sinfo)) return false;
    bool found = false;
    ir::VisitShapeVars(sinfo, [&](const ir::VarNode&) { found = true; });
    return found;
  }

  // ExprMutator::VisitExpr(e) for the expressions FastVisitBinding takes; nullptr otherwise.
  Expr FastVisit(const Expr& e) {
    switch (e->kind()) {
      case ir::NodeKind::kVar:
      case ir::NodeKind::kDataflowVar: {
        const auto* var = static_cast<const ir::VarNode*>(e.get());
        if (!remapped_.Contains(var)) return e;  // most uses: one flat probe
        return var_remap_.find(var)->second;
      }
      case ir::NodeKind::kGlobalVar:
      case ir::NodeKind::kConstant:
      case ir::NodeKind::kStringImm:
      case ir::NodeKind::kDataTypeImm:
      case ir::NodeKind::kOp:
      case ir::NodeKind::kExternFunc:
        return e;
      case ir::NodeKind::kPrimValue: {
        const ir::PrimExpr& value = static_cast<const ir::PrimValueNode&>(*e).value();
        return value == nullptr || value->kind() == ir::NodeKind::kIntImm ? e : nullptr;
      }
      case ir::NodeKind::kShapeExpr:
        return AllConstDims(static_cast<const ir::ShapeExprNode&>(*e).values()) ? e : nullptr;
      case ir::NodeKind::kTuple: {
        const auto& tuple = static_cast<const ir::TupleNode&>(*e);
        std::vector<Expr> fields;
        if (!FastVisitAll(tuple.fields(), &fields)) return nullptr;
        if (fields.empty()) return e;
        std::vector<ir::StructInfo> sinfo;
        sinfo.reserve(fields.size());
        for (const Expr& f : fields) sinfo.push_back(f->struct_info());
        return ir::Make<ir::TupleNode>(std::move(fields), ir::TupleSInfo(std::move(sinfo)),
                                       tuple.span());
      }
      case ir::NodeKind::kCall: {
        const auto& call = static_cast<const ir::CallNode&>(*e);
        if (!IsStaticStructInfo(call.struct_info())) return nullptr;
        for (const ir::StructInfo& s : call.sinfo_args()) {
          if (!IsStaticStructInfo(s)) return nullptr;
        }
        Expr op = FastVisit(call.op());
        if (op == nullptr) return nullptr;
        std::vector<Expr> args;
        if (!FastVisitAll(call.args(), &args)) return nullptr;
        if (op == call.op() && args.empty()) return e;
        return ir::Make<ir::CallNode>(std::move(op), args.empty() ? call.args() : std::move(args),
                                      call.attrs(), call.sinfo_args(), call.struct_info(),
                                      call.span());
      }
      default:  // tuple items, nested scopes, branches: the full walk
        return nullptr;
    }
  }

  // Visits every item; false when one is not fast. `out` stays empty when none changed
  // (as MapOnChange), else holds every result.
  bool FastVisitAll(const std::vector<Expr>& in, std::vector<Expr>* out) {
    for (size_t i = 0; i < in.size(); ++i) {
      Expr r = FastVisit(in[i]);
      if (r == nullptr) return false;
      if (out->empty()) {
        if (r == in[i]) continue;
        out->reserve(in.size());
        out->assign(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(i));
      }
      out->push_back(std::move(r));
    }
    return true;
  }

  // Every write of var_remap_ goes through here, so `remapped_` holds its keys.
  void SetRemap(const ir::VarNode* from, Var to) {
    var_remap_[from] = std::move(to);
    remapped_.Insert(from);
  }

  void Copy(const ir::TirVar& v) {
    if (symbols_->count(v.get())) return;
    symbols_->emplace(v.get(), ir::Make<ir::TirVarNode>(v->name(), v->dtype(), v->is_size_var()));
  }

  ir::TirVarMap* symbols_;
  const std::unordered_set<const ir::VarNode*>* outputs_;
  bool in_dataflow_ = true;
  ir::StructInfo last_sinfo_in_, last_sinfo_out_;  // see VisitStructInfo
  support::PointerSet<ir::VarNode> remapped_;      // the keys of var_remap_ (FastVisit)
};

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
  std::string name() const override { return "pipeline-parallel-rewrite"; }

  ir::IRModule Run(const ir::IRModule& mod, PassContext& ctx) const override {
    std::vector<StagePlan> plans;
    ir::IRModule out = RewritePipelineStages(mod, &plans);
    ctx.Set(std::move(plans));
    return out;
  }
};

}  // namespace

ir::IRModule RewritePipelineStages(const ir::IRModule& mod, std::vector<StagePlan>* plans) {
  std::vector<Diagnostic> problems = analysis::CheckSendRecvPairing(mod);
  if (!problems.empty()) throw DiagnosticError(std::move(problems));
  std::vector<StagePlan> built;
  for (const ir::IRModule::Member& member : mod.members()) {
    auto func = ir::Cast<ir::FunctionNode>(member.func);
    if (!func) continue;
    try {
      if (auto plan = BuildStagePlan(member.gvar, func)) built.push_back(std::move(*plan));
    } catch (const DiagnosticError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  if (!problems.empty()) throw DiagnosticError(std::move(problems));

  ir::IRModule out = mod;
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
    for (StageFunction& stage : stages) out.Add(stage.gvar, stage.func);
  }
  std::vector<Diagnostic> pairing = analysis::CheckSendRecvPairing(out);
  PS_CHECK(pairing.empty()) << "the rewrite produced unpaired sends and receives:\n"
                            << DiagnosticError(pairing).what();
  if (plans != nullptr) *plans = std::move(built);
  return out;
}

PassInfo PipelineParallelRewritePassInfo() {
  return {"pipeline-parallel-rewrite",
          "split functions marked pipeline_parallel_stages=N into N stage functions and a "
          "dispatcher",
          {},
          [](const PassOptions&) { return std::make_unique<PipelineParallelRewritePass>(); }};
}

}  // namespace pipesplit::transform
