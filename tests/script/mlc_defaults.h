// The one difference allowed between an MLC-LLM dump (May 2023) and its reprint: attributes
// TVM added to its ops after the dumps were taken, which the parser completes with their
// defaults as TVM's op constructors do, so the reprint shows them.
#ifndef PIPESPLIT_TESTS_SCRIPT_MLC_DEFAULTS_H_
#define PIPESPLIT_TESTS_SCRIPT_MLC_DEFAULTS_H_

#include <string>
#include <vector>

namespace pipesplit::script::testing {

// Each as printed after the attributes before it.
inline const std::vector<std::string>& Post2023Defaults() {
  static const std::vector<std::string> kDefaults = {
      ", mode=\"fast\"",  // R.take: how out-of-range indices behave
  };
  return kDefaults;
}

// `printed` without the attributes of Post2023Defaults (the dumps never spell them);
// *removed, when given, counts them.
inline std::string WithoutPost2023Defaults(std::string printed, int* removed = nullptr) {
  for (const std::string& attr : Post2023Defaults()) {
    for (size_t at = printed.find(attr); at != std::string::npos; at = printed.find(attr, at)) {
      printed.erase(at, attr.size());
      if (removed != nullptr) ++*removed;
    }
  }
  return printed;
}

}  // namespace pipesplit::script::testing

#endif  // PIPESPLIT_TESTS_SCRIPT_MLC_DEFAULTS_H_
