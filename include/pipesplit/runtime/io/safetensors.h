// safetensors files: a little-endian uint64 header size N, N bytes of JSON header
// ({"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, ...,
// "__metadata__": {"key": "value"}}, padded with spaces), then the tensor bytes, offsets
// relative to the start of that data.
//
// The reader memory-maps the file and checks everything before use: the header size (at
// most 100 MB and inside the file), the JSON, every entry's dtype, shape and offsets (inside
// the data, the right length for dtype and shape), and that the tensors cover the data
// exactly, without overlaps or holes (the format's rule). Tensors it returns view the
// mapping, which stays alive while any of them does (tensors whose offset is not aligned to
// their element size are copied instead). Errors are RuntimeErrors naming the file and,
// where it applies, the tensor: "model.safetensors: tensor 'w': unknown dtype 'F7'".
//
// The writer stores tensors in the order given, back to back, after a header padded to a
// multiple of 8 bytes.
#ifndef PIPESPLIT_RUNTIME_IO_SAFETENSORS_H_
#define PIPESPLIT_RUNTIME_IO_SAFETENSORS_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::runtime {

using SafetensorsMetadata = std::vector<std::pair<std::string, std::string>>;
using NamedTensor = std::pair<std::string, Tensor>;

// safetensors dtype names: F64 F32 F16 BF16 I64 I32 I16 I8 U64 U32 U16 U8 BOOL F8_E4M3
// F8_E5M2.
std::optional<DataType> DataTypeFromSafetensorsName(std::string_view name);
std::optional<std::string> SafetensorsNameOf(DataType dtype);

class SafetensorsFile {
 public:
  // Maps and validates the file at `path`.
  static SafetensorsFile Open(const std::string& path);
  // Validates an in-memory image of a file, kept alive by `owner`; `display_name` names it
  // in messages.
  static SafetensorsFile FromMemory(std::string display_name, std::shared_ptr<const void> owner,
                                    const void* data, size_t size);

  const std::string& display_name() const { return display_name_; }
  // Tensor names in file order (by data offset; header order among empty tensors).
  const std::vector<std::string>& names() const { return names_; }
  bool Contains(std::string_view name) const;
  // The tensor named `name`; throws RuntimeError "<file>: no tensor named 'x'".
  Tensor Get(std::string_view name) const;
  // Every tensor, in file order.
  std::vector<NamedTensor> GetAll() const;
  // The __metadata__ entries in header order (empty without __metadata__).
  const SafetensorsMetadata& metadata() const { return metadata_; }

 private:
  struct Entry {
    DataType dtype;
    Shape shape;
    size_t begin = 0;
    size_t end = 0;
  };

  std::string display_name_;
  std::shared_ptr<const void> owner_;
  const unsigned char* data_ = nullptr;  // start of the tensor data
  std::vector<std::string> names_;
  std::unordered_map<std::string, Entry> entries_;
  SafetensorsMetadata metadata_;
};

// The bytes of a safetensors file holding `tensors` (names distinct, not "__metadata__")
// and `metadata`. Errors start with "safetensors: ".
std::string SerializeSafetensors(std::span<const NamedTensor> tensors,
                                 const SafetensorsMetadata& metadata = {});
// Writes the same bytes to `path`; errors start with "<path>: ".
void WriteSafetensors(const std::string& path, std::span<const NamedTensor> tensors,
                      const SafetensorsMetadata& metadata = {});

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_IO_SAFETENSORS_H_
