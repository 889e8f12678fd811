// The serving engine's metrics (metrics.h).
#include "pipesplit/serve/engine/metrics.h"

#include <algorithm>

namespace pipesplit::serve {

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::Observe(double value) {
  const size_t bucket = static_cast<size_t>(
      std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin());
  ++counts_[bucket];
  sum_ += value;
  ++count_;
}

double Histogram::Quantile(double q) const {
  if (count_ == 0) return 0;
  const double rank = q * static_cast<double>(count_);
  uint64_t below = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    if (static_cast<double>(below + counts_[i]) >= rank && counts_[i] > 0) {
      if (i == bounds_.size()) return bounds_.empty() ? 0 : bounds_.back();
      const double lo = i == 0 ? 0 : bounds_[i - 1];
      const double fraction = (rank - static_cast<double>(below)) / static_cast<double>(counts_[i]);
      return lo + (bounds_[i] - lo) * std::clamp(fraction, 0.0, 1.0);
    }
    below += counts_[i];
  }
  return bounds_.empty() ? 0 : bounds_.back();
}

std::vector<double> LatencyBuckets() {
  return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3,
          0.4,   0.5,    0.75,  1.0,  2.5,   5.0,  7.5,   10,  20,   40,  60};
}

}  // namespace pipesplit::serve
