// The scheduler's page bookkeeping with sharing, and its prefix cache (scheduler.h).
//
// PagePool mirrors the pages of every group's KV cache (runtime/exec/paged_kv_cache.h) one for
// one: a page is a handle with a count of the sequences holding it; it is free when none does.
// A fork shares the parent's first pages with the child (the scheduler forks only at page
// boundaries, so a shared page is full and never written again), and removing a sequence
// releases each of its pages once - as the caches count them, so no step can fail for want of
// pages.
//
// PrefixCache keeps the sequences of finished requests in the caches (their tokens, up to what
// was computed, and their pages) so that a later request whose tokens start the same - a
// conversation's next turn, a shared system prompt - forks them instead of computing that
// prefix again. Entries are evicted least recently used first, and an entry whose tokens start
// a newer entry's is dropped when that one comes in (a conversation keeps its last turn only).
// What is evicted or dropped goes on the scheduler's removal list.
#ifndef PIPESPLIT_SRC_SERVE_ENGINE_PREFIX_CACHE_H_
#define PIPESPLIT_SRC_SERVE_ENGINE_PREFIX_CACHE_H_

#include <cstdint>
#include <map>
#include <span>
#include <vector>

namespace pipesplit::serve::engine {

class PagePool {
 public:
  explicit PagePool(int64_t num_pages);

  int64_t num_pages() const { return static_cast<int64_t>(refs_.size()); }
  int64_t num_free() const { return static_cast<int64_t>(free_.size()); }
  // A free page, now held once (CHECKs that one is free).
  int64_t Take();
  // One more holder of a held page (a fork).
  void Hold(int64_t page);
  // One holder less; the page is free when none is left.
  void Release(int64_t page);

 private:
  std::vector<int32_t> refs_;
  std::vector<int64_t> free_;  // a stack: the last freed is taken first
};

// The tokens `a` and `b` share from their start, in whole pages of `page_size`, at most `limit`.
int64_t SharedPrefix(std::span<const int32_t> a, std::span<const int32_t> b, int64_t limit,
                     int64_t page_size);

class PrefixCache {
 public:
  struct Entry {
    int64_t seq = -1;
    std::vector<int32_t> tokens;  // what the caches hold for the sequence
    std::vector<int64_t> pages;   // handles of the PagePool
    int64_t last_use = 0;
  };
  // The entry sharing the longest whole-page prefix with `tokens` (at most `limit` tokens), or
  // null when none shares a page; `length` receives the shared tokens.
  const Entry* Longest(std::span<const int32_t> tokens, int64_t limit, int64_t page_size,
                       int64_t* length) const;
  // Keeps a finished sequence; entries whose tokens start its tokens are dropped (their
  // sequences appended to `removed`, their pages released).
  void Insert(Entry entry, PagePool& pool, std::vector<int64_t>& removed);
  // Marks the entry of `seq` used now.
  void Touch(int64_t seq);
  // Evicts the least recently used entry other than that of `keep`; false when there is none.
  bool EvictOne(int64_t keep, PagePool& pool, std::vector<int64_t>& removed);
  // Evicts every entry.
  void Clear(PagePool& pool, std::vector<int64_t>& removed);

  int64_t size() const { return static_cast<int64_t>(entries_.size()); }
  const std::map<int64_t, Entry>& entries() const { return entries_; }

 private:
  void Drop(std::map<int64_t, Entry>::iterator it, PagePool& pool, std::vector<int64_t>& removed);

  std::map<int64_t, Entry> entries_;  // by sequence id
  int64_t clock_ = 0;
};

}  // namespace pipesplit::serve::engine

#endif  // PIPESPLIT_SRC_SERVE_ENGINE_PREFIX_CACHE_H_
