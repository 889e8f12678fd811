// The KV cache budget (kv_budget.h).
#include "src/serve/engine/kv_budget.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "pipesplit/runtime/exec/paged_kv_cache.h"
#include "pipesplit/support/quantity.h"
#include "src/serve/engine/command.h"

namespace pipesplit::serve::engine {

std::vector<int64_t> CacheBytesPerToken(const std::vector<runtime::Value>& create_args,
                                        int num_groups) {
  std::vector<int64_t> bytes;
  for (int g = 0; g < num_groups; ++g) {
    runtime::PagedKvCacheConfig c = PagedKvCacheConfigFromArgs(create_args, {g, num_groups});
    bytes.push_back((c.layer_end - c.layer_begin) * 2 * c.num_kv_heads * c.head_dim *
                    c.dtype.bytes());
  }
  return bytes;
}

int64_t AvailableMemoryBytes() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key;
    int64_t kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

ResolvedBudget ResolveKvBudget(const KvCacheBudget& budget, int64_t bytes_per_token, int num_groups,
                               int64_t available_bytes) {
  ResolvedBudget r;
  const int64_t per_token = std::max<int64_t>(bytes_per_token, 1);
  if (budget.max_total_tokens > 0) {
    r.max_total_tokens = budget.max_total_tokens;
    r.phrase = fmt::format("--max-total-tokens {}", budget.max_total_tokens);
  } else if (budget.memory_bytes > 0) {
    r.max_total_tokens = budget.memory_bytes / per_token;
    r.phrase = fmt::format("--kv-cache-memory {} per group", FormatBytes(budget.memory_bytes));
  } else {
    const int64_t share = static_cast<int64_t>(static_cast<double>(available_bytes) *
                                               kDefaultMemoryFraction / std::max(num_groups, 1));
    r.max_total_tokens = share / per_token;
    r.phrase = fmt::format("the default: {:.0f}% of the {} available, shared by {} group{}",
                           kDefaultMemoryFraction * 100, FormatBytes(available_bytes), num_groups,
                           num_groups == 1 ? "" : "s");
    if (budget.max_tokens_cap > 0 && r.max_total_tokens > budget.max_tokens_cap) {
      r.max_total_tokens = budget.max_tokens_cap;
      r.phrase += fmt::format(", at most {} tokens", budget.max_tokens_cap);
    }
  }
  r.max_total_tokens = r.max_total_tokens / kPageSize * kPageSize;
  if (r.max_total_tokens < kPageSize) {
    throw runtime::RuntimeError(
        fmt::format("the kv cache budget ({}) holds less than one page of {} tokens ({} per token)",
                    r.phrase, kPageSize, FormatBytes(per_token)));
  }
  return r;
}

}  // namespace pipesplit::serve::engine
