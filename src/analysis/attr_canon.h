// Canonical views of attribute maps for structural equality and hashing: entries sorted by key
// (so dict order never matters), and for calls of registered ops the attrs TVM would store
// (ir::CompleteAttrs: declared defaults filled in and derived attributes completed, so `R.sum(x)`
// equals `R.sum(x, axis=None, keepdims=False)`).
#ifndef PIPESPLIT_SRC_ANALYSIS_ATTR_CANON_H_
#define PIPESPLIT_SRC_ANALYSIS_ATTR_CANON_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include "pipesplit/ir/attrs.h"
#include "pipesplit/ir/expr.h"

namespace pipesplit::analysis {

struct AttrEntry {
  std::string_view key;
  const ir::AttrValue* value;  // points into the viewed map, or into `owned` below
};

// Sorted entries; `owned` keeps a completed attribute map alive when the view points into it.
struct CanonicalAttrs {
  std::vector<AttrEntry> entries;
  std::shared_ptr<const ir::AttrMap> owned;

  size_t size() const { return entries.size(); }
  const AttrEntry& operator[](size_t i) const { return entries[i]; }
  auto begin() const { return entries.begin(); }
  auto end() const { return entries.end(); }
};

// The entries of `attrs`, sorted by key.
CanonicalAttrs CanonicalizeAttrs(const ir::AttrMap& attrs);

// The attrs of `call`, sorted by key; completed as TVM stores them when the op is registered.
CanonicalAttrs CanonicalizeCallAttrs(const ir::CallNode& call);

// The parameters of a lambda attribute (the parser's AttrCall{"lambda", [[params...], body]}, as in
// T.index_map(lambda i, j: (j, i))): symbolic vars bound by the lambda, scoped to its body.
// nullopt when `call` is not such a lambda.
std::optional<std::vector<const ir::TirVarNode*>> LambdaParams(const ir::AttrCall& call);

// The number an op attribute holds, as TVM's typed attribute fields store it: `axis=0`,
// `scale=0.0` and an int64 immediate 0 are the same value there. Integral doubles are reported as
// integers, so equal numbers give equal keys. nullopt for non-numbers (bools included).
using NumberKey = std::variant<int64_t, double>;
std::optional<NumberKey> OpAttrNumber(const ir::AttrValue& value);
bool SameNumber(const NumberKey& a, const NumberKey& b);  // NaN equals NaN
uint64_t HashNumber(const NumberKey& key);

}  // namespace pipesplit::analysis

#endif  // PIPESPLIT_SRC_ANALYSIS_ATTR_CANON_H_
