// Per-op wall-time counters (see op_profile.h).
#include "src/runtime/exec/op_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

namespace pipesplit::runtime::detail {
namespace {

struct Counters {
  std::mutex mu;
  std::map<std::string, OpProfileEntry, std::less<>> entries;
};

Counters& Global() {
  static Counters* counters = new Counters();  // never destroyed: read by the exit hook
  return *counters;
}

void PrintAtExit() {
  if (!OpProfileSnapshot().empty()) std::fputs(FormatOpProfile().c_str(), stderr);
}

bool FromEnvironment() {
  const char* value = std::getenv("PIPESPLIT_OP_PROFILE");
  const bool on = value != nullptr && std::strcmp(value, "0") != 0;
  if (on) std::atexit(PrintAtExit);
  return on;
}

std::atomic<bool>& Enabled() {
  static std::atomic<bool> enabled{FromEnvironment()};
  return enabled;
}

}  // namespace

bool OpProfileEnabled() { return Enabled().load(std::memory_order_relaxed); }

void SetOpProfileEnabled(bool enabled) { Enabled().store(enabled); }

void AddOpTime(const std::string& op, double seconds) {
  Counters& c = Global();
  std::lock_guard<std::mutex> lock(c.mu);
  auto it = c.entries.find(op);
  if (it == c.entries.end()) it = c.entries.emplace(op, OpProfileEntry{op, 0, 0}).first;
  ++it->second.calls;
  it->second.seconds += seconds;
}

void AddKernelTime(const std::string& op, double seconds, bool fast) {
  Counters& c = Global();
  std::lock_guard<std::mutex> lock(c.mu);
  auto it = c.entries.find(op);
  if (it == c.entries.end()) it = c.entries.emplace(op, OpProfileEntry{op, 0, 0}).first;
  OpProfileEntry& e = it->second;
  e.kernel = true;
  ++e.calls;
  e.seconds += seconds;
  if (fast) {
    ++e.fast_calls;
    e.fast_seconds += seconds;
  }
}

std::vector<OpProfileEntry> OpProfileSnapshot() {
  Counters& c = Global();
  std::vector<OpProfileEntry> out;
  {
    std::lock_guard<std::mutex> lock(c.mu);
    for (const auto& [name, entry] : c.entries) out.push_back(entry);
  }
  std::stable_sort(out.begin(), out.end(), [](const OpProfileEntry& a, const OpProfileEntry& b) {
    return a.seconds > b.seconds;
  });
  return out;
}

void ResetOpProfile() {
  Counters& c = Global();
  std::lock_guard<std::mutex> lock(c.mu);
  c.entries.clear();
}

std::string FormatOpProfile() {
  const std::vector<OpProfileEntry> entries = OpProfileSnapshot();
  double total = 0;
  double kernels = 0;
  double fast = 0;
  for (const OpProfileEntry& e : entries) {
    total += e.seconds;
    if (e.kernel) kernels += e.seconds;
    fast += e.fast_seconds;
  }
  size_t width = 28;  // kernel names are long: the first column fits the longest
  for (const OpProfileEntry& e : entries) width = std::max(width, e.op.size());
  std::string out = fmt::format("{:<{}} {:>8} {:>10} {:>10} {:>6}  {}\n", "op", width, "calls",
                                "ms", "us/call", "%", "path");
  for (const OpProfileEntry& e : entries) {
    const char* path = "";
    if (e.kernel) {
      path = e.fast_calls == e.calls ? "fast" : e.fast_calls == 0 ? "written" : "mixed";
    }
    out += fmt::format("{:<{}} {:>8} {:>10.2f} {:>10.2f} {:>6.1f}  {}\n", e.op, width, e.calls,
                       e.seconds * 1e3, e.seconds * 1e6 / static_cast<double>(e.calls),
                       total > 0 ? 100 * e.seconds / total : 0.0, path);
  }
  out += fmt::format("{:<{}} {:>8} {:>10.2f}\n", "total", width, "", total * 1e3);
  if (kernels > 0) {
    out += fmt::format("compiled kernels: {:.2f} ms, {:.1f}% of it on the fast path ({})\n",
                       kernels * 1e3, 100 * fast / kernels, ContractionIsa());
  }
  return out;
}

}  // namespace pipesplit::runtime::detail
