// The canonical form of shape arithmetic: a small polynomial normal form (sums of integer
// multiples of products of atoms), used to canonicalize shape expressions and to decide whether
// two dims differ by a constant.
#include <algorithm>
#include <map>
#include <sstream>

#include "pipesplit/ir/arith.h"
#include "pipesplit/ir/prim_text.h"

namespace pipesplit::ir {
namespace {

constexpr size_t kMaxTerms = 64;

// A monomial: the sorted ids of its atoms (with repetition). The empty monomial is the
// constant term.
using Monomial = std::vector<int>;
using Poly = std::map<Monomial, int64_t>;

bool Checked(__int128 v, int64_t* out) {
  if (v > INT64_MAX || v < INT64_MIN) return false;
  *out = static_cast<int64_t>(v);
  return true;
}

PrimExpr OpaqueNormalized(const PrimExpr& e, int depth);

// Atoms (vars, and subexpressions the normal form does not look into) numbered in order of
// first appearance: vars by identity, other expressions by structure.
class PolyContext {
 public:
  std::optional<Poly> ToPoly(const PrimExpr& e, int depth = 0);
  const PrimExpr& atom(int id) const { return atoms_[id]; }
  bool IsVar(int id) const { return atoms_[id]->kind() == NodeKind::kTirVar; }

 private:
  Poly Atom(const PrimExpr& expr) {
    // Under a widening cast, the atom carries the cast (cast(int64, n * 2) is cast(int64, n) * 2).
    const PrimExpr e = cast_to_ && expr->dtype() != *cast_to_ ? CastTo(expr, *cast_to_) : expr;
    std::string key = ToString(e, [](const TirVarNode& v) {
      std::ostringstream os;
      os << v.name() << "@" << static_cast<const void*>(&v);
      return os.str();
    });
    auto [it, inserted] = ids_.emplace(key, static_cast<int>(atoms_.size()));
    if (inserted) atoms_.push_back(e);
    return Poly{{Monomial{it->second}, 1}};
  }
  std::map<std::string, int> ids_;
  std::vector<PrimExpr> atoms_;
  std::optional<DataType> cast_to_;  // inside a widening integer cast to this type
};

std::optional<Poly> AddPoly(Poly a, const Poly& b, int sign) {
  for (const auto& [mono, coeff] : b) {
    int64_t sum;
    if (!Checked(static_cast<__int128>(a[mono]) + static_cast<__int128>(sign) * coeff, &sum)) {
      return std::nullopt;
    }
    if (sum == 0) {
      a.erase(mono);
    } else {
      a[mono] = sum;
    }
  }
  if (a.size() > kMaxTerms) return std::nullopt;
  return a;
}

std::optional<Poly> MulPoly(const Poly& a, const Poly& b) {
  Poly out;
  for (const auto& [ma, ca] : a) {
    for (const auto& [mb, cb] : b) {
      Monomial m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      std::sort(m.begin(), m.end());
      int64_t prod, sum;
      if (!Checked(static_cast<__int128>(ca) * cb, &prod)) return std::nullopt;
      if (!Checked(static_cast<__int128>(out[m]) + prod, &sum)) return std::nullopt;
      if (sum == 0) {
        out.erase(m);
      } else {
        out[m] = sum;
      }
      if (out.size() > kMaxTerms) return std::nullopt;
    }
  }
  return out;
}

std::optional<Poly> PolyContext::ToPoly(const PrimExpr& e, int depth) {
  if (depth > 64) return std::nullopt;
  if (auto c = AsConstInt(e)) {
    if (!e->dtype().is_integer()) return std::nullopt;
    Poly p;
    if (*c != 0) p[Monomial{}] = *c;
    return p;
  }
  if (e->kind() == NodeKind::kTirVar) return Atom(e);
  if (const auto* bin = As<BinaryNode>(e)) {
    switch (bin->op()) {
      case BinaryOp::kAdd:
      case BinaryOp::kSub: {
        auto a = ToPoly(bin->a(), depth + 1);
        auto b = ToPoly(bin->b(), depth + 1);
        if (!a || !b) return std::nullopt;
        return AddPoly(std::move(*a), *b, bin->op() == BinaryOp::kAdd ? 1 : -1);
      }
      case BinaryOp::kMul: {
        auto a = ToPoly(bin->a(), depth + 1);
        auto b = ToPoly(bin->b(), depth + 1);
        if (!a || !b) return std::nullopt;
        return MulPoly(*a, *b);
      }
      case BinaryOp::kFloorDiv: {
        // (d * k + r) // d == k + r // d when every non-constant coefficient is a multiple of
        // the positive constant d.
        auto d = AsConstInt(bin->b());
        auto a = ToPoly(bin->a(), depth + 1);
        if (d && *d > 0 && a) {
          bool exact = true;
          for (const auto& [mono, coeff] : *a) exact &= mono.empty() || coeff % *d == 0;
          if (exact) {
            Poly q;
            for (const auto& [mono, coeff] : *a) {
              int64_t v =
                  mono.empty() ? (coeff >= 0 ? coeff / *d : -((-coeff + *d - 1) / *d)) : coeff / *d;
              if (v != 0) q[mono] = v;
            }
            return q;
          }
        }
        return Atom(OpaqueNormalized(e, depth + 1));
      }
      default:
        return Atom(OpaqueNormalized(e, depth + 1));
    }
  }
  if (const auto* cast = As<CastNode>(e)) {
    // A widening integer cast distributes over +, - and * when the narrow computation does not
    // overflow, which shape arithmetic assumes as TVM's simplifier does; a narrowing cast wraps,
    // so it stays an atom.
    const DataType from = cast->value()->dtype();
    if (cast->dtype().is_integer() && from.is_integer() && cast->dtype().bits() >= from.bits()) {
      std::optional<DataType> outer = cast_to_;
      cast_to_ = cast->dtype();
      std::optional<Poly> p = ToPoly(cast->value(), depth + 1);
      cast_to_ = outer;
      return p;
    }
    return Atom(OpaqueNormalized(e, depth + 1));
  }
  return Atom(e);
}

// Rebuilds a polynomial as TVM's canonical simplifier prints sums: the positive terms (by first
// atom), then a positive constant, then the negative terms, then a negative constant; each
// term as atom * atom * coefficient.
PrimExpr Rebuild(const PolyContext& ctx, const Poly& p) {
  std::vector<std::pair<Monomial, int64_t>> terms;
  int64_t constant = 0;
  for (const auto& [mono, coeff] : p) {
    if (mono.empty()) {
      constant = coeff;
    } else {
      terms.emplace_back(mono, coeff);
    }
  }
  auto term_expr = [&](const Monomial& mono, int64_t magnitude) {
    PrimExpr term;
    for (int id : mono) term = term ? MakeBinary(BinaryOp::kMul, term, ctx.atom(id)) : ctx.atom(id);
    return magnitude == 1 ? term : MakeBinary(BinaryOp::kMul, term, Int64(magnitude));
  };
  if (terms.empty()) return Int64(constant);
  PrimExpr out;
  auto add = [&](const PrimExpr& e) { out = out ? MakeBinary(BinaryOp::kAdd, out, e) : e; };
  auto sub = [&](const PrimExpr& e) { out = MakeBinary(BinaryOp::kSub, out ? out : Int64(0), e); };
  for (const auto& [mono, coeff] : terms) {
    if (coeff > 0) add(term_expr(mono, coeff));
  }
  if (constant > 0) add(Int64(constant));
  for (const auto& [mono, coeff] : terms) {
    if (coeff < 0) sub(term_expr(mono, -coeff));
  }
  if (constant < 0) sub(Int64(-constant));
  return out ? out : Int64(0);
}

PrimExpr NormalizeDeep(const PrimExpr& e, int depth) {
  if (depth > 64 || !e->dtype().is_integer()) return Simplify(e);
  PolyContext ctx;
  auto p = ctx.ToPoly(e, depth);
  if (!p) return Simplify(e);
  return Rebuild(ctx, *p);
}

// A subexpression the normal form treats as an atom, with its operands normalized.
PrimExpr OpaqueNormalized(const PrimExpr& e, int depth) {
  if (const auto* bin = As<BinaryNode>(e)) {
    PrimExpr a = NormalizeDeep(bin->a(), depth + 1);
    PrimExpr b = NormalizeDeep(bin->b(), depth + 1);
    if (a != bin->a() || b != bin->b()) {
      return Simplify(Make<BinaryNode>(bin->op(), a, b, bin->dtype()));
    }
  }
  return Simplify(e);
}

}  // namespace

std::optional<int64_t> ConstDifference(const PrimExpr& a, const PrimExpr& b) {
  if (a == b) return 0;
  PolyContext ctx;
  auto pa = ctx.ToPoly(a);
  auto pb = ctx.ToPoly(b);
  if (!pa || !pb) return std::nullopt;
  auto diff = AddPoly(std::move(*pa), *pb, -1);
  if (!diff) return std::nullopt;
  if (diff->empty()) return 0;
  if (diff->size() == 1 && diff->begin()->first.empty()) return diff->begin()->second;
  return std::nullopt;
}

bool KnownNonNegative(const PrimExpr& e) {
  if (auto c = AsConstInt(e)) return *c >= 0;
  PolyContext ctx;
  auto p = ctx.ToPoly(e);
  if (!p) return false;
  for (const auto& [mono, coeff] : *p) {
    if (coeff < 0) return false;
    // Only symbolic vars count as non-negative atoms.
    for (int id : mono) {
      if (!ctx.IsVar(id)) return false;
    }
  }
  return true;
}

PrimExpr NormalizeArith(const PrimExpr& e) { return NormalizeDeep(e, 0); }

PrimExpr CanonicalSimplify(const PrimExpr& e) { return NormalizeArith(e); }

}  // namespace pipesplit::ir
