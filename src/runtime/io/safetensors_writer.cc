// safetensors writer and the dtype names of the format.
#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "pipesplit/runtime/io/safetensors.h"
#include "src/runtime/io/mapped_file.h"
#include "src/runtime/kernels/kernel_util.h"

namespace pipesplit::runtime {

namespace {

using Json = nlohmann::ordered_json;

struct DTypeName {
  const char* name;
  DataType dtype;
};

const DTypeName kDTypeNames[] = {
    {"F64", DataType::Float(64)},
    {"F32", DataType::Float(32)},
    {"F16", DataType::Float(16)},
    {"BF16", DataType::BFloat16()},
    {"I64", DataType::Int(64)},
    {"I32", DataType::Int(32)},
    {"I16", DataType::Int(16)},
    {"I8", DataType::Int(8)},
    {"U64", DataType::UInt(64)},
    {"U32", DataType::UInt(32)},
    {"U16", DataType::UInt(16)},
    {"U8", DataType::UInt(8)},
    {"BOOL", DataType::Bool()},
    {"F8_E4M3", DataType(DataType::Code::kFloat8E4M3FN, 8)},
    {"F8_E5M2", DataType(DataType::Code::kFloat8E5M2, 8)},
};

// The header text, padded with spaces so that the data starts at a multiple of 8 bytes.
std::string BuildHeader(const std::string& prefix, std::span<const NamedTensor> tensors,
                        const SafetensorsMetadata& metadata) {
  auto fail = [&](const std::string& message) { detail::ThrowError(prefix + ": " + message); };
  Json header = Json::object();
  if (!metadata.empty()) {
    Json meta = Json::object();
    for (const auto& [key, value] : metadata) {
      if (meta.contains(key)) fail("duplicate metadata key '" + key + "'");
      meta[key] = value;
    }
    header["__metadata__"] = std::move(meta);
  }
  uint64_t offset = 0;
  std::unordered_set<std::string> names;
  for (const auto& [name, tensor] : tensors) {
    if (name == "__metadata__") fail("'__metadata__' cannot name a tensor");
    if (!names.insert(name).second) fail("duplicate tensor name '" + name + "'");
    if (!tensor.defined()) fail("tensor '" + name + "' is undefined");
    const std::optional<std::string> dtype = SafetensorsNameOf(tensor.dtype());
    if (!dtype)
      fail("tensor '" + name + "': dtype " + tensor.dtype().ToString() + " cannot be stored");
    const uint64_t nbytes = static_cast<uint64_t>(tensor.nbytes());
    Json entry = Json::object();
    entry["dtype"] = *dtype;
    entry["shape"] = tensor.shape();
    entry["data_offsets"] = {offset, offset + nbytes};
    header[name] = std::move(entry);
    offset += nbytes;
  }
  std::string text;
  try {
    text = header.dump();
  } catch (const nlohmann::json::type_error&) {
    fail("tensor names and metadata must be valid utf-8");
  }
  const size_t padded = (8 + text.size() + 7) / 8 * 8 - 8;
  text.append(padded - text.size(), ' ');
  return text;
}

std::string SizePrefix(uint64_t size) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((size >> (8 * i)) & 0xffu);
  return out;
}

}  // namespace

std::optional<DataType> DataTypeFromSafetensorsName(std::string_view name) {
  for (const DTypeName& entry : kDTypeNames) {
    if (name == entry.name) return entry.dtype;
  }
  return std::nullopt;
}

std::optional<std::string> SafetensorsNameOf(DataType dtype) {
  for (const DTypeName& entry : kDTypeNames) {
    if (dtype == entry.dtype) return std::string(entry.name);
  }
  return std::nullopt;
}

std::string SerializeSafetensors(std::span<const NamedTensor> tensors,
                                 const SafetensorsMetadata& metadata) {
  const std::string header = BuildHeader("safetensors", tensors, metadata);
  std::string out = SizePrefix(header.size()) + header;
  for (const auto& [name, tensor] : tensors) {
    out.append(static_cast<const char*>(tensor.raw_data()), static_cast<size_t>(tensor.nbytes()));
  }
  return out;
}

void WriteSafetensors(const std::string& path, std::span<const NamedTensor> tensors,
                      const SafetensorsMetadata& metadata) {
  const std::string header = BuildHeader(path, tensors, metadata);
  const std::string prefix = SizePrefix(header.size());
  std::vector<std::string_view> pieces = {prefix, header};
  for (const auto& [name, tensor] : tensors) {
    pieces.emplace_back(static_cast<const char*>(tensor.raw_data()),
                        static_cast<size_t>(tensor.nbytes()));
  }
  WriteFileAtomically(path, pieces);
}

}  // namespace pipesplit::runtime
