// The op table: registration, lookup and interning of op nodes, and the attribute helpers
// built on the signatures (declaration order, defaults).
#include <algorithm>
#include <map>
#include <mutex>
#include <unordered_map>

#include "pipesplit/ir/op.h"
#include "pipesplit/support/check.h"
#include "src/ir/op/op_families.h"

namespace pipesplit::ir {
namespace {

struct Registry {
  std::map<std::string, OpInfo, std::less<>> infos;
  std::mutex mu;  // guards `ops`
  std::unordered_map<std::string, Op> ops;
  bool initialized = false;
};

Registry& RawRegistry() {
  static Registry* registry = new Registry();  // never destroyed: ops outlive static teardown
  return *registry;
}

Registry& GetRegistry() {
  static std::once_flag once;
  std::call_once(once, [] {
    RegisterBuiltinOps();
    RegisterTensorOps();
    RawRegistry().initialized = true;
  });
  return RawRegistry();
}

}  // namespace

void RegisterOp(OpInfo info) {
  Registry& r = RawRegistry();
  PS_CHECK(!r.initialized) << "op registered after the table was frozen: " << info.name;
  for (const std::string& attr : info.attr_order) {
    const OpParam* param = FindParam(info, attr);
    PS_CHECK(param != nullptr && param->kind == OpParam::Kind::kAttr)
        << info.name << ": attr_order names an unknown attribute " << attr;
  }
  std::string name = info.name;
  bool inserted = r.infos.emplace(name, std::move(info)).second;
  PS_CHECK(inserted) << "op registered twice: " << name;
}

const OpInfo* FindOpInfo(std::string_view name) {
  Registry& r = GetRegistry();
  auto it = r.infos.find(name);
  return it == r.infos.end() ? nullptr : &it->second;
}

Op GetOp(std::string_view name) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.ops.find(std::string(name));
  if (it != r.ops.end()) return it->second;
  auto info_it = r.infos.find(name);
  const OpInfo* info = info_it == r.infos.end() ? nullptr : &info_it->second;
  Op op = Make<OpNode>(std::string(name), info, OpScriptName(name));
  r.ops.emplace(std::string(name), op);
  return op;
}

std::string OpScriptName(std::string_view name) {
  constexpr std::string_view kRelaxPrefix = "relax.";
  if (!name.starts_with(kRelaxPrefix)) return std::string(name);
  return "R." + std::string(name.substr(kRelaxPrefix.size()));
}

std::vector<const OpInfo*> ListOps() {
  Registry& r = GetRegistry();
  std::vector<const OpInfo*> out;
  for (const auto& [name, info] : r.infos) out.push_back(&info);
  return out;
}

const OpParam* FindParam(const OpInfo& info, std::string_view name) {
  for (const OpParam& p : info.params) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::vector<const OpParam*> AttrParams(const OpInfo& info) {
  std::vector<const OpParam*> out;
  for (const std::string& name : info.attr_order) out.push_back(FindParam(info, name));
  for (const OpParam& p : info.params) {
    if (p.kind != OpParam::Kind::kAttr) continue;
    if (std::find(out.begin(), out.end(), &p) == out.end()) out.push_back(&p);
  }
  return out;
}

AttrMap OrderAttrs(const OpInfo& info, const AttrMap& attrs) {
  AttrMap out;
  out.reserve(attrs.size());
  for (const OpParam* p : AttrParams(info)) {
    if (const AttrValue* v = FindAttr(attrs, p->name)) out.emplace_back(p->name, *v);
  }
  for (const auto& [key, value] : attrs) {
    const OpParam* p = FindParam(info, key);
    if (p == nullptr || p->kind != OpParam::Kind::kAttr) out.emplace_back(key, value);
  }
  return out;
}

namespace {

// A written value converted to the type of the attribute's default, as TVM's typed attribute
// fields convert Python values: an int where a float is declared (extrapolation_value=0 is 0.0),
// numbers in a list of float immediates (resize2d's roi=[0.0, ...] holds float32 immediates).
AttrValue ToDefaultType(const AttrValue& written, const AttrValue& default_value) {
  if (default_value.as_float() != nullptr) {
    if (const int64_t* i = written.as_int()) return static_cast<double>(*i);
    return written;
  }
  const AttrList* defaults = default_value.as_list();
  const AttrList* items = written.as_list();
  if (defaults == nullptr || defaults->empty() || items == nullptr) return written;
  const PrimExpr* first = (*defaults)[0].as_prim_expr();
  if (first == nullptr || (*first)->kind() != NodeKind::kFloatImm) return written;
  DataType dtype = (*first)->dtype();
  AttrList out;
  out.reserve(items->size());
  for (const AttrValue& item : *items) {
    if (const double* f = item.as_float()) {
      out.emplace_back(FloatImm(*f, dtype));
    } else if (const int64_t* i = item.as_int()) {
      out.emplace_back(FloatImm(static_cast<double>(*i), dtype));
    } else {
      return written;  // not a list of numbers: kept as written
    }
  }
  return out;
}

}  // namespace

AttrMap CompleteAttrs(const OpInfo& info, const AttrMap& attrs, const std::vector<Expr>& args) {
  AttrMap out;
  for (const OpParam* p : AttrParams(info)) {
    const AttrValue* written = FindAttr(attrs, p->name);
    // An explicit None for a string-valued attribute (a dtype such as out_dtype, a layout)
    // takes the default, as TVM's constructors do with `value_or`; elsewhere None is a value
    // of its own (R.concat(..., axis=None) flattens).
    bool none_means_default = written != nullptr && written->is_none() && p->default_value &&
                              p->default_value->as_string() != nullptr;
    if (written != nullptr && !none_means_default) {
      out.emplace_back(p->name,
                       p->default_value ? ToDefaultType(*written, *p->default_value) : *written);
    } else if (p->default_value) {
      out.emplace_back(p->name, *p->default_value);
    }
  }
  if (info.complete_attrs) out = info.complete_attrs(std::move(out), args);
  for (const auto& [key, value] : attrs) {
    const OpParam* p = FindParam(info, key);
    if (p == nullptr || p->kind != OpParam::Kind::kAttr) out.emplace_back(key, value);
  }
  return out;
}

std::optional<AttrValue> GetAttrOrDefault(const CallNode& call, std::string_view name) {
  const OpNode* op = call.op_node();
  if (op == nullptr || op->info() == nullptr) {
    if (const AttrValue* v = FindAttr(call.attrs(), name)) return *v;
    return std::nullopt;
  }
  AttrMap complete = CompleteAttrs(*op->info(), call.attrs(), call.args());
  if (const AttrValue* v = FindAttr(complete, name)) return *v;
  return std::nullopt;
}

}  // namespace pipesplit::ir
