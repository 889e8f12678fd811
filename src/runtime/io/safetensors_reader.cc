// safetensors reader: maps a file, validates its header and hands out tensors viewing it.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "pipesplit/runtime/io/safetensors.h"
#include "src/runtime/io/mapped_file.h"
#include "src/runtime/kernels/kernel_util.h"

namespace pipesplit::runtime {

namespace {

using Json = nlohmann::ordered_json;

constexpr uint64_t kMaxHeaderBytes = 100'000'000;

// Reads a JSON number that is a non-negative integer.
std::optional<uint64_t> AsCount(const Json& value) {
  if (value.is_number_unsigned()) return value.get<uint64_t>();
  if (value.is_number_integer() && value.get<int64_t>() >= 0) {
    return static_cast<uint64_t>(value.get<int64_t>());
  }
  return std::nullopt;
}

std::string OffsetsText(uint64_t begin, uint64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + "]";
}

}  // namespace

SafetensorsFile SafetensorsFile::Open(const std::string& path) {
  std::string error;
  std::shared_ptr<const MappedFile> mapping = MapFile(path, &error);
  if (mapping == nullptr) detail::ThrowError(path + ": " + error);
  const void* data = mapping->data;
  const size_t size = mapping->size;
  return FromMemory(path, std::move(mapping), data, size);
}

SafetensorsFile SafetensorsFile::FromMemory(std::string display_name,
                                            std::shared_ptr<const void> owner, const void* data,
                                            size_t size) {
  SafetensorsFile file;
  file.display_name_ = std::move(display_name);
  file.owner_ = std::move(owner);
  const std::string& name = file.display_name_;
  auto fail = [&](const std::string& message) { detail::ThrowError(name + ": " + message); };
  const auto* bytes = static_cast<const unsigned char*>(data);
  if (size < 8) {
    fail("file is too small for a safetensors header (" + std::to_string(size) + " bytes)");
  }
  uint64_t header_size = 0;
  for (int i = 7; i >= 0; --i) header_size = (header_size << 8) | bytes[i];
  if (header_size > kMaxHeaderBytes) {
    fail("header size " + std::to_string(header_size) + " exceeds the limit of " +
         std::to_string(kMaxHeaderBytes) + " bytes");
  }
  if (header_size > size - 8) {
    fail("header size " + std::to_string(header_size) + " runs past the end of the file (" +
         std::to_string(size) + " bytes)");
  }
  const char* header_begin = reinterpret_cast<const char*>(bytes + 8);
  const std::string_view header_text(header_begin, header_size);
  if (header_text.empty() || header_text[0] != '{') fail("header does not start with '{'");

  std::unordered_set<std::string> seen;
  Json header;
  try {
    header = Json::parse(header_text.begin(), header_text.end(),
                         [&](int depth, nlohmann::detail::parse_event_t event, Json& parsed) {
                           if (event == nlohmann::detail::parse_event_t::key && depth == 1) {
                             const std::string key = parsed.get<std::string>();
                             if (!seen.insert(key).second)
                               fail("duplicate entry '" + key + "' in the header");
                           }
                           return true;
                         });
  } catch (const nlohmann::json::parse_error& e) {
    fail("header is not valid json (at byte " + std::to_string(e.byte) + ")");
  } catch (const nlohmann::json::out_of_range&) {
    fail("header holds a number out of range");  // found by fuzz_safetensors
  }
  if (!header.is_object()) fail("header is not a json object");

  file.data_ = bytes + 8 + header_size;
  const uint64_t data_size = size - 8 - header_size;
  struct Placed {
    std::string name;
    uint64_t begin;
    uint64_t end;
  };
  std::vector<Placed> placed;
  for (const auto& [key, value] : header.items()) {
    if (key == "__metadata__") {
      if (!value.is_object()) fail("__metadata__ is not an object");
      for (const auto& [mkey, mvalue] : value.items()) {
        if (!mvalue.is_string()) fail("__metadata__ value of '" + mkey + "' is not a string");
        file.metadata_.emplace_back(mkey, mvalue.get<std::string>());
      }
      continue;
    }
    const std::string& name = key;  // clang 14 cannot capture a structured binding
    auto bad = [&](const std::string& message) {
      fail(fmt::format("tensor '{}': {}", name, message));
    };
    if (!value.is_object()) bad("entry is not an object");
    const auto dtype_it = value.find("dtype");
    const auto shape_it = value.find("shape");
    const auto offsets_it = value.find("data_offsets");
    if (dtype_it == value.end() || !dtype_it->is_string()) bad("dtype is missing or not a string");
    const std::string dtype_name = dtype_it->get<std::string>();
    const std::optional<DataType> dtype = DataTypeFromSafetensorsName(dtype_name);
    if (!dtype) bad("unknown dtype '" + dtype_name + "'");
    if (shape_it == value.end() || !shape_it->is_array()) bad("shape is missing or not a list");
    Entry entry;
    entry.dtype = *dtype;
    uint64_t numel = 1;
    bool too_large = false;
    for (const Json& d : *shape_it) {
      const std::optional<uint64_t> dim = AsCount(d);
      if (!dim) bad("shape must hold non-negative integers");
      if (*dim > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) too_large = true;
      if (*dim != 0 && numel > std::numeric_limits<uint64_t>::max() / *dim) too_large = true;
      numel *= *dim;
      entry.shape.push_back(static_cast<int64_t>(*dim));
    }
    const uint64_t elem = static_cast<uint64_t>(dtype->bytes());
    if (too_large || numel > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / elem) {
      bad("shape " + ShapeToString(entry.shape) + " is too large");
    }
    if (offsets_it == value.end() || !offsets_it->is_array() || offsets_it->size() != 2 ||
        !AsCount((*offsets_it)[0]) || !AsCount((*offsets_it)[1])) {
      bad("data_offsets must be two non-negative integers");
    }
    const uint64_t begin = *AsCount((*offsets_it)[0]);
    const uint64_t end = *AsCount((*offsets_it)[1]);
    if (begin > end) bad("data_offsets " + OffsetsText(begin, end) + " are reversed");
    if (end > data_size) {
      bad("data_offsets " + OffsetsText(begin, end) + " exceed the data size (" +
          std::to_string(data_size) + " bytes)");
    }
    const uint64_t nbytes = numel * elem;
    if (end - begin != nbytes) {
      bad("data_offsets " + OffsetsText(begin, end) + " hold " + std::to_string(end - begin) +
          " bytes but " + dtype->ToString() + ShapeToString(entry.shape) + " needs " +
          std::to_string(nbytes));
    }
    if (dtype->is_bool()) {
      const unsigned char* p = file.data_ + begin;
      for (uint64_t i = 0; i < nbytes; ++i) {
        if (p[i] > 1) bad("bool values must be 0 or 1");
      }
    }
    entry.begin = static_cast<size_t>(begin);
    entry.end = static_cast<size_t>(end);
    file.entries_.emplace(key, std::move(entry));
    placed.push_back({key, begin, end});
  }

  // The tensors must tile the data exactly.
  std::stable_sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t covered = 0;
  const Placed* last = nullptr;
  for (const Placed& p : placed) {
    if (p.begin < covered) {
      fail("tensor '" + p.name + "' overlaps tensor '" + last->name + "'");
    }
    if (p.begin > covered) {
      fail("data bytes " + OffsetsText(covered, p.begin) + " belong to no tensor");
    }
    if (p.end > p.begin || last == nullptr) last = &p;
    covered = p.end;
    file.names_.push_back(p.name);
  }
  if (covered < data_size) {
    fail("data bytes " + OffsetsText(covered, data_size) + " belong to no tensor");
  }
  return file;
}

bool SafetensorsFile::Contains(std::string_view name) const {
  return entries_.find(std::string(name)) != entries_.end();
}

Tensor SafetensorsFile::Get(std::string_view name) const {
  const auto it = entries_.find(std::string(name));
  if (it == entries_.end()) {
    detail::ThrowError(display_name_ + ": no tensor named '" + std::string(name) + "'");
  }
  const Entry& e = it->second;
  const unsigned char* p = data_ + e.begin;
  if (reinterpret_cast<uintptr_t>(p) % static_cast<uintptr_t>(e.dtype.bytes()) != 0) {
    return FromBytes(e.dtype, e.shape, p, e.end - e.begin);
  }
  return Tensor::View(e.dtype, e.shape, p, owner_);
}

std::vector<NamedTensor> SafetensorsFile::GetAll() const {
  std::vector<NamedTensor> out;
  for (const std::string& name : names_) out.emplace_back(name, Get(name));
  return out;
}

}  // namespace pipesplit::runtime
