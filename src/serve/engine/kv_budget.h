// How many tokens the serving engine's KV caches hold (serve/engine.h, KvCacheBudget): from
// --max-total-tokens, from --kv-cache-memory bytes per group, or by default from the memory
// available at start. Every group's cache has the same pages (the engine's bookkeeping is the
// same on every group), so the group holding the most layers sets the bytes per token.
#ifndef PIPESPLIT_SRC_RUNTIME_SERVE_KV_BUDGET_H_
#define PIPESPLIT_SRC_RUNTIME_SERVE_KV_BUDGET_H_

#include <cstdint>
#include <string>
#include <vector>

#include "pipesplit/runtime/tensor/value.h"
#include "pipesplit/serve/engine/engine.h"

namespace pipesplit::serve::engine {

// The bytes one token takes in the cache of each of `num_groups` groups (K and V of every
// layer the group holds), from the arguments of vm.builtin.paged_attention_kv_cache_create.
std::vector<int64_t> CacheBytesPerToken(const std::vector<runtime::Value>& create_args,
                                        int num_groups);

// MemAvailable of /proc/meminfo in bytes; 0 when it cannot be read.
int64_t AvailableMemoryBytes();

struct ResolvedBudget {
  int64_t max_total_tokens = 0;  // a multiple of the page size
  std::string phrase;            // what sized it
};

// The tokens `budget` gives for `bytes_per_token` (the largest group's), with the groups'
// default share of `available_bytes` (AvailableMemoryBytes()) when the budget gives neither
// size. RuntimeError when it is less than one page.
ResolvedBudget ResolveKvBudget(const KvCacheBudget& budget, int64_t bytes_per_token, int num_groups,
                               int64_t available_bytes);

}  // namespace pipesplit::serve::engine

#endif  // PIPESPLIT_SRC_RUNTIME_SERVE_KV_BUDGET_H_
