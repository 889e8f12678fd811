// Pass `tir-compute-inline`: TVM's compute_inline schedule primitive applied by itself to every
// block it is safe for. A producer block P that writes every element of an intermediate buffer
// B once is removed with its loop nest and B's allocation, and each load B[e0, e1, ...] in a
// later block becomes P's stored value with P's iter vars replaced by e0, e1, ... (MLC-LLM's
// unscheduled CPU kernels unpack whole weight matrices into such buffers to read a few rows).
//
// Preconditions: the function is well-formed TIR. Nothing else: what the conditions below do
// not admit is left as written (the report says why), never an error.
//
// P, writing B, is inlined when all of the following hold:
//  1. B is allocated by a block S (T.alloc_buffer / T.sblock_alloc_buffer) whose body is a
//     sequence, has the default layout, and is named by no other buffer node (none shares its
//     data var), by no expression (B.data) and by no T.match_buffer.
//  2. P is complete and trivial: no T.init, every iter var spatial, no predicate (or a constant
//     true one), no allocations or matches of its own, T.writes of B only, and a body that is
//     one store B[v0, v1, ...] = value of B's dtype, indexed by its iter vars in order.
//  3. P's loop nest is a statement of S's sequence: serial loops from 0, each the only
//     statement of the previous one, ending in P; each iter var is bound to its own loop,
//     whose extent is the iter var's domain [0, extent), which is B's dim: P writes each
//     element of B exactly once. Loops that bind no iter var have extent 1.
//  4. The value is a pure expression (no T.Let, only the intrinsics of IsPureIntrinsic) of P's
//     iter vars and of vars the function does not bind (params, shape vars); it does not read
//     B, and reads only buffers visible in all of S that no later statement of the sequence
//     writes (without tir.noalias, no later statement writes any parameter buffer when it
//     reads one). Evaluated later, it reads the same data.
//  5. B is read (loaded, or named in T.reads) only in leaf blocks (blocks without blocks
//     inside) of later statements, by loads whose indices have the dtypes of P's iter vars,
//     at least once; earlier statements do not name B, nothing else writes it.
// A load of B then reads the value P stored there, so computing that value in place gives the
// same bits: the same operations on the same operands (codegen rounds float16 after each
// operation, and a store of a value of the buffer's dtype is exact). Nothing is simplified.
//
// Steps:
//  1. Collect the function's facts (CollectFunctionFacts), its allocating blocks in pre-order
//     (FindScopes) and the buffer uses of each statement of their sequences (ScanStatement).
//  2. Take the statements in order and check conditions 2, 3, 1, 4, 5 on the block each ends
//     in (ProducerChecker), keeping the first failure as the reason it stays.
//  3. Inline the first producer that passes (Inliner): replace the loads of B in the later
//     statements, recompute T.reads of the blocks that named B (its region becomes P's read
//     regions at the region's point, deduplicated), drop P's nest from the sequence and B from
//     S's allocations.
//  4. Repeat from 1 until no producer passes (chains: once A is inlined into B, B may pass).
//     A function in which nothing passed comes back as the same node.
#include "pipesplit/transform/tir_compute_inline.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pipesplit/ir/arith.h"
#include "pipesplit/ir/tir_functor.h"
#include "pipesplit/support/check.h"
#include "src/transform/passes.h"
#include "src/transform/tir_compute_inline_uses.h"

namespace pipesplit::transform {
namespace {

using compute_inline::FunctionFacts;
using compute_inline::Scope;
using compute_inline::StatementUses;
using compute_inline::VarSet;
using ir::PrimExpr;
using ir::Stmt;

// A producer that passed the checks.
struct Producer {
  const Scope* scope = nullptr;
  size_t statement = 0;  // index of P's nest in the scope's sequence
  const ir::BlockRealizeNode* realize = nullptr;
  const ir::BlockNode* block = nullptr;
  ir::Buffer buffer;
  PrimExpr value;
};

// Equal integer constants, or the same expression tree.
bool SameValue(const PrimExpr& a, const PrimExpr& b) {
  std::optional<int64_t> x = ir::AsConstInt(a);
  std::optional<int64_t> y = ir::AsConstInt(b);
  if (x && y) return *x == *y;
  return ir::ExprDeepEqual(a, b);
}

bool IsConstTrue(const PrimExpr& e) { return e == nullptr || ir::AsConstInt(e) == 1; }

bool UsesAny(const PrimExpr& e, const VarSet& vars) {
  bool found = false;
  ir::VisitTirVars(e, [&](const ir::TirVar& v) { found = found || vars.count(v.get()) != 0; });
  return found;
}

// The data vars of the buffers `e` loads, in order of first load; sets *pure to false when it
// holds a T.Let or a call that is not a pure intrinsic.
void ValueReads(const PrimExpr& e, std::vector<const ir::TirVarNode*>* reads, bool* pure) {
  if (e == nullptr) return;
  if (const auto* load = ir::As<ir::BufferLoadNode>(e)) {
    const ir::TirVarNode* data = load->buffer()->data().get();
    if (std::find(reads->begin(), reads->end(), data) == reads->end()) reads->push_back(data);
  }
  if (ir::Is<ir::LetNode>(e)) *pure = false;
  if (const auto* call = ir::As<ir::PrimCallNode>(e)) {
    if (!compute_inline::IsPureIntrinsic(call->name())) *pure = false;
  }
  ir::ForEachChild(e, [&](const PrimExpr& child) { ValueReads(child, reads, pure); });
}

class ProducerChecker {
 public:
  ProducerChecker(const FunctionFacts& facts, const Scope& scope,
                  const std::vector<StatementUses>& uses)
      : facts_(facts), scope_(scope), uses_(uses) {}

  // Checks the block statement `k` of the sequence ends in. Returns nullopt when the
  // statement writes none of the scope's buffers (nothing to report); else "" and fills
  // *producer when it passes, or why it stays, naming the block in *name.
  std::optional<std::string> Check(size_t k, Producer* producer, std::string* name) const {
    std::vector<const ir::ForNode*> loops;
    Stmt stmt = scope_.seq->seq()[k];
    while (const auto* loop = ir::As<ir::ForNode>(stmt)) {
      loops.push_back(loop);
      stmt = loop->body();
    }
    const auto* realize = ir::As<ir::BlockRealizeNode>(stmt);
    const ir::BufferNode* target = nullptr;
    for (const ir::Buffer& b : scope_.block->alloc_buffers()) {
      if (uses_[k].Writes(b->data().get())) target = b.get();
    }
    if (target == nullptr) return std::nullopt;
    *name = realize != nullptr ? realize->block()->name_hint() : target->name();
    if (realize == nullptr) {
      return "the statement writing " + target->name() + " is not a perfect loop nest of a block";
    }
    const ir::BlockNode& block = *realize->block();
    if (block.init() != nullptr) return std::string("a reduction (T.init)");
    for (const ir::IterVar& iv : block.iter_vars()) {
      if (iv.type != ir::IterVarType::kDataPar) return std::string("a reduction or opaque block");
    }
    const auto* store = ir::As<ir::BufferStoreNode>(block.body());
    if (store == nullptr) return std::string("its body is not one store");
    const ir::Buffer& buffer = store->buffer();
    if (buffer.get() != target) return "its body does not store to " + target->name();
    if (block.writes().size() != 1 || block.writes()[0].buffer != buffer) {
      return "its T.writes is not " + buffer->name() + " alone";
    }
    if (!IsConstTrue(realize->predicate())) return std::string("it has a predicate (T.where)");
    if (!block.alloc_buffers().empty() || !block.match_buffers().empty()) {
      return std::string("it allocates or matches buffers");
    }
    if (store->value()->dtype() != buffer->dtype()) {
      return "its value is not of " + buffer->name() + "'s dtype";
    }
    const std::vector<ir::IterVar>& ivs = block.iter_vars();
    bool indices_are_iter_vars = store->indices().size() == ivs.size();
    for (size_t i = 0; indices_are_iter_vars && i < ivs.size(); ++i) {
      indices_are_iter_vars = store->indices()[i] == ivs[i].var;
    }
    if (!indices_are_iter_vars) return std::string("its store indices are not its iter vars");
    if (std::string why = CheckNest(loops, *realize, *buffer); !why.empty()) return why;
    if (std::string why = CheckBuffer(*buffer); !why.empty()) return why;
    if (std::string why = CheckValue(k, block, *store); !why.empty()) return why;
    if (std::string why = CheckReaders(k, block, *buffer); !why.empty()) return why;
    *producer = {&scope_, k, realize, &block, buffer, store->value()};
    return std::string();
  }

 private:
  // Condition 3.
  static std::string CheckNest(const std::vector<const ir::ForNode*>& loops,
                               const ir::BlockRealizeNode& realize, const ir::BufferNode& buffer) {
    std::unordered_map<const ir::TirVarNode*, const ir::ForNode*> loop_of;
    for (const ir::ForNode* loop : loops) {
      if (loop->for_kind() != ir::ForKind::kSerial || !loop->thread_tag().empty()) {
        return "its loop " + loop->loop_var()->name() + " is not serial";
      }
      if (ir::AsConstInt(loop->min()) != 0) {
        return "its loop " + loop->loop_var()->name() + " does not start at 0";
      }
      loop_of[loop->loop_var().get()] = loop;
    }
    const std::vector<ir::IterVar>& ivs = realize.block()->iter_vars();
    if (ivs.size() != buffer.shape().size()) return "its iter vars are not the dims of its buffer";
    std::unordered_map<const ir::ForNode*, bool> bound;
    for (size_t i = 0; i < ivs.size(); ++i) {
      const auto* var = ir::As<ir::TirVarNode>(realize.iter_values()[i]);
      auto it = var != nullptr ? loop_of.find(var) : loop_of.end();
      if (it == loop_of.end() || bound[it->second]) {
        return "iter var " + ivs[i].var->name() + " is not bound to a loop of its own";
      }
      bound[it->second] = true;
      if (ir::AsConstInt(ivs[i].dom.min) != 0 ||
          !SameValue(ivs[i].dom.extent, it->second->extent())) {
        return "iter var " + ivs[i].var->name() + " does not cover its loop's range";
      }
      if (!SameValue(ivs[i].dom.extent, buffer.shape()[i])) {
        return "iter var " + ivs[i].var->name() + " does not span dim " + std::to_string(i) +
               " of " + buffer.name();
      }
    }
    for (const ir::ForNode* loop : loops) {
      if (!bound[loop] && ir::AsConstInt(loop->extent()) != 1) {
        return "its loop " + loop->loop_var()->name() + " binds no iter var";
      }
    }
    return {};
  }

  // Condition 1.
  std::string CheckBuffer(const ir::BufferNode& buffer) const {
    const ir::TirVarNode* data = buffer.data().get();
    if (!buffer.has_default_layout()) {
      return buffer.name() + " has strides, an offset or a scalar form";
    }
    auto aliases = facts_.buffers_of_data.find(data);
    if (aliases != facts_.buffers_of_data.end() && aliases->second.size() > 1) {
      return "another buffer shares " + buffer.name() + "'s data";
    }
    if (facts_.vars_in_exprs.count(data) != 0) return buffer.name() + "'s data is used directly";
    if (facts_.matched_data.count(data) != 0) return buffer.name() + " is matched by a block";
    return {};
  }

  // Condition 4.
  std::string CheckValue(size_t k, const ir::BlockNode& block,
                         const ir::BufferStoreNode& store) const {
    VarSet iter_vars;
    for (const ir::IterVar& iv : block.iter_vars()) iter_vars.insert(iv.var.get());
    for (const ir::TirVar& v : ir::FreeTirVars(store.value())) {
      if (iter_vars.count(v.get()) == 0 &&
          (facts_.bound_vars.count(v.get()) != 0 || v->dtype().code() == DataType::Code::kHandle)) {
        return "its value uses " + v->name() + ", bound outside it";
      }
    }
    std::vector<const ir::TirVarNode*> reads;
    bool pure = true;
    ValueReads(store.value(), &reads, &pure);
    if (!pure) return std::string("its value is not a pure expression");
    const ir::TirVarNode* own = store.buffer()->data().get();
    bool reads_param = false;
    for (const ir::TirVarNode* data : reads) {
      if (data == own) return "its value reads " + store.buffer()->name();
      if (scope_.visible.count(data) == 0) {
        return "its value reads " + NameOf(data) + ", which its readers may not see";
      }
      reads_param = reads_param || facts_.param_data.count(data) != 0;
    }
    for (size_t j = k + 1; j < uses_.size(); ++j) {
      for (const ir::TirVarNode* data : reads) {
        if (uses_[j].Writes(data)) return "a later statement writes " + NameOf(data);
      }
      if (reads_param && !facts_.noalias) {
        for (const ir::TirVarNode* data : facts_.param_data) {
          if (uses_[j].Writes(data)) {
            return "a later statement writes " + NameOf(data) + ", which may alias an input";
          }
        }
      }
    }
    return {};
  }

  // Condition 5 (and the "only writer" part of 2).
  std::string CheckReaders(size_t k, const ir::BlockNode& block,
                           const ir::BufferNode& buffer) const {
    const ir::TirVarNode* data = buffer.data().get();
    for (size_t j = 0; j < k; ++j) {
      if (uses_[j].Mentions(data)) return "an earlier statement uses " + buffer.name();
    }
    const StatementUses& own = uses_[k];
    auto count = [data](const std::unordered_map<const ir::TirVarNode*, int>& m) {
      auto it = m.find(data);
      return it == m.end() ? 0 : it->second;
    };
    if (count(own.stores) != 1 || count(own.write_regions) != 1 ||
        own.leaf_loads.count(data) != 0 || own.leaf_reads.count(data) != 0 ||
        own.other_uses.count(data) != 0) {
      return buffer.name() + " has another writer or reader in its nest";
    }
    bool read = false;
    for (size_t j = k + 1; j < uses_.size(); ++j) {
      const StatementUses& u = uses_[j];
      if (u.Writes(data)) return "another statement writes " + buffer.name();
      if (u.other_uses.count(data) != 0) return buffer.name() + " is read outside a leaf block";
      read = read || u.Mentions(data);
      auto loads = u.leaf_loads.find(data);
      if (loads == u.leaf_loads.end()) continue;
      for (const ir::BufferLoadNode* load : loads->second) {
        for (size_t i = 0; i < load->indices().size(); ++i) {
          if (load->indices()[i]->dtype() != block.iter_vars()[i].var->dtype()) {
            return "a load of " + buffer.name() + " has indices of another dtype";
          }
        }
      }
    }
    if (!read) return "no later block reads " + buffer.name();
    return {};
  }

  // The name of the buffer(s) of a data var (the least, for determinism).
  std::string NameOf(const ir::TirVarNode* data) const {
    auto it = facts_.buffers_of_data.find(data);
    if (it == facts_.buffers_of_data.end()) return data->name();
    std::string name;
    for (const ir::BufferNode* b : it->second) {
      if (name.empty() || b->name() < name) name = b->name();
    }
    return name;
  }

  const FunctionFacts& facts_;
  const Scope& scope_;
  const std::vector<StatementUses>& uses_;
};

// Step 2: the first producer of `func` that passes, or nullopt; the reasons of the others up to
// it in *refused.
std::optional<Producer> FindProducer(const ir::PrimFuncNode& func, std::vector<Scope>* scopes,
                                     std::vector<ComputeInlineReport::Refusal>* refused) {
  FunctionFacts facts = compute_inline::CollectFunctionFacts(func);
  *scopes = compute_inline::FindScopes(func);
  for (const Scope& scope : *scopes) {
    std::vector<StatementUses> uses;
    uses.reserve(scope.seq->seq().size());
    for (const Stmt& s : scope.seq->seq()) uses.push_back(compute_inline::ScanStatement(s));
    ProducerChecker checker(facts, scope, uses);
    for (size_t k = 0; k < uses.size(); ++k) {
      Producer producer;
      std::string name;
      std::optional<std::string> why = checker.Check(k, &producer, &name);
      if (!why) continue;
      if (why->empty()) return producer;
      refused->push_back({name, *why});
    }
  }
  return std::nullopt;
}

// Step 3: the function with one producer inlined.
class Inliner : public ir::StmtMutator {
 public:
  explicit Inliner(const Producer& p) : p_(p) {}

  PrimExpr VisitPrimExpr(const PrimExpr& e) override {
    if (e == nullptr) return e;
    PrimExpr out = ir::MapChildren(e, [this](const PrimExpr& c) { return VisitPrimExpr(c); });
    const auto* load = ir::As<ir::BufferLoadNode>(out);
    if (load == nullptr || load->buffer() != p_.buffer) return out;
    ir::TirVarMap map;
    const std::vector<ir::IterVar>& ivs = p_.block->iter_vars();
    PS_CHECK(load->indices().size() == ivs.size()) << "load of " << p_.buffer->name();
    for (size_t i = 0; i < ivs.size(); ++i) map[ivs[i].var.get()] = load->indices()[i];
    return ir::Substitute(p_.value, map);
  }

 protected:
  Stmt VisitStmt_(const ir::BlockNode& op, const Stmt& self) override {
    if (&op == p_.scope->block) return RewriteScope(op);
    Stmt visited = StmtMutator::VisitStmt_(op, self);
    const auto& block = static_cast<const ir::BlockNode&>(*visited);
    bool names_buffer = false;
    for (const ir::BufferRegion& r : block.reads()) names_buffer |= r.buffer == p_.buffer;
    if (!names_buffer) return visited;
    std::vector<ir::BufferRegion> reads;
    for (const ir::BufferRegion& r : block.reads()) {
      if (r.buffer != p_.buffer) {
        AddRegion(r, &reads);
        continue;
      }
      for (const ir::BufferRegion& q : p_.block->reads()) AddRegion(Project(q, r), &reads);
    }
    return ir::Make<ir::BlockNode>(
        ir::BlockNode::Fields{block.name_hint(), block.iter_vars(), std::move(reads),
                              block.writes(), block.init(), block.alloc_buffers(),
                              block.match_buffers(), block.annotations(), block.body()},
        op.span());
  }

 private:
  Stmt RewriteScope(const ir::BlockNode& op) {
    std::vector<Stmt> seq;
    const std::vector<Stmt>& old = p_.scope->seq->seq();
    for (size_t i = 0; i < old.size(); ++i) {
      if (i != p_.statement) seq.push_back(VisitStmt(old[i]));
    }
    std::vector<ir::Buffer> allocs;
    for (const ir::Buffer& b : op.alloc_buffers()) {
      if (b != p_.buffer) allocs.push_back(b);
    }
    PS_CHECK(allocs.size() + 1 == op.alloc_buffers().size()) << p_.buffer->name();
    return ir::Make<ir::BlockNode>(
        ir::BlockNode::Fields{op.name_hint(), op.iter_vars(), op.reads(), op.writes(), op.init(),
                              std::move(allocs), op.match_buffers(), op.annotations(),
                              ir::MakeSeq(std::move(seq), p_.scope->seq->span())},
        op.span());
  }

  // P's read region `q` where the consumer reads region `r` of B: P's iter vars at r's point
  // in the dims where r is one element; a dim of q that depends on an iter var over which r
  // ranges becomes the whole dim.
  ir::BufferRegion Project(const ir::BufferRegion& q, const ir::BufferRegion& r) const {
    const std::vector<ir::IterVar>& ivs = p_.block->iter_vars();
    PS_CHECK(r.region.size() == ivs.size()) << "region of " << p_.buffer->name();
    ir::TirVarMap point;
    VarSet ranged;
    for (size_t i = 0; i < ivs.size(); ++i) {
      if (ir::AsConstInt(r.region[i].extent) == 1) {
        point[ivs[i].var.get()] = r.region[i].min;
      } else {
        ranged.insert(ivs[i].var.get());
      }
    }
    ir::BufferRegion out{q.buffer, {}};
    for (size_t d = 0; d < q.region.size(); ++d) {
      const ir::Range& range = q.region[d];
      if (UsesAny(range.min, ranged) || UsesAny(range.extent, ranged)) {
        const PrimExpr& dim = q.buffer->shape()[d];
        out.region.push_back({ir::IntImm(0, dim->dtype()), dim});
      } else {
        out.region.push_back(
            {ir::Substitute(range.min, point), ir::Substitute(range.extent, point)});
      }
    }
    return out;
  }

  static void AddRegion(ir::BufferRegion region, std::vector<ir::BufferRegion>* regions) {
    for (const ir::BufferRegion& r : *regions) {
      if (r.buffer != region.buffer || r.region.size() != region.region.size()) continue;
      bool same = true;
      for (size_t d = 0; same && d < r.region.size(); ++d) {
        same = ir::ExprDeepEqual(r.region[d].min, region.region[d].min) &&
               ir::ExprDeepEqual(r.region[d].extent, region.region[d].extent);
      }
      if (same) return;
    }
    regions->push_back(std::move(region));
  }

  const Producer& p_;
};

ir::PrimFunc WithBody(const ir::PrimFuncNode& func, Stmt body) {
  ir::PrimFuncNode::Fields f;
  f.name = func.name();
  f.params = func.params();
  f.buffer_map = func.buffer_map();
  f.body = std::move(body);
  f.attrs = func.attrs();
  f.is_private = func.is_private();
  f.s_tir = func.s_tir();
  return ir::Make<ir::PrimFuncNode>(std::move(f), func.span());
}

class ComputeInlinePass : public Pass {
 public:
  std::string name() const override { return "tir-compute-inline"; }
  ir::IRModule Run(const ir::IRModule& mod, PassContext&) const override {
    ir::IRModule out = mod;
    for (const ir::IRModule::Member& member : mod.members()) {
      auto func = ir::Cast<ir::PrimFuncNode>(member.func);
      if (func == nullptr) continue;
      ir::PrimFunc updated = ComputeInline(func);
      if (updated != func) out.Update(member.gvar, updated);
    }
    return out;
  }
};

}  // namespace

ir::PrimFunc ComputeInline(const ir::PrimFunc& func, ComputeInlineReport* report) {
  ir::PrimFunc current = func;
  while (true) {
    std::vector<Scope> scopes;
    std::vector<ComputeInlineReport::Refusal> refused;
    std::optional<Producer> producer = FindProducer(*current, &scopes, &refused);
    if (!producer) {
      if (report != nullptr) report->refused = std::move(refused);
      return current;
    }
    if (report != nullptr) report->inlined.push_back(producer->block->name_hint());
    Stmt body = Inliner(*producer).VisitStmt(current->body());
    PS_CHECK(body != current->body()) << "inlining " << producer->block->name_hint();
    current = WithBody(*current, std::move(body));
  }
}

PassInfo ComputeInlinePassInfo() {
  return {"tir-compute-inline",
          "inline every producer block of an intermediate TIR buffer into its consumers "
          "(TVM's compute_inline, to a fixed point; reductions stay)",
          {},
          [](const PassOptions&) { return std::make_unique<ComputeInlinePass>(); }};
}

}  // namespace pipesplit::transform
