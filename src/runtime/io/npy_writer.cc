// .npy writer (npy.h).
#include <fmt/format.h>

#include <string_view>

#include "pipesplit/runtime/io/npy.h"
#include "src/runtime/io/mapped_file.h"

namespace pipesplit::runtime {
namespace {

constexpr size_t kAlignment = 64;
constexpr std::string_view kMagic("\x93NUMPY\x01\x00", 8);  // magic, version 1.0

// NumPy's descr of `dtype` (little-endian), or "" when NumPy has none.
std::string Descr(DataType dtype) {
  if (dtype.lanes() != 1) return "";
  const std::string bytes = std::to_string(dtype.bytes());
  switch (dtype.code()) {
    case DataType::Code::kFloat:
      return dtype.bits() == 16 || dtype.bits() == 32 || dtype.bits() == 64 ? "<f" + bytes : "";
    case DataType::Code::kInt:
      return dtype.bits() == 8 ? "|i1" : "<i" + bytes;
    case DataType::Code::kUInt:
      return dtype.bits() == 8 ? "|u1" : "<u" + bytes;
    case DataType::Code::kBool:
      return "|b1";
    case DataType::Code::kBFloat:
    case DataType::Code::kHandle:
    case DataType::Code::kVoid:
    case DataType::Code::kFloat8E4M3FN:
    case DataType::Code::kFloat8E5M2:
    case DataType::Code::kFloat4E2M1FN:
      return "";
  }
  return "";
}

std::string Header(const Tensor& tensor) {
  const std::string descr = Descr(tensor.dtype());
  if (descr.empty()) {
    throw RuntimeError("npy: NumPy has no dtype for " + tensor.dtype().ToString());
  }
  std::string shape = "(";
  for (int64_t d : tensor.shape()) shape += std::to_string(d) + ", ";
  if (tensor.ndim() == 1) {
    shape.resize(shape.size() - 1);  // "(5,)"
  } else if (tensor.ndim() > 1) {
    shape.resize(shape.size() - 2);
  }
  shape += ")";
  std::string dict =
      fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr, shape);
  // Magic and version, the 2-byte length, the dict, spaces, a newline: a multiple of 64.
  const size_t unpadded = kMagic.size() + 2 + dict.size() + 1;
  dict.append((kAlignment - unpadded % kAlignment) % kAlignment, ' ');
  dict += '\n';
  if (dict.size() > 0xffff) throw RuntimeError("npy: the shape is too long for a v1.0 header");
  std::string out(kMagic);
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>(dict.size() >> 8);
  return out + dict;
}

}  // namespace

std::string SerializeNpy(const Tensor& tensor) {
  std::string out = Header(tensor);
  out.append(static_cast<const char*>(tensor.raw_data()), static_cast<size_t>(tensor.nbytes()));
  return out;
}

void WriteNpy(const std::string& path, const Tensor& tensor) {
  std::string header;
  try {
    header = Header(tensor);
  } catch (const RuntimeError& e) {
    throw RuntimeError(path + ": " + e.what());
  }
  const std::string_view pieces[] = {
      header, {static_cast<const char*>(tensor.raw_data()), static_cast<size_t>(tensor.nbytes())}};
  WriteFileAtomically(path, pieces);
}

}  // namespace pipesplit::runtime
