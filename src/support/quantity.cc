// Quantities with unit prefixes (quantity.h).
#include "pipesplit/support/quantity.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace pipesplit {

std::optional<double> ParseQuantity(std::string_view text,
                                    const std::vector<std::string_view>& units) {
  const std::string s(text);
  size_t used = 0;
  double value = -1;
  try {
    value = std::stod(s, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string_view unit = text.substr(used);
  double scale = 1;
  static const std::pair<std::string_view, double> kPrefixes[] = {
      {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0},
      {"k", 1e3},     {"K", 1e3},        {"M", 1e6},           {"G", 1e9},
      {"T", 1e12}};
  for (const auto& [prefix, factor] : kPrefixes) {
    if (unit.substr(0, prefix.size()) == prefix) {
      scale = factor;
      unit.remove_prefix(prefix.size());
      break;
    }
  }
  const bool unit_ok = unit.empty() || std::find(units.begin(), units.end(), unit) != units.end();
  if (!unit_ok || !(value > 0) || !std::isfinite(value)) return std::nullopt;
  return value * scale;
}

std::string FormatBytes(int64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (bytes >= (int64_t{1} << 30)) return fmt::format("{:.1f} GiB", b / (1 << 30));
  if (bytes >= (int64_t{1} << 20)) return fmt::format("{:.1f} MiB", b / (1 << 20));
  if (bytes >= (int64_t{1} << 10)) return fmt::format("{:.1f} KiB", b / (1 << 10));
  return fmt::format("{} B", bytes);
}

}  // namespace pipesplit
