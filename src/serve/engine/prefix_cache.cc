// Page bookkeeping with sharing and the prefix cache (prefix_cache.h).
#include "src/serve/engine/prefix_cache.h"

#include <algorithm>
#include <utility>

#include "pipesplit/support/check.h"

namespace pipesplit::serve::engine {

PagePool::PagePool(int64_t num_pages) : refs_(static_cast<size_t>(num_pages), 0) {
  PS_CHECK(num_pages >= 1);
  // Taken from the lowest handle up, as the caches take their pages.
  for (int64_t p = num_pages - 1; p >= 0; --p) free_.push_back(p);
}

int64_t PagePool::Take() {
  PS_CHECK(!free_.empty()) << "no free page";
  const int64_t page = free_.back();
  free_.pop_back();
  refs_[static_cast<size_t>(page)] = 1;
  return page;
}

void PagePool::Hold(int64_t page) {
  PS_CHECK(page >= 0 && page < num_pages() && refs_[static_cast<size_t>(page)] > 0);
  ++refs_[static_cast<size_t>(page)];
}

void PagePool::Release(int64_t page) {
  PS_CHECK(page >= 0 && page < num_pages() && refs_[static_cast<size_t>(page)] > 0);
  if (--refs_[static_cast<size_t>(page)] == 0) free_.push_back(page);
}

int64_t SharedPrefix(std::span<const int32_t> a, std::span<const int32_t> b, int64_t limit,
                     int64_t page_size) {
  const int64_t n =
      std::min({static_cast<int64_t>(a.size()), static_cast<int64_t>(b.size()), limit});
  const auto mismatch = std::mismatch(a.begin(), a.begin() + n, b.begin());
  const int64_t common = mismatch.first - a.begin();
  return common / page_size * page_size;
}

const PrefixCache::Entry* PrefixCache::Longest(std::span<const int32_t> tokens, int64_t limit,
                                               int64_t page_size, int64_t* length) const {
  const Entry* best = nullptr;
  *length = 0;
  for (const auto& [seq, entry] : entries_) {
    const int64_t shared = SharedPrefix(entry.tokens, tokens, limit, page_size);
    if (shared > *length) {
      *length = shared;
      best = &entry;
    }
  }
  return best;
}

void PrefixCache::Insert(Entry entry, PagePool& pool, std::vector<int64_t>& removed) {
  for (auto it = entries_.begin(); it != entries_.end();) {
    const std::vector<int32_t>& older = it->second.tokens;
    const bool starts_it = older.size() <= entry.tokens.size() &&
                           std::equal(older.begin(), older.end(), entry.tokens.begin());
    if (starts_it) {
      Drop(it++, pool, removed);
    } else {
      ++it;
    }
  }
  entry.last_use = ++clock_;
  const int64_t seq = entry.seq;
  PS_CHECK(entries_.emplace(seq, std::move(entry)).second) << "sequence " << seq << " is cached";
}

void PrefixCache::Touch(int64_t seq) {
  auto it = entries_.find(seq);
  PS_CHECK(it != entries_.end());
  it->second.last_use = ++clock_;
}

bool PrefixCache::EvictOne(int64_t keep, PagePool& pool, std::vector<int64_t>& removed) {
  auto oldest = entries_.end();
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->first == keep) continue;
    if (oldest == entries_.end() || it->second.last_use < oldest->second.last_use) oldest = it;
  }
  if (oldest == entries_.end()) return false;
  Drop(oldest, pool, removed);
  return true;
}

void PrefixCache::Clear(PagePool& pool, std::vector<int64_t>& removed) {
  while (!entries_.empty()) Drop(entries_.begin(), pool, removed);
}

void PrefixCache::Drop(std::map<int64_t, Entry>::iterator it, PagePool& pool,
                       std::vector<int64_t>& removed) {
  for (int64_t page : it->second.pages) pool.Release(page);
  removed.push_back(it->first);
  entries_.erase(it);
}

}  // namespace pipesplit::serve::engine
