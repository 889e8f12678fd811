// The operator table.
//
// Every Relax operator pipesplit knows is registered here once, with its TVMScript call
// signature (which arguments are Relax arguments and which are attributes, with defaults),
// its purity, and its struct-info inference rule. Ops not in the table are still accepted:
// GetOp returns an opaque op (info() == nullptr) whose calls keep their args and attrs and
// need a binding annotation to be typed.
#ifndef PIPESPLIT_IR_OP_H_
#define PIPESPLIT_IR_OP_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipesplit/ir/attrs.h"
#include "pipesplit/ir/expr.h"

namespace pipesplit::ir {

// One parameter of an op's TVMScript signature, e.g. R.sum(x, axis=None, keepdims=False).
struct OpParam {
  enum class Kind : uint8_t {
    kArg,        // a Relax argument (Call::args)
    kVariadic,   // the remaining positional Relax arguments (R.call_packed("f", *args))
    kAttr,       // an attribute (Call::attrs)
    kSInfoArgs,  // sinfo_args= / out_sinfo= (classic) — ty_args= / out_ty= (current)
  };
  std::string name;
  Kind kind = Kind::kArg;
  // Default value of an optional attribute, or of an optional argument (absent = required).
  // An optional Relax argument defaults either to None (left out of Call::args when not
  // written, e.g. call_tir's tir_vars) or to a Relax expression stored in the AttrValue
  // (inserted when not written, e.g. R.print's format R.str("")).
  std::optional<AttrValue> default_value;
  // For a Relax argument (kArg, kVariadic): its position in Call::args when that differs from
  // its place in the signature (R.print(*values, format) stores `format` as args[0]). Relax
  // arguments without one fill the remaining positions in signature order. -1: none.
  int arg_index = -1;
  // A dtype attribute TVM declares Optional<DLDataType> since its 2026 Type change: unset
  // ("void") prints as None in the current syntax (R.matmul(a, b, out_dtype=None)).
  bool optional_dtype = false;
};

// Raised by inference rules on ill-typed calls; the caller turns it into a located
// diagnostic at the call.
struct InferError {
  std::string message;
};

// Infers the struct info of a call whose args are already normalized (have struct info).
// Throws InferError when the call is ill-typed.
using InferStructInfoFn = std::function<StructInfo(const CallNode& call)>;

struct OpInfo {
  std::string name;             // "relax.add"
  std::vector<OpParam> params;  // TVMScript signature, in order
  bool is_pure = true;
  InferStructInfoFn infer;  // null: calls need an annotation
  std::string summary;      // one line, for docs
  // Attribute names in the declaration order of TVM's attrs struct, which is the order TVM
  // prints them in, when it differs from the order of the kAttr params in `params`.
  std::vector<std::string> attr_order = {};
  // Optional: derives attributes as TVM's op constructor does, from other attributes (conv2d's
  // out_layout defaults to its data_layout, a padding [p] applies to every side) or from the
  // Relax arguments (R.arange's dtype). Called by CompleteAttrs on the attrs in declaration
  // order with defaults filled in; `args` may be empty when the caller has none.
  std::function<AttrMap(AttrMap attrs, const std::vector<Expr>& args)> complete_attrs = {};
};

// Registers an op (name must be new). Registration happens in the table's initializer
// (op_registry.cc and the per-family files it calls), before any lookup.
void RegisterOp(OpInfo info);

// The registry entry for `name` ("relax.add"), or nullptr.
const OpInfo* FindOpInfo(std::string_view name);

// The interned op node for `name` (opaque when unregistered). Thread-safe.
Op GetOp(std::string_view name);

// The script spelling of the op named `name`: "relax.X" is written "R.X"; any other name is
// written as it is. OpNode::script_name() holds it for every interned op.
std::string OpScriptName(std::string_view name);

// Every registered op, sorted by name.
std::vector<const OpInfo*> ListOps();

// The param of `info` named `name`, or nullptr.
const OpParam* FindParam(const OpInfo& info, std::string_view name);

// The attribute params of `info` in TVM's declaration (printing) order.
std::vector<const OpParam*> AttrParams(const OpInfo& info);

// Written attrs reordered as TVM prints them (declaration order). Keys the op does not declare
// keep their written order, after the declared ones.
AttrMap OrderAttrs(const OpInfo& info, const AttrMap& attrs);

// The attrs TVM stores for a call written with `attrs` (and `args`, when known): every declared
// attribute in declaration order, unwritten ones set to their defaults (as are string-valued ones
// written as None, e.g. out_dtype=None), then completed by OpInfo::complete_attrs. Required
// attributes that were not written stay absent; undeclared keys are kept at the end.
AttrMap CompleteAttrs(const OpInfo& info, const AttrMap& attrs, const std::vector<Expr>& args = {});

// The value of attribute `name` of a call: the written one, else (registered ops) the completed
// default as CompleteAttrs gives it; nullopt when there is neither.
std::optional<AttrValue> GetAttrOrDefault(const CallNode& call, std::string_view name);

}  // namespace pipesplit::ir

#endif  // PIPESPLIT_IR_OP_H_
