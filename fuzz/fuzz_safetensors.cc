// libFuzzer target: the safetensors reader on an arbitrary file image. The image is either
// rejected with a RuntimeError or every tensor it lists can be read whole (ASan checks that no
// read leaves the image).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "pipesplit/runtime/io/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pipesplit::runtime;
  // A copy of exactly `size` bytes, so any read past the end is reported.
  auto image = std::shared_ptr<char[]>(new char[size == 0 ? 1 : size]);
  std::copy(data, data + size, image.get());
  try {
    SafetensorsFile file =
        SafetensorsFile::FromMemory("fuzz.safetensors", image, image.get(), size);
    volatile uint64_t sum = 0;
    for (const NamedTensor& named : file.GetAll()) {
      const auto* bytes = static_cast<const unsigned char*>(named.second.raw_data());
      for (int64_t i = 0; i < named.second.nbytes(); ++i) sum = sum + bytes[i];
    }
    for (const auto& [key, value] : file.metadata()) sum = sum + key.size() + value.size();
  } catch (const RuntimeError&) {
  }
  return 0;
}
