// Quantities written with a unit prefix: "25e9", "24GB", "1.5GiB", "512MB" (the memory of
// auto-pipeline-stages, the KV cache budget of serve and generate).
#ifndef PIPESPLIT_SUPPORT_QUANTITY_H_
#define PIPESPLIT_SUPPORT_QUANTITY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipesplit {

// A positive finite number with an optional decimal (k, K, M, G, T) or binary (Ki, Mi, Gi, Ti)
// prefix and then one of `units` or no unit; nullopt for anything else.
std::optional<double> ParseQuantity(std::string_view text,
                                    const std::vector<std::string_view>& units);

// A byte count with a binary prefix and one decimal: "1.5 GiB", "512.0 MiB", "3.0 KiB", "100 B".
std::string FormatBytes(int64_t bytes);

}  // namespace pipesplit

#endif  // PIPESPLIT_SUPPORT_QUANTITY_H_
