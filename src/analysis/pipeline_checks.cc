// CheckSendRecvPairing: sends of stage i against receives of stage i + 1.
//
// Steps: 1. find dispatchers and their stage tables; 2. per stage, list the sends (the
// struct info of each sent value) and the receives (their declared struct info), in
// program order; 3. translate each stage's symbolic vars into the dispatcher's terms
// through the `s` shape argument and the tensor parameters; 4. compare pair by pair.
// Not checked: values that flow through anything but the top-level bindings of a stage.
#include "pipesplit/analysis/pipeline_checks.h"

#include "pipesplit/ir/arith.h"
#include "pipesplit/ir/protocol.h"
#include "pipesplit/script/printer.h"

namespace pipesplit::analysis {
namespace {

struct Endpoint {
  ir::StructInfo sinfo;
  Span span;
};

struct StageIo {
  std::string name;
  std::vector<Endpoint> sends;
  std::vector<Endpoint> recvs;
  ir::TirVarMap to_dispatcher;  // stage symbolic var -> dispatcher expression
};

// Maps the bare symbolic dims of `stage_side` to the matching dims of `caller_side`.
void MapDims(const ir::StructInfo& stage_side, const ir::StructInfo& caller_side,
             ir::TirVarMap* map) {
  auto bind = [&](const std::vector<ir::PrimExpr>& a, const std::vector<ir::PrimExpr>& b) {
    if (a.size() != b.size()) return;
    for (size_t i = 0; i < a.size(); ++i) {
      if (const auto* v = ir::As<ir::TirVarNode>(a[i])) map->try_emplace(v, b[i]);
    }
  };
  const auto* ta = ir::As<ir::TensorSInfoNode>(stage_side);
  const auto* tb = ir::As<ir::TensorSInfoNode>(caller_side);
  if (ta && tb && ta->shape() && tb->shape()) bind(*ta->shape(), *tb->shape());
  const auto* sa = ir::As<ir::ShapeSInfoNode>(stage_side);
  const auto* sb = ir::As<ir::ShapeSInfoNode>(caller_side);
  if (sa && sb && sa->values() && sb->values()) bind(*sa->values(), *sb->values());
}

bool Translatable(const ir::PrimExpr& e, const ir::TirVarMap& map) {
  bool ok = true;
  ir::VisitTirVars(e, [&](const ir::TirVar& v) { ok &= map.count(v.get()) != 0; });
  return ok;
}

// Empty when the two agree; otherwise what differs.
std::string Compare(const Endpoint& send, const StageIo& from, const Endpoint& recv,
                    const StageIo& to) {
  const auto* a = ir::As<ir::TensorSInfoNode>(send.sinfo);
  const auto* b = ir::As<ir::TensorSInfoNode>(recv.sinfo);
  if (a == nullptr || b == nullptr) return "only tensors can be sent";
  if (a->dtype() != b->dtype()) return "dtypes differ";
  if (a->ndim() >= 0 && b->ndim() >= 0 && a->ndim() != b->ndim()) return "ranks differ";
  if (!a->shape() || !b->shape()) return {};
  for (size_t i = 0; i < a->shape()->size(); ++i) {
    const ir::PrimExpr& da = (*a->shape())[i];
    const ir::PrimExpr& db = (*b->shape())[i];
    if (!Translatable(da, from.to_dispatcher) || !Translatable(db, to.to_dispatcher)) continue;
    if (!ir::ProvablyEqual(ir::Substitute(da, from.to_dispatcher),
                           ir::Substitute(db, to.to_dispatcher))) {
      return "dimension " + std::to_string(i) + " differs";
    }
  }
  return {};
}

StageIo CollectStage(const ir::IRModule& mod, const ir::TupleNode& entry,
                     std::vector<Diagnostic>* out, Span at) {
  StageIo io;
  const auto* gvar = ir::As<ir::GlobalVarNode>(entry.fields()[0]);
  if (gvar == nullptr) return io;
  io.name = gvar->name_hint();
  ir::Function func = mod.LookupFunction(gvar->name_hint());
  if (!func) {
    Diagnostic d;
    d.span = at;
    d.message = "dispatcher refers to '" + io.name + "', which is not a Relax function";
    out->push_back(std::move(d));
    return io;
  }
  // Arguments line up with parameters.
  for (size_t i = 1; i < entry.fields().size() && i - 1 < func->params().size(); ++i) {
    MapDims(func->params()[i - 1]->struct_info(), entry.fields()[i]->struct_info(),
            &io.to_dispatcher);
  }
  const auto* seq = ir::As<ir::SeqExprNode>(func->body());
  if (seq == nullptr) return io;
  for (const ir::BindingBlock& block : seq->blocks()) {
    for (const ir::Binding& b : block->bindings()) {
      if (const ir::CallNode* send = ir::IsExternCall(b->value(), ir::protocol::kSendToNextGroup)) {
        if (!send->args().empty()) {
          io.sends.push_back({send->args()[0]->struct_info(), b->span()});
        }
      } else if (const ir::CallNode* recv = ir::IsExternCall(
                     b->value(), ir::protocol::kCallDpsPacked, ir::protocol::kRecvFromPrevGroup)) {
        io.recvs.push_back(
            {recv->sinfo_args().empty() ? b->var()->struct_info() : recv->sinfo_args()[0],
             b->span()});
      }
    }
  }
  return io;
}

void CheckDispatch(const ir::IRModule& mod, const ir::CallNode& call, Span at,
                   std::vector<Diagnostic>* out) {
  std::optional<std::vector<const ir::TupleNode*>> table = ir::ReadDispatchTable(call);
  if (!table) return;
  std::vector<StageIo> stages;
  for (const ir::TupleNode* entry : *table) {
    if (entry != nullptr) stages.push_back(CollectStage(mod, *entry, out, at));
  }
  for (size_t i = 0; i + 1 <= stages.size(); ++i) {
    const StageIo& from = stages[i];
    const std::vector<Endpoint> none;
    const std::vector<Endpoint>& recvs = i + 1 < stages.size() ? stages[i + 1].recvs : none;
    if (i == 0 && !from.recvs.empty()) {
      Diagnostic d;
      d.span = from.recvs[0].span;
      d.message = "'" + from.name + "' is the first stage but receives a value";
      out->push_back(std::move(d));
    }
    if (i + 1 == stages.size()) {
      if (!from.sends.empty()) {
        Diagnostic d;
        d.span = from.sends[0].span;
        d.message = "'" + from.name + "' is the last stage but sends a value";
        out->push_back(std::move(d));
      }
      break;
    }
    const StageIo& to = stages[i + 1];
    if (from.sends.size() != recvs.size()) {
      Diagnostic d;
      d.span = at;
      d.message = "'" + from.name + "' sends " + std::to_string(from.sends.size()) +
                  " values but '" + to.name + "' receives " + std::to_string(recvs.size());
      out->push_back(std::move(d));
      continue;
    }
    for (size_t j = 0; j < recvs.size(); ++j) {
      std::string why = Compare(from.sends[j], from, recvs[j], to);
      if (why.empty()) continue;
      Diagnostic d;
      d.span = from.sends[j].span;
      d.message = "send " + std::to_string(j) + " of '" + from.name + "' (" +
                  script::PrintStructInfo(from.sends[j].sinfo) + ") does not match receive " +
                  std::to_string(j) + " of '" + to.name + "' (" +
                  script::PrintStructInfo(recvs[j].sinfo) + "): " + why;
      d.AddNote(recvs[j].span, "the receive is here");
      out->push_back(std::move(d));
    }
  }
}

void CheckDispatchersIn(const ir::IRModule& mod, const ir::Expr& member,
                        std::vector<Diagnostic>* out) {
  const auto* func = ir::As<ir::FunctionNode>(member);
  if (func == nullptr) return;
  const auto* seq = ir::As<ir::SeqExprNode>(func->body());
  if (seq == nullptr) return;
  for (const ir::BindingBlock& block : seq->blocks()) {
    for (const ir::Binding& b : block->bindings()) {
      if (const ir::CallNode* dispatch =
              ir::IsExternCall(b->value(), ir::protocol::kCallBuiltinWithCtx,
                               ir::protocol::kDispatchFunctionByGroup)) {
        CheckDispatch(mod, *dispatch, b->span(), out);
      }
    }
  }
}

}  // namespace

std::vector<Diagnostic> CheckSendRecvPairing(const ir::IRModule& mod) {
  std::vector<Diagnostic> out;
  for (const ir::IRModule::Member& member : mod.members()) {
    CheckDispatchersIn(mod, member.func, &out);
  }
  return out;
}

std::vector<Diagnostic> CheckSendRecvPairing(const ir::IRModule& mod,
                                             const std::vector<ir::GlobalVar>& members) {
  std::vector<Diagnostic> out;
  for (const ir::GlobalVar& gvar : members) {
    if (const ir::IRModule::Member* member = mod.Find(gvar->name_hint())) {
      CheckDispatchersIn(mod, member->func, &out);
    }
  }
  return out;
}

}  // namespace pipesplit::analysis
