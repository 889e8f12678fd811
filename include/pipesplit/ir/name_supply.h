// Fresh, unique names: "lv", "lv1", "lv2", ... (TVM's NameSupply). Amortized O(1) per name.
#ifndef PIPESPLIT_IR_NAME_SUPPLY_H_
#define PIPESPLIT_IR_NAME_SUPPLY_H_

#include <string>
#include <string_view>
#include <unordered_map>

namespace pipesplit::ir {

class NameSupply {
 public:
  // Returns `hint` if unused, else hint + the smallest counter making it unused; records it.
  std::string FreshName(std::string_view hint);
  // Marks a name as used (e.g. names that came from source text).
  void Reserve(std::string_view name);
  bool Contains(std::string_view name) const;

 private:
  std::unordered_map<std::string, int> next_suffix_;  // base name -> next counter to try
};

}  // namespace pipesplit::ir

#endif  // PIPESPLIT_IR_NAME_SUPPLY_H_
