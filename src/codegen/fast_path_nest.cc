// Loop nests for the fast path's match (fast_path_nest.h).
#include "src/codegen/fast_path_nest.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

#include "pipesplit/ir/arith.h"

namespace pipesplit::codegen::detail {
namespace {

using Terms = std::vector<std::pair<const ir::TirVarNode*, int64_t>>;

// `e` * `scale` as (var, coefficient) terms with no constant part: sums of vars times
// constants, nested, e.g. (a * 128 + b) * 8 + c. False for anything else.
bool LinearTerms(const ir::PrimExpr& e, int64_t scale, Terms* out) {
  if (const auto* v = ir::As<ir::TirVarNode>(e)) {
    out->emplace_back(v, scale);
    return true;
  }
  const auto* bin = ir::As<ir::BinaryNode>(e);
  if (bin == nullptr) return false;
  if (bin->op() == ir::BinaryOp::kAdd) {
    return LinearTerms(bin->a(), scale, out) && LinearTerms(bin->b(), scale, out);
  }
  if (bin->op() == ir::BinaryOp::kMul) {
    if (std::optional<int64_t> c = ir::AsConstInt(bin->b()); c && *c > 0) {
      return LinearTerms(bin->a(), scale * *c, out);
    }
    if (std::optional<int64_t> c = ir::AsConstInt(bin->a()); c && *c > 0) {
      return LinearTerms(bin->b(), scale * *c, out);
    }
  }
  return false;
}

// A conjunct of a predicate: sum(terms) < limit (a constant `bound` when it is one).
struct Bound {
  Terms terms;
  ir::PrimExpr limit;
  std::optional<int64_t> bound;
};

// The conjuncts of `pred` as bounds (x < e, and x <= c for a constant c), or false.
bool PredicateBounds(const ir::PrimExpr& pred, std::vector<Bound>* out) {
  const auto* bin = ir::As<ir::BinaryNode>(pred);
  if (bin == nullptr) return false;
  if (bin->op() == ir::BinaryOp::kAnd) {
    return PredicateBounds(bin->a(), out) && PredicateBounds(bin->b(), out);
  }
  if (bin->op() != ir::BinaryOp::kLT && bin->op() != ir::BinaryOp::kLE) return false;
  Bound b;
  if (!LinearTerms(bin->a(), 1, &b.terms)) return false;
  std::optional<int64_t> c = ir::AsConstInt(bin->b());
  if (bin->op() == ir::BinaryOp::kLE && !c) return false;
  b.limit = bin->b();
  if (c) b.bound = bin->op() == ir::BinaryOp::kLT ? *c : *c + 1;
  out->push_back(std::move(b));
  return true;
}

bool SameTerms(Terms a, Terms b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

// Iterations of an iter var enumerated to check its coverage, at most.
constexpr int64_t kMaxEnumerated = int64_t{1} << 22;

}  // namespace

bool CollectNests(const ir::PrimFuncNode& func, KernelNests* out, std::string* why) {
  ir::Stmt body = func.body();
  if (const auto* root = ir::As<ir::BlockRealizeNode>(body);
      root != nullptr && root->block()->iter_vars().empty()) {
    const ir::BlockNode& block = *root->block();
    if (block.init() || !block.match_buffers().empty()) {
      *why = "the root block has an init or matched buffers";
      return false;
    }
    out->allocated.insert(out->allocated.end(), block.alloc_buffers().begin(),
                          block.alloc_buffers().end());
    body = block.body();
  }
  std::vector<ir::Stmt> work{body};
  while (!work.empty()) {
    ir::Stmt s = std::move(work.front());
    work.erase(work.begin());
    if (const auto* seq = ir::As<ir::SeqStmtNode>(s)) {
      work.insert(work.begin(), seq->seq().begin(), seq->seq().end());
      continue;
    }
    if (const auto* alloc = ir::As<ir::AllocBufferNode>(s)) {
      out->allocated.push_back(alloc->buffer());
      work.insert(work.begin(), alloc->body());
      continue;
    }
    NestBlock nest;
    const ir::StmtNode* at = s.get();
    while (const auto* loop = ir::As<ir::ForNode>(at)) {
      nest.loops.push_back(loop);
      at = loop->body().get();
    }
    nest.realize = ir::As<ir::BlockRealizeNode>(at);
    if (nest.realize == nullptr) {
      *why = "a statement that is not a loop nest around one block";
      return false;
    }
    nest.block = nest.realize->block().get();
    out->blocks.push_back(nest);
  }
  return true;
}

bool CoversDomainOnce(const NestBlock& nest, std::string* why) {
  const ir::BlockNode& block = *nest.block;
  const std::string name = "block '" + block.name_hint() + "'";
  auto refuse = [&](const std::string& what) {
    *why = name + what;
    return false;
  };
  if (!block.alloc_buffers().empty() || !block.match_buffers().empty()) {
    return refuse(" allocates or matches buffers");
  }
  std::vector<Bound> bounds;
  if (nest.realize->predicate()) {
    std::optional<int64_t> p = ir::AsConstInt(nest.realize->predicate());
    if (p == 0 || (!p && !PredicateBounds(nest.realize->predicate(), &bounds))) {
      return refuse(" has a predicate other than bounds on its loops");
    }
  }
  std::unordered_map<const ir::TirVarNode*, const ir::ForNode*> loop_of;
  for (const ir::ForNode* loop : nest.loops) {
    if (loop->for_kind() == ir::ForKind::kThreadBinding)
      return refuse(" is under a thread-bound loop");
    if (ir::AsConstInt(loop->min()) != 0) return refuse(": a loop does not start at 0");
    loop_of[loop->loop_var().get()] = loop;
  }
  const auto& iters = block.iter_vars();
  if (nest.realize->iter_values().size() != iters.size())
    return refuse(" has mismatched iter values");
  std::unordered_map<const ir::TirVarNode*, size_t> iter_of_loop;  // the iter var a loop binds
  std::vector<Terms> terms(iters.size());
  for (size_t i = 0; i < iters.size(); ++i) {
    const ir::IterVar& iv = iters[i];
    const std::string var = ": iter var '" + iv.var->name() + "'";
    if (iv.type != ir::IterVarType::kDataPar && iv.type != ir::IterVarType::kCommReduce) {
      return refuse(var + " is neither spatial nor a reduction");
    }
    if (ir::AsConstInt(iv.dom.min) != 0) return refuse(var + " does not start at 0");
    if (!LinearTerms(nest.realize->iter_values()[i], 1, &terms[i])) {
      return refuse(var + " is not bound to a sum of loop vars");
    }
    for (const auto& [v, c] : terms[i]) {
      if (!loop_of.count(v)) return refuse(var + " is bound to a var of no loop");
      if (!iter_of_loop.emplace(v, i).second) {
        return refuse(": loop '" + v->name() + "' is bound to two iter vars");
      }
    }
  }
  for (const ir::ForNode* loop : nest.loops) {
    if (!iter_of_loop.count(loop->loop_var().get()) && ir::AsConstInt(loop->extent()) != 1) {
      return refuse(": loop '" + loop->loop_var()->name() + "' is bound to no iter var");
    }
  }
  // Each bound constrains the loops of one iter var.
  std::vector<std::vector<const Bound*>> bounds_of(iters.size());
  for (const Bound& b : bounds) {
    size_t owner = iters.size();
    for (const auto& [v, c] : b.terms) {
      auto it = iter_of_loop.find(v);
      if (it == iter_of_loop.end() || (owner != iters.size() && owner != it->second)) {
        return refuse("'s predicate ties the loops of several iter vars");
      }
      owner = it->second;
    }
    if (owner == iters.size()) return refuse("'s predicate bounds no loop");
    bounds_of[owner].push_back(&b);
  }
  for (size_t i = 0; i < iters.size(); ++i) {
    const ir::IterVar& iv = iters[i];
    const std::string var = ": the loops of iter var '" + iv.var->name() + "'";
    // One loop bound as it is: its extent may be symbolic.
    if (terms[i].size() == 1 && terms[i][0].second == 1 && bounds_of[i].empty()) {
      const ir::PrimExpr& extent = loop_of[terms[i][0].first]->extent();
      if (ir::ExprDeepEqual(extent, iv.dom.extent) || ir::ProvablyEqual(extent, iv.dom.extent)) {
        continue;
      }
    }
    // A symbolic extent E split as outer * c + inner over ceil(E / c) x c, the predicate
    // cutting it back to E.
    if (terms[i].size() == 2 && bounds_of[i].size() == 1 && !ir::AsConstInt(iv.dom.extent)) {
      Terms t = terms[i];
      std::sort(t.begin(), t.end(),
                [](const auto& x, const auto& y) { return x.second < y.second; });
      const std::optional<int64_t> c = ir::AsConstInt(loop_of[t[0].first]->extent());
      const Bound& b = *bounds_of[i][0];
      if (t[0].second == 1 && c && t[1].second == *c && SameTerms(b.terms, t) && !b.bound &&
          ir::ExprDeepEqual(b.limit, iv.dom.extent) &&
          ir::ProvablyEqual(loop_of[t[1].first]->extent(), ir::CeilDiv(iv.dom.extent, *c))) {
        continue;
      }
    }
    // Otherwise every point of the loops is enumerated: the iter var must take each value of
    // [0, extent) once among the points the predicate keeps.
    std::optional<int64_t> extent = ir::AsConstInt(iv.dom.extent);
    std::vector<int64_t> sizes;
    int64_t points = 1;
    for (const auto& [v, c] : terms[i]) {
      std::optional<int64_t> n = ir::AsConstInt(loop_of[v]->extent());
      if (!n || *n <= 0) return refuse(var + " have a symbolic extent");
      sizes.push_back(*n);
      points *= *n;
      if (points > kMaxEnumerated) return refuse(var + " are too many to check");
    }
    if (!extent || *extent <= 0 || *extent > kMaxEnumerated) {
      return refuse(var + " do not cover a constant extent");
    }
    std::vector<uint8_t> hits(static_cast<size_t>(*extent), 0);
    std::unordered_map<const ir::TirVarNode*, int64_t> value;
    std::vector<int64_t> digit(sizes.size(), 0);
    for (int64_t point = 0; point < points; ++point) {
      for (size_t t = 0; t < sizes.size(); ++t) value[terms[i][t].first] = digit[t];
      bool kept = true;
      for (const Bound* b : bounds_of[i]) {
        if (!b->bound) return refuse(var + " are cut by a symbolic bound");
        int64_t sum = 0;
        for (const auto& [v, c] : b->terms) sum += c * value[v];
        kept = kept && sum < *b->bound;
      }
      if (kept) {
        int64_t v = 0;
        for (const auto& [loop, c] : terms[i]) v += c * value[loop];
        if (v < 0 || v >= *extent || hits[static_cast<size_t>(v)]++ != 0) {
          return refuse(var + " do not cover its extent once");
        }
      }
      for (size_t t = 0; t < sizes.size() && ++digit[t] == sizes[t]; ++t) digit[t] = 0;
    }
    if (std::count(hits.begin(), hits.end(), 1) != *extent) {
      return refuse(var + " do not cover its extent once");
    }
  }
  return true;
}

}  // namespace pipesplit::codegen::detail
