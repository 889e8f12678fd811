// Printer names and frames: TVM's unique-name generation ("lv", "lv_1", ...), names freed
// when the frame that defined them ends, and the choice of frame for declarations.
#include <charconv>

#include "src/script/printer/printer_internal.h"

namespace pipesplit::script::printer {

// ---- NameTable ----

void NameTable::Reserve(const std::string& name) { used_.insert(name); }

std::string NameTable::Take(std::string base) {
  if (used_.insert(base).second) return base;
  Suffixes& s = suffixes_[base];
  // Smallest freed suffix that is still free (entries may be stale: taken again verbatim).
  while (!s.freed.empty()) {
    int64_t i = s.freed.top();
    s.freed.pop();
    std::string name = base + "_" + std::to_string(i);
    if (used_.insert(name).second) return name;
  }
  while (true) {
    std::string name = base + "_" + std::to_string(s.high++);
    if (used_.insert(name).second) return name;
  }
}

void NameTable::Free(const std::string& name) {
  if (used_.erase(name) == 0 || suffixes_.empty()) return;
  // If `name` is "<base>_<i>" (i >= 1, no leading zero) below the base's high-water mark, it
  // becomes a candidate again for that base.
  size_t us = name.rfind('_');
  if (us == std::string::npos || us + 1 >= name.size() || name[us + 1] == '0') return;
  int64_t i = 0;
  const char* first = name.data() + us + 1;
  const char* last = name.data() + name.size();
  auto [ptr, ec] = std::from_chars(first, last, i);
  if (ec != std::errc() || ptr != last || i < 1) return;
  auto it = suffixes_.find(std::string_view(name).substr(0, us));
  if (it != suffixes_.end() && i < it->second.high) it->second.freed.push(i);
}

// ---- Frames ----

void Printer::ExitFrame(Frame* frame) {
  // Frames are RAII scopes (FrameScope), so `frame` is the innermost one. No checks that
  // could throw: this runs in destructors.
  for (const void* key : frame->defined) {
    auto it = obj_names_.find(key);
    if (it == obj_names_.end()) continue;
    names_.Free(it->second);
    obj_names_.erase(it);
  }
  frames_.pop_back();
}

const std::string& Printer::Define(const void* key, std::string_view hint, Frame* frame) {
  auto [it, inserted] = obj_names_.try_emplace(key);
  if (inserted) {
    it->second = names_.Take(SanitizeName(hint));
    frame->defined.push_back(key);
  }
  return it->second;
}

const std::string* Printer::NameOf(const void* key) const {
  auto it = obj_names_.find(key);
  return it == obj_names_.end() ? nullptr : &it->second;
}

Printer::Frame* Printer::RelaxFrame() {
  Frame* fallback = nullptr;
  if (current()) {
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) {
      if (!(*it)->is_relax) continue;
      if ((*it)->is_func) return *it;
      if (fallback == nullptr) fallback = *it;
    }
    return fallback;
  }
  for (Frame* f : frames_) {
    if (!f->is_relax) continue;
    if (f->is_func) return f;
    if (fallback == nullptr) fallback = f;
  }
  return fallback;
}

const void* Printer::TirKey(const ir::TirVarNode& var) const {
  auto it = tir_alias_.find(&var);
  return it == tir_alias_.end() ? static_cast<const void*>(&var) : it->second;
}

}  // namespace pipesplit::script::printer
