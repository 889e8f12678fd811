// Attribute values: the values of op attributes (`axis=-1`, `out_dtype="void"`), function
// attributes (R.func_attr({...})), module attributes and global infos. A small Python-like
// value tree: None, bool, int, float, string, PrimExpr, Relax expression, list, dict
// (ordered), and a call such as I.vdevice({...}, 0, "global").
#ifndef PIPESPLIT_IR_ATTRS_H_
#define PIPESPLIT_IR_ATTRS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "pipesplit/ir/prim_expr.h"

namespace pipesplit::ir {

class ExprNode;
class AttrValue;
using AttrList = std::vector<AttrValue>;
// Ordered key/value pairs; keys are unique.
using AttrMap = std::vector<std::pair<std::string, AttrValue>>;
struct AttrCall;

class AttrValue {
 public:
  struct None {
    friend bool operator==(None, None) { return true; }
  };
  using Variant = std::variant<None, bool, int64_t, double, std::string, PrimExpr, Ptr<ExprNode>,
                               std::shared_ptr<const AttrList>, std::shared_ptr<const AttrMap>,
                               std::shared_ptr<const AttrCall>>;

  AttrValue() : value_(None{}) {}
  AttrValue(bool b) : value_(b) {}                       // NOLINT
  AttrValue(int v) : value_(static_cast<int64_t>(v)) {}  // NOLINT
  AttrValue(int64_t v) : value_(v) {}                    // NOLINT
  AttrValue(double v) : value_(v) {}                     // NOLINT
  AttrValue(std::string s) : value_(std::move(s)) {}     // NOLINT
  AttrValue(const char* s) : value_(std::string(s)) {}   // NOLINT
  AttrValue(PrimExpr e) : value_(std::move(e)) {}        // NOLINT
  AttrValue(Ptr<ExprNode> e) : value_(std::move(e)) {}   // NOLINT
  AttrValue(AttrList list)                               // NOLINT
      : value_(std::make_shared<const AttrList>(std::move(list))) {}
  AttrValue(AttrMap map)  // NOLINT
      : value_(std::make_shared<const AttrMap>(std::move(map))) {}
  AttrValue(AttrCall call);  // NOLINT

  const Variant& value() const { return value_; }
  bool is_none() const { return std::holds_alternative<None>(value_); }
  const bool* as_bool() const { return std::get_if<bool>(&value_); }
  const int64_t* as_int() const { return std::get_if<int64_t>(&value_); }
  const double* as_float() const { return std::get_if<double>(&value_); }
  const std::string* as_string() const { return std::get_if<std::string>(&value_); }
  const PrimExpr* as_prim_expr() const { return std::get_if<PrimExpr>(&value_); }
  const Ptr<ExprNode>* as_expr() const { return std::get_if<Ptr<ExprNode>>(&value_); }
  const AttrList* as_list() const;
  const AttrMap* as_map() const;
  const AttrCall* as_call() const;

  // An integer value, whether stored as int64 or as an integer PrimExpr immediate.
  std::optional<int64_t> ToInt() const;

 private:
  Variant value_;
};

// A call-shaped attribute value: callee (as written, e.g. "I.vdevice"), positional args and
// keyword args.
struct AttrCall {
  std::string callee;
  AttrList args;
  AttrMap kwargs;
};

inline AttrValue::AttrValue(AttrCall call)
    : value_(std::make_shared<const AttrCall>(std::move(call))) {}

// Looks a key up in an AttrMap; nullptr when absent.
const AttrValue* FindAttr(const AttrMap& map, std::string_view key);
// Returns a copy of `map` with `key` set (replaced in place, or appended).
AttrMap WithAttr(AttrMap map, std::string key, AttrValue value);
// Returns a copy of `map` without `key`.
AttrMap WithoutAttr(AttrMap map, std::string_view key);

}  // namespace pipesplit::ir

#endif  // PIPESPLIT_IR_ATTRS_H_
