// Copy-on-first-change mapping of node vectors: the idiom behind "a mutator returns the same
// node when nothing changed" without allocating a new vector for every visited node.
#ifndef PIPESPLIT_IR_MAP_ON_CHANGE_H_
#define PIPESPLIT_IR_MAP_ON_CHANGE_H_

#include <cstddef>
#include <utility>
#include <vector>

namespace pipesplit::ir {

// Applies `fn` to every item of `in`. When some result differs from its item (pointer
// inequality), fills `out` with all results (copying the unchanged prefix only then) and
// returns true; otherwise leaves `out` untouched and returns false, so the caller reuses its
// unchanged node.
template <typename T, typename Fn>
bool MapOnChange(const std::vector<T>& in, std::vector<T>* out, Fn&& fn) {
  bool changed = false;
  for (size_t i = 0; i < in.size(); ++i) {
    T e = fn(in[i]);
    if (!changed && e != in[i]) {
      changed = true;
      out->clear();
      out->reserve(in.size());
      out->assign(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(i));
    }
    if (changed) out->push_back(std::move(e));
  }
  return changed;
}

}  // namespace pipesplit::ir

#endif  // PIPESPLIT_IR_MAP_ON_CHANGE_H_
