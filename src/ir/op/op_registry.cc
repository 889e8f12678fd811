// The op table: registration, lookup and interning of op nodes.
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
  Op op = std::make_shared<const OpNode>(std::string(name), info);
  r.ops.emplace(std::string(name), op);
  return op;
}

std::vector<const OpInfo*> ListOps() {
  Registry& r = GetRegistry();
  std::vector<const OpInfo*> out;
  for (const auto& [name, info] : r.infos) out.push_back(&info);
  return out;
}

}  // namespace pipesplit::ir
