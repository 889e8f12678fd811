// packed_params from safetensors (see weights.h).
#include "pipesplit/runtime/io/weights.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <unordered_set>

namespace pipesplit::runtime {

std::pair<DataType, Shape> WeightSource::TypeOf(int64_t index) const {
  Tensor t = Load(index);
  return {t.dtype(), t.shape()};
}

Tensor InMemoryWeights::Load(int64_t index) const {
  if (index < 0 || index >= size()) {
    throw RuntimeError("packed_params[" + std::to_string(index) +
                       "] does not exist: " + std::to_string(size()) + " weights given");
  }
  return tensors_[index];
}

SafetensorsWeights::SafetensorsWeights(SafetensorsFile file) : file_(std::move(file)) {
  const std::string& where = file_.display_name();
  const std::string* listed = nullptr;
  for (const auto& [key, value] : file_.metadata()) {
    if (key == "packed_params") listed = &value;
  }
  if (listed != nullptr) {
    nlohmann::json list = nlohmann::json::parse(*listed, nullptr, /*allow_exceptions=*/false);
    if (!list.is_array()) {
      throw RuntimeError(where +
                         ": __metadata__[\"packed_params\"] must be a JSON list of "
                         "tensor names");
    }
    std::unordered_set<std::string> seen;
    for (const auto& item : list) {
      if (!item.is_string()) {
        throw RuntimeError(where + ": __metadata__[\"packed_params\"] must list tensor names");
      }
      std::string name = item.get<std::string>();
      if (!file_.Contains(name)) {
        throw RuntimeError(
            fmt::format("{}: packed_params[{}] names tensor '{}', which the file "
                        "does not hold",
                        where, names_.size(), name));
      }
      if (!seen.insert(name).second) {
        throw RuntimeError(
            fmt::format("{}: tensor '{}' is listed twice in packed_params", where, name));
      }
      names_.push_back(std::move(name));
    }
    for (const std::string& name : file_.names()) {
      if (!seen.count(name)) {
        throw RuntimeError(
            fmt::format("{}: tensor '{}' is not listed in packed_params", where, name));
      }
    }
    return;
  }
  size_t n = file_.names().size();
  for (size_t i = 0; i < n; ++i) {
    std::string name = "param_" + std::to_string(i);
    if (!file_.Contains(name)) {
      throw RuntimeError(
          fmt::format("{}: without __metadata__[\"packed_params\"] the weights "
                      "must be named param_0..param_{}; '{}' is missing",
                      where, n - 1, name));
    }
    names_.push_back(std::move(name));
  }
}

std::string SafetensorsWeights::Name(int64_t index) const {
  if (index < 0 || index >= size()) return "param_" + std::to_string(index);
  return names_[index];
}

Tensor SafetensorsWeights::Load(int64_t index) const {
  if (index < 0 || index >= size()) {
    throw RuntimeError(file_.display_name() + ": packed_params[" + std::to_string(index) +
                       "] does not exist (the file holds " + std::to_string(size()) + " weights)");
  }
  return file_.Get(names_[index]);
}

}  // namespace pipesplit::runtime
