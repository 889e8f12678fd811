// PointerMap: a flat hash map keyed by non-null pointers, for the hot lookups of compiler
// passes (one per use of a var over a whole module), where std::unordered_map pays a node
// allocation per insert and a pointer chase per lookup.
//
// Open addressing with linear probing in one power-of-two array of slots (key, value), at most
// half full. No erase. Pointers into values stay valid until the next insert that grows the
// table (as std::vector's). Iteration order is unspecified: use it for lookups only.
#ifndef PIPESPLIT_SUPPORT_POINTER_MAP_H_
#define PIPESPLIT_SUPPORT_POINTER_MAP_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "pipesplit/support/check.h"

namespace pipesplit::support {

template <typename K, typename V>
class PointerMap {
 public:
  PointerMap() = default;
  explicit PointerMap(size_t expected) { Reserve(expected); }

  // Room for `n` keys without growing.
  void Reserve(size_t n) {
    size_t capacity = 16;
    while (capacity < 2 * n) capacity *= 2;
    if (capacity > slots_.size()) Rehash(capacity);
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // The value of `key`, or nullptr.
  V* Find(const K* key) {
    if (slots_.empty()) return nullptr;
    for (size_t i = Hash(key) & mask_;; i = (i + 1) & mask_) {
      Slot& slot = slots_[i];
      if (slot.key == key) return &slot.value;
      if (slot.key == nullptr) return nullptr;
    }
  }
  const V* Find(const K* key) const { return const_cast<PointerMap*>(this)->Find(key); }
  bool Contains(const K* key) const { return Find(key) != nullptr; }

  // Inserts (key, value) unless `key` is present; returns its value and whether it was added.
  std::pair<V*, bool> Insert(const K* key, V value) {
    PS_CHECK(key != nullptr) << "PointerMap keys are non-null";
    if (2 * (size_ + 1) > slots_.size()) Rehash(slots_.empty() ? 16 : 2 * slots_.size());
    for (size_t i = Hash(key) & mask_;; i = (i + 1) & mask_) {
      Slot& slot = slots_[i];
      if (slot.key == key) return {&slot.value, false};
      if (slot.key == nullptr) {
        slot.key = key;
        slot.value = std::move(value);
        ++size_;
        return {&slot.value, true};
      }
    }
  }

  // The value of `key`, default-constructed on first use.
  V& operator[](const K* key) { return *Insert(key, V()).first; }

 private:
  struct Slot {
    const K* key = nullptr;
    V value{};
  };

  static size_t Hash(const K* key) {
    // Fibonacci hashing of the address; the low bits of aligned pointers carry nothing.
    uint64_t x = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(key)) >> 4;
    return static_cast<size_t>((x * 0x9E3779B97F4A7C15ull) >> 17);
  }

  void Rehash(size_t capacity) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(capacity, Slot());
    mask_ = capacity - 1;
    size_ = 0;
    for (Slot& slot : old) {
      if (slot.key != nullptr) Insert(slot.key, std::move(slot.value));
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

// A set of non-null pointers, on PointerMap.
template <typename K>
class PointerSet {
 public:
  void Reserve(size_t n) { map_.Reserve(n); }
  size_t size() const { return map_.size(); }
  bool Contains(const K* key) const { return map_.Contains(key); }
  // True when `key` was not in the set.
  bool Insert(const K* key) { return map_.Insert(key, true).second; }

 private:
  PointerMap<K, bool> map_;
};

}  // namespace pipesplit::support

#endif  // PIPESPLIT_SUPPORT_POINTER_MAP_H_
