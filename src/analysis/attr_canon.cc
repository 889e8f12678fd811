// Canonical (sorted, defaults filled) attribute views.
#include "src/analysis/attr_canon.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "pipesplit/ir/op.h"

namespace pipesplit::analysis {
namespace {

void SortByKey(std::vector<AttrEntry>* entries) {
  std::sort(entries->begin(), entries->end(),
            [](const AttrEntry& a, const AttrEntry& b) { return a.key < b.key; });
}

}  // namespace

CanonicalAttrs CanonicalizeAttrs(const ir::AttrMap& attrs) {
  CanonicalAttrs out;
  out.entries.reserve(attrs.size());
  for (const auto& [key, value] : attrs) out.entries.push_back({key, &value});
  SortByKey(&out.entries);
  return out;
}

CanonicalAttrs CanonicalizeCallAttrs(const ir::CallNode& call) {
  const ir::OpNode* op = call.op_node();
  if (op == nullptr || op->info() == nullptr) return CanonicalizeAttrs(call.attrs());
  // Fast path: nothing written and nothing declared, so nothing to complete.
  if (call.attrs().empty() && !op->info()->complete_attrs &&
      std::none_of(op->info()->params.begin(), op->info()->params.end(),
                   [](const ir::OpParam& p) { return p.kind == ir::OpParam::Kind::kAttr; })) {
    return {};
  }
  auto completed = std::make_shared<const ir::AttrMap>(
      ir::CompleteAttrs(*op->info(), call.attrs(), call.args()));
  CanonicalAttrs out = CanonicalizeAttrs(*completed);
  out.owned = std::move(completed);
  return out;
}

std::optional<NumberKey> OpAttrNumber(const ir::AttrValue& value) {
  if (const int64_t* i = value.as_int()) return NumberKey(*i);
  if (const ir::PrimExpr* e = value.as_prim_expr()) {
    if ((*e)->kind() == ir::NodeKind::kIntImm && (*e)->dtype() == DataType::Int(64)) {
      return NumberKey(static_cast<const ir::IntImmNode&>(**e).value());
    }
    return std::nullopt;
  }
  const double* d = value.as_float();
  if (d == nullptr) return std::nullopt;
  // Integral doubles well inside the int64 range compare as integers.
  if (std::isfinite(*d) && std::trunc(*d) == *d && std::fabs(*d) < 9.0e18) {
    return NumberKey(static_cast<int64_t>(*d));
  }
  if (std::isnan(*d)) return NumberKey(std::numeric_limits<double>::quiet_NaN());
  return NumberKey(*d == 0 ? 0.0 : *d);
}

std::optional<std::vector<const ir::TirVarNode*>> LambdaParams(const ir::AttrCall& call) {
  if (call.callee != "lambda" || call.args.size() != 2) return std::nullopt;
  const ir::AttrList* params = call.args[0].as_list();
  if (params == nullptr) return std::nullopt;
  std::vector<const ir::TirVarNode*> out;
  for (const ir::AttrValue& p : *params) {
    const ir::PrimExpr* e = p.as_prim_expr();
    if (e == nullptr || (*e)->kind() != ir::NodeKind::kTirVar) return std::nullopt;
    out.push_back(static_cast<const ir::TirVarNode*>(e->get()));
  }
  return out;
}

bool SameNumber(const NumberKey& a, const NumberKey& b) {
  if (a.index() != b.index()) return false;
  if (const double* x = std::get_if<double>(&a)) {
    double y = std::get<double>(b);
    return *x == y || (std::isnan(*x) && std::isnan(y));
  }
  return a == b;
}

uint64_t HashNumber(const NumberKey& key) {
  if (const int64_t* i = std::get_if<int64_t>(&key)) return static_cast<uint64_t>(*i);
  double d = std::get<double>(key);
  return std::isnan(d) ? 0x7ff8000000000000ULL : std::bit_cast<uint64_t>(d) ^ 0x5555555555555555ULL;
}

}  // namespace pipesplit::analysis
