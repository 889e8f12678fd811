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
    kArg,         // a Relax argument (Call::args)
    kVariadic,    // the remaining positional Relax arguments (R.call_packed("f", *args))
    kAttr,        // an attribute (Call::attrs)
    kSInfoArgs,   // sinfo_args= / out_sinfo= (classic) — ty_args= / out_ty= (current)
  };
  std::string name;
  Kind kind = Kind::kArg;
  // Default value of an optional attribute, or of an optional argument (absent = required).
  std::optional<AttrValue> default_value;
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
  std::string name;              // "relax.add"
  std::vector<OpParam> params;   // TVMScript signature, in order
  bool is_pure = true;
  InferStructInfoFn infer;       // null: calls need an annotation
  std::string summary;           // one line, for docs
};

// Registers an op (name must be new). Registration happens in the table's initializer
// (op_registry.cc and the per-family files it calls), before any lookup.
void RegisterOp(OpInfo info);

// The registry entry for `name` ("relax.add"), or nullptr.
const OpInfo* FindOpInfo(std::string_view name);

// The interned op node for `name` (opaque when unregistered). Thread-safe.
Op GetOp(std::string_view name);

// Every registered op, sorted by name.
std::vector<const OpInfo*> ListOps();

}  // namespace pipesplit::ir

#endif  // PIPESPLIT_IR_OP_H_
